package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.ChangeEvent;
import java.util.Comparator;
import java.util.Map;

/**
 * Where a change ranks among the changes of its key: {@code __ts_ms}, then {@code __partition},
 * then {@code __offset}, each unknown value ranking lowest. The source time alone is not a total
 * order, so the Kafka position breaks ties. The current-state view and MERGE delivery share this
 * rule, so a merged table and the view over the same changes agree.
 */
public record ChangeOrder(Long tsMs, Integer partition, Long offset) implements Comparable<ChangeOrder> {
  /** What a row without any ordering column ranks as: below every change. */
  public static final ChangeOrder UNKNOWN = new ChangeOrder(null, null, null);

  private static final Comparator<ChangeOrder> ORDER =
      Comparator.comparing(ChangeOrder::tsMs, Comparator.nullsFirst(Comparator.<Long>naturalOrder()))
          .thenComparing(ChangeOrder::partition, Comparator.nullsFirst(Comparator.<Integer>naturalOrder()))
          .thenComparing(ChangeOrder::offset, Comparator.nullsFirst(Comparator.<Long>naturalOrder()));

  public static ChangeOrder of(ChangeEvent e) {
    return new ChangeOrder(e.tsMs(), e.position().partition(), e.position().offset());
  }

  /** The order of a stored row (changelog or merged table); missing columns read as unknown. */
  public static ChangeOrder of(Map<String, Object> row) {
    Object ts = row.get(ChangelogColumns.TS_MS);
    Object partition = row.get(ChangelogColumns.PARTITION);
    Object offset = row.get(ChangelogColumns.OFFSET);
    return new ChangeOrder(
        ts == null ? null : ((Number) ts).longValue(),
        partition == null ? null : ((Number) partition).intValue(),
        offset == null ? null : ((Number) offset).longValue());
  }

  /** Whether this change ranks above {@code other}. */
  public boolean isAfter(ChangeOrder other) {
    return compareTo(other) > 0;
  }

  @Override
  public int compareTo(ChangeOrder other) {
    return ORDER.compare(this, other);
  }
}
