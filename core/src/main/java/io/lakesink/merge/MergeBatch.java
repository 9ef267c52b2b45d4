package io.lakesink.merge;

import io.lakesink.event.ChangeEvent;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch reduced to the latest change per key, ranked as the current-state view ranks them
 * ({@link ChangeOrder}), so the outcome does not depend on which events share a batch. Rows
 * whose key is empty are dropped.
 */
final class MergeBatch {
  /** The latest change of one key, with its row in table order. */
  record Change(ChangeEvent event, ChangeOrder order, Object[] row) {
    boolean deletes() {
      return event.op() == Operation.DELETE;
    }
  }

  /** Each key column set of the batch: one, unless the record key's fields changed. */
  private final Map<List<String>, KeyColumns> keyColumns = new LinkedHashMap<>();
  final Map<RowKey, Change> latest = new LinkedHashMap<>();
  private LongKeySet longKeys;
  int emptyKeys;

  /**
   * @param rows each event's row in table order (same order as {@code events})
   * @param keys the columns each event is keyed on (same order)
   */
  MergeBatch(List<ChangeEvent> events, List<Object[]> rows, List<KeyColumns> keys) {
    for (int i = 0; i < events.size(); i++) {
      KeyColumns columns = keys.get(i);
      keyColumns.putIfAbsent(columns.names(), columns);
      RowKey key = columns.keyOf(rows.get(i));
      if (key == null) {
        emptyKeys++;
        continue;
      }
      Change change = new Change(events.get(i), ChangeOrder.of(events.get(i)), rows.get(i));
      latest.merge(key, change, (current, candidate) -> candidate.order().isAfter(current.order()) ? candidate : current);
    }
  }

  List<KeyColumns> keyColumns() {
    return List.copyOf(keyColumns.values());
  }

  /** The key values of the batch keyed on these columns. */
  List<List<Object>> keys(KeyColumns columns) {
    return keys(columns, k -> true);
  }

  /** The key values of the batch keyed on these columns that pass {@code which}. */
  List<List<Object>> keys(KeyColumns columns, java.util.function.Predicate<RowKey> which) {
    List<List<Object>> out = new ArrayList<>();
    latest.keySet().stream().filter(k -> k.columns().equals(columns.names()) && which.test(k)).forEach(k -> out.add(k.values()));
    return out;
  }

  /** Every key column of the batch's records, each once. */
  List<String> keyColumnNames() {
    java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
    keyColumns.values().forEach(k -> names.addAll(k.names()));
    return List.copyOf(names);
  }

  /**
   * The batch's keys as primitives when they are one {@code bigint} or {@code int} column (the
   * common primary key), else null. Made once per batch.
   */
  LongKeySet longKeys() {
    if (keyColumns.size() != 1) {
      return null;
    }
    KeyColumns only = keyColumns.values().iterator().next();
    if (only.types().length != 1
        || (only.types()[0].kind() != ColumnType.Kind.BIGINT && only.types()[0].kind() != ColumnType.Kind.INT)) {
      return null;
    }
    if (longKeys == null) {
      List<Long> values = new ArrayList<>(latest.size());
      latest.keySet().forEach(k -> values.add(((Number) k.values().get(0)).longValue()));
      longKeys = new LongKeySet(values);
    }
    return longKeys;
  }

  /** Whether a stored row holds one of the batch's keys (reading only its key columns). */
  boolean holdsKeyOf(Object[] storedRow) {
    for (KeyColumns columns : keyColumns.values()) {
      RowKey k = columns.keyOf(storedRow);
      if (k != null && latest.containsKey(k)) {
        return true;
      }
    }
    return false;
  }

  /** The batch's keys a stored row holds: usually none or one (more if the key columns changed). */
  List<RowKey> keysOf(Object[] storedRow) {
    List<RowKey> out = new ArrayList<>(1);
    for (KeyColumns columns : keyColumns.values()) {
      RowKey k = columns.keyOf(storedRow);
      if (k != null && latest.containsKey(k)) {
        out.add(k);
      }
    }
    return out;
  }

  /** The latest of the changes of these keys. */
  Change latestOf(List<RowKey> keys) {
    Change best = null;
    for (RowKey k : keys) {
      Change c = latest.get(k);
      if (best == null || c.order().isAfter(best.order())) {
        best = c;
      }
    }
    return best;
  }
}
