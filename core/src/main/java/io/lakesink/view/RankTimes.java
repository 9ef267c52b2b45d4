package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The rank time of changes: the running maximum of {@code __ts_ms} along the changes of one key
 * within one Kafka partition, in offset order. Within a partition Kafka's order is the source's,
 * so a key's rank never goes down along a partition, even when a change carries an earlier source
 * time than the one before it (a Debezium snapshot row is stamped when it was read, later than
 * the changes that follow it); across partitions the source time still decides. Changes at the
 * same offset (rows without a Kafka position, from a backfill) rank together, at the highest time
 * among them, as the view's {@code RANGE} frame ranks them. A truncate has no key: it ranks at
 * its own {@code __ts_ms} (docs/truncates.md). This is the one place the rule is computed in
 * memory; the views compute it in SQL ({@link CurrentStateView#rankTime}).
 */
public final class RankTimes {
  private RankTimes() {}

  /**
   * Each row's rank ({@link ChangeOrder} with its rank time), for rows of a changelog (or of any
   * table with its ordering columns) in any order.
   *
   * @param keyOf a row's key (null or any value: rows are grouped by equality)
   */
  public static <R> Map<R, ChangeOrder> of(List<R> rows, Function<R, ?> keyOf, Function<R, ChangeOrder> own, Function<R, Boolean> truncate) {
    Map<List<Object>, List<R>> groups = new HashMap<>();
    for (R row : rows) {
      List<Object> group = new ArrayList<>(2);
      group.add(keyOf.apply(row));
      group.add(own.apply(row).partition());
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(row);
    }
    Map<R, ChangeOrder> out = new IdentityHashMap<>();
    Comparator<Long> offsets = Comparator.nullsFirst(Comparator.naturalOrder());
    for (List<R> group : groups.values()) {
      group.sort(Comparator.comparing((R r) -> own.apply(r).offset(), offsets));
      Long max = null;
      for (int i = 0; i < group.size(); ) {
        int end = i;
        Long offset = own.apply(group.get(i)).offset();
        // Peers (same offset) first raise the maximum together: they rank as one.
        while (end < group.size() && Objects.equals(offset, own.apply(group.get(end)).offset())) {
          max = max(max, own.apply(group.get(end)).tsMs());
          end++;
        }
        for (; i < end; i++) {
          R row = group.get(i);
          ChangeOrder o = own.apply(row);
          out.put(row, Boolean.TRUE.equals(truncate.apply(row)) ? o : new ChangeOrder(max, o.partition(), o.offset()));
        }
      }
    }
    return out;
  }

  /** The ranks of changelog rows (column → value), keyed on {@code key}. */
  public static Map<Map<String, Object>, ChangeOrder> ofChangelog(List<Map<String, Object>> changelog, List<String> key) {
    return of(changelog, row -> key.stream().map(row::get).toList(), ChangeOrder::of,
        row -> Operation.TRUNCATE.code().equals(row.get(ChangelogColumns.OP)));
  }

  /** The larger of two times, an unknown one lowest. */
  public static Long max(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null || a >= b ? a : b;
  }
}
