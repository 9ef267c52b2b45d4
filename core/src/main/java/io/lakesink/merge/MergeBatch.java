package io.lakesink.merge;

import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch reduced to its latest change per key: the highest {@code __ts_ms} (unknown times rank
 * lowest), ties to the event read last. Rows whose key is empty are dropped.
 */
final class MergeBatch {
  /** The latest change of one key, with its row in table order. */
  record Change(ChangeEvent event, Object[] row) {
    boolean deletes() {
      return event.op() == Operation.DELETE;
    }
  }

  final Map<List<Object>, Change> latest = new LinkedHashMap<>();
  int emptyKeys;

  /**
   * @param rows each event's row in table order (same order as {@code events})
   * @param keySlots where the key columns are in those rows
   */
  MergeBatch(List<ChangeEvent> events, List<Object[]> rows, int[] keySlots) {
    for (int i = 0; i < events.size(); i++) {
      List<Object> key = key(rows.get(i), keySlots);
      if (key == null) {
        emptyKeys++;
        continue;
      }
      ChangeEvent e = events.get(i);
      Change previous = latest.get(key);
      if (previous == null || !older(e, previous.event())) {
        latest.put(key, new Change(e, rows.get(i)));
      }
    }
  }

  /** The key of a row, or null when a key column is empty. */
  static List<Object> key(Object[] row, int[] keySlots) {
    Object[] key = new Object[keySlots.length];
    for (int i = 0; i < keySlots.length; i++) {
      Object v = row[keySlots[i]];
      if (v == null || (v instanceof String s && s.isEmpty())) {
        return null;
      }
      key[i] = v;
    }
    return Arrays.asList(key);
  }

  private static boolean older(ChangeEvent candidate, ChangeEvent current) {
    if (candidate.tsMs() == null) {
      return current.tsMs() != null;
    }
    return current.tsMs() != null && candidate.tsMs() < current.tsMs();
  }

  List<List<Object>> keys() {
    return new ArrayList<>(latest.keySet());
  }
}
