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
 * A batch reduced to what may matter of each key: the last change of the key in each Kafka
 * partition, ranked as the current-state view ranks them ({@link ChangeOrder}, {@link io.lakesink.view.RankTimes}),
 * so the outcome does not depend on which events share a batch. Rows whose key is empty are
 * dropped.
 *
 * <p>A change's rank time is the highest source time of its key's changes up to it in its
 * partition, and those may lie before the batch: the table knows only its stored row (or a
 * remembered delete), the key's current winner W ranked at R from partition q. That is enough
 * ({@link Changes#over}). W is the last change of its key in q (ranks grow along a partition), so
 * a change of q after it ranks at its batch rank raised to R. A change of another partition p
 * ranks at its batch rank L raised to r, the rank of the key's last earlier change in p, unknown,
 * but r is at most R (W outranks that change): if L is above R the change wins at L; at L = R
 * partition and offset decide as they would at the true rank; below R it loses, also when r = R
 * (then p is below q, W outranking that change, and the change ranks at (R, p) below W). So a
 * key's batch changes cannot be reduced to one before its stored row is known when they come
 * from several partitions: the last of each partition is kept (usually there is one).
 */
final class MergeBatch {
  /** The last change of one key in one partition of the batch, ranked at its rank time within the batch. */
  record Change(ChangeEvent event, ChangeOrder order, Object[] row) {
    boolean deletes() {
      return event.op() == Operation.DELETE;
    }
  }

  /** A change that wins over what the table holds for its key, at the rank it then has. */
  record Win(Change change, ChangeOrder rank) {}

  /** A key's changes in the batch that may win: the last of each partition, the best of them first. */
  static final class Changes {
    private Change best;
    /** The last change of each other partition; null while the key came from one partition (usual). */
    private List<Change> others;
    /**
     * Whether the merge found a stored row of the key (in a file it read, not removed by the
     * batch's truncate). Set by the merge's lanes, each only to true; read once they are done
     * (their end happens before). A flag rather than a set of found keys: those sets, one per file
     * and their union, cost two hash insertions per key of a follow.
     */
    boolean found;

    private Changes(Change first) {
      best = first;
    }

    /** Adds the key's next change (in the batch's order, which is offset order within a partition). */
    private void add(ChangeEvent event, Object[] row) {
      ChangeOrder own = ChangeOrder.of(event);
      int i = indexOf(own);
      Change last = i < 0 ? null : i == 0 ? best : others.get(i - 1);
      // Its batch rank: raised by the key's earlier changes in the partition (peers rank as one).
      Change change = new Change(event, own.raisedTo(last == null ? null : last.order().tsMs()), row);
      if (last != null && last.order().offset() != null && own.offset() != null && own.offset() < last.order().offset()) {
        // Read out of offset order (never from Kafka): the later change stays the partition's last, raised by this one.
        change = new Change(last.event(), last.order().raisedTo(own.tsMs()), last.row());
      }
      if (i == 0) {
        best = change;
      } else if (i > 0) {
        others.set(i - 1, change);
      } else {
        if (others == null) {
          others = new ArrayList<>(2);
        }
        others.add(change);
      }
      if (i != 0 && change.order().isAfter(best.order())) {
        // The best one first: swap it with the one it outranks.
        int at = others.indexOf(change);
        others.set(at, best);
        best = change;
      }
    }

    private int indexOf(ChangeOrder own) {
      if (best.order().samePartition(own)) {
        return 0;
      }
      if (others != null) {
        for (int i = 0; i < others.size(); i++) {
          if (others.get(i).order().samePartition(own)) {
            return i + 1;
          }
        }
      }
      return -1;
    }

    /** Whether every one of the key's changes that may win is a snapshot read. */
    boolean allReads() {
      return best.event().op() == Operation.READ
          && (others == null || others.stream().allMatch(c -> c.event().op() == Operation.READ));
    }

    /** Whether one of them would write a row (not a delete). */
    boolean writes() {
      return !best.deletes() || others != null && others.stream().anyMatch(c -> !c.deletes());
    }

    /**
     * The change that wins over the key's current winner ranked at {@code stored} (the stored row,
     * or its remembered delete; null when there is none), with the rank it then has; null when
     * none does, or the winner ranks at or below {@code floor} (the latest truncate). A change at
     * the stored row's rank wins: it is the change that wrote it, written again as it was.
     */
    Win over(ChangeOrder stored, ChangeOrder floor) {
      Change winner = best;
      ChangeOrder rank = raised(best, stored);
      if (others != null) {
        for (Change c : others) {
          ChangeOrder r = raised(c, stored);
          if (r.isAfter(rank)) {
            winner = c;
            rank = r;
          }
        }
      }
      if (floor != null && !rank.isAfter(floor) || stored != null && stored.isAfter(rank)) {
        return null;
      }
      return new Win(winner, rank);
    }

    /** A change of the stored row's partition comes after it: it ranks at least as high. */
    private static ChangeOrder raised(Change c, ChangeOrder stored) {
      return stored != null && c.order().samePartition(stored) ? c.order().raisedTo(stored.tsMs()) : c.order();
    }
  }

  /** Each key column set of the batch: one, unless the record key's fields changed. */
  private final Map<List<String>, KeyColumns> keyColumns = new LinkedHashMap<>();
  final Map<RowKey, Changes> latest;
  /** The latest truncate (of the batch, or applied before): no change ranked at or below it applies. */
  final ChangeOrder floor;
  private LongKeySet longKeys;
  int emptyKeys;

  /**
   * @param rows each event's row in table order (same order as {@code events})
   * @param keys the columns each event is keyed on (same order)
   * @param floor the latest truncate the table reflects once the batch is merged, or null
   */
  MergeBatch(List<ChangeEvent> events, List<Object[]> rows, List<KeyColumns> keys, ChangeOrder floor) {
    this.floor = floor;
    // Sized for a key per change at most: grown from the default, it was rehashed a dozen times per batch.
    this.latest = new LinkedHashMap<>((int) Math.min(1 << 30, Math.max(16, events.size() * 4L / 3 + 1)));
    KeyColumns previous = null;
    for (int i = 0; i < events.size(); i++) {
      KeyColumns columns = keys.get(i);
      if (columns != previous) { // a batch's changes share one (hashing its names per change was a cost of its own)
        keyColumns.putIfAbsent(columns.names(), columns);
        previous = columns;
      }
      RowKey key = columns.keyOf(rows.get(i));
      if (key == null) {
        emptyKeys++;
        continue;
      }
      Changes changes = latest.get(key);
      if (changes == null) {
        latest.put(key, new Changes(new Change(events.get(i), ChangeOrder.of(events.get(i)), rows.get(i))));
      } else {
        changes.add(events.get(i), rows.get(i));
      }
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
   * common primary key), else null. Each stands for its entry of {@link #latest} ({@link
   * LongKeySet#itemOf}), which {@link #over(Map.Entry, ChangeOrder, List)} takes. Made once per batch.
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
      List<Map.Entry<RowKey, Changes>> entries = new ArrayList<>(latest.size());
      for (Map.Entry<RowKey, Changes> e : latest.entrySet()) {
        values.add(((Number) e.getKey().first()).longValue());
        entries.add(e);
      }
      longKeys = new LongKeySet(values, entries);
    }
    return longKeys;
  }

  /**
   * The batch's keys by their UTF-8 bytes, when they are one {@code string} column (a key from a
   * JSON record without a schema, a UUID); else null. Each stands for its entry of {@link #latest}
   * ({@link Utf8Keys#itemAt}), which {@link #over(Map.Entry, ChangeOrder, List)} takes. Made anew
   * per call: a merge makes it once, before its lanes read.
   */
  Utf8Keys stringKeys() {
    if (keyColumns.size() != 1) {
      return null;
    }
    KeyColumns only = keyColumns.values().iterator().next();
    if (only.types().length != 1 || only.types()[0].kind() != ColumnType.Kind.STRING) {
      return null;
    }
    List<String> values = new ArrayList<>(latest.size());
    List<Map.Entry<RowKey, Changes>> entries = new ArrayList<>(latest.size());
    for (Map.Entry<RowKey, Changes> e : latest.entrySet()) {
      if (!(e.getKey().first() instanceof String s)) {
        return null; // not held as a string: compared as a key
      }
      values.add(s);
      entries.add(e);
    }
    return new Utf8Keys(values, entries);
  }

  /**
   * As {@link #over(Object[], ChangeOrder, List)} for a stored row whose key is {@code found}'s: a
   * batch keyed on one string or integer column found it by the row's key as the file stores it
   * ({@link #stringKeys}, {@link #longKeys}), so the row is not keyed and looked up again (a key
   * object and a hash lookup per stored row the batch changes, an eighth of a kept table's follow).
   */
  Win over(Map.Entry<RowKey, Changes> found, ChangeOrder stored, List<RowKey> keys) {
    return found(found.getKey(), found.getValue(), stored, keys);
  }

  /** A stored row ranked at {@code stored} holds {@code key}: noted, and what of its changes wins over the row. */
  private Win found(RowKey key, Changes changes, ChangeOrder stored, List<RowKey> keys) {
    keys.add(key);
    changes.found = true;
    return changes.over(stored, floor);
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

  /**
   * What wins over a stored row ranked at {@code stored} among the changes of the batch's keys it
   * holds (usually none or one; more if the key columns changed), each looked up once; null: the
   * row stays. Adds those keys to {@code keys} and notes that the table holds them ({@link Changes#found}).
   */
  Win over(Object[] storedRow, ChangeOrder stored, List<RowKey> keys) {
    Win best = null;
    for (KeyColumns columns : keyColumns.values()) {
      RowKey k = columns.keyOf(storedRow);
      Changes changes = k == null ? null : latest.get(k);
      if (changes == null) {
        continue;
      }
      Win w = found(k, changes, stored, keys);
      if (w != null && (best == null || w.rank().isAfter(best.rank()))) {
        best = w;
      }
    }
    return best;
  }
}
