package io.lakesink.currentstate;

import io.lakesink.event.ChangeEvent;
import io.lakesink.event.HeapEstimate;
import io.lakesink.event.RowSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes of one commit of a kept table, reduced while the changelog's files are read to
 * what the merge uses of them: per key and Kafka partition, the last change (highest offset),
 * and of the earlier ones only the one with the highest source time, when it is above the last
 * one's. The merge ranks a key's last change of a partition at the highest {@code __ts_ms} of its
 * changes up to it there ({@link io.lakesink.view.RankTimes}) and keeps nothing else of them
 * ({@code merge.MergeBatch}): those two changes give it the same last change at the same rank as
 * all of them. A follow of 200,000 changes on 100,000 keys holds about 87,000 changes instead of
 * 200,000 (they were most of the follow's heap, beside the changelog's next flush).
 *
 * <p>Truncates, changes without a Kafka position (a backfill's: they have no offsets to order
 * them by) and changes with a null key column are all kept as they are. The changes come out in
 * the order they were added (a subsequence of it), as the merge expects within a partition.
 */
final class LatestChanges {
  private final List<String> key;
  /** Per key values and partition: its last change and the earlier one of highest time, if any. */
  private final Map<KeyAt, Latest> byKey = new HashMap<>();
  /** The changes kept whatever follows them. */
  private final List<Numbered> kept = new ArrayList<>();
  private long added;
  /** The schema {@link #keySlots} were found in, and where the key columns are in it. */
  private RowSchema slotsOf;
  private int[] keySlots;

  /**
   * A key's values (the value itself for a one-column key, the usual case; else a list of them)
   * and a partition: one per change looked up, so no list or array of its own for a one-column
   * key, and equality without an iterator (a list's costs one per comparison).
   */
  private record KeyAt(Object key, int partition) {}

  /** A change with the number of its addition, which orders the changes handed out, and what it holds on the heap. */
  private record Numbered(long number, ChangeEvent change, long heapBytes) {}

  /** What a key's entry costs besides its changes: the map's node, the key and the holder. */
  private static final long ENTRY_BYTES = 32 + 24 + 24;
  /** What the changes kept hold on the heap, estimated ({@link HeapEstimate}). */
  private long heapBytes;

  private static final class Latest {
    Numbered last;
    /** An earlier change whose time is above the last one's: what raises its rank. Null when none. */
    Numbered highest;
  }

  /** @param key the key columns the table is kept on */
  LatestChanges(List<String> key) {
    this.key = List.copyOf(key);
  }

  /** Adds the changes read from one changelog file (any order across files). */
  void addAll(List<ChangeEvent> changes) {
    changes.forEach(this::add);
  }

  /** Adds the next change read (in file order within a file; files in any order). */
  void add(ChangeEvent e) {
    Numbered n = new Numbered(added++, e, HeapEstimate.of(e));
    KeyAt at = keyAndPartition(e);
    if (at == null) {
      kept.add(n);
      heapBytes += n.heapBytes();
      return;
    }
    Latest l = byKey.get(at);
    if (l == null) {
      l = new Latest();
      l.last = n;
      byKey.put(at, l);
      heapBytes += ENTRY_BYTES + n.heapBytes();
      return;
    }
    long offset = e.position().offset();
    long lastOffset = l.last.change().position().offset();
    if (offset == lastOffset) {
      return; // the same change read twice (a file and the file an optimize packed it into): once is enough
    }
    long before = l.last.heapBytes() + (l.highest == null ? 0 : l.highest.heapBytes());
    // Whichever is earlier, only the highest time of the earlier ones may still matter.
    Numbered earlier = offset > lastOffset ? l.last : n;
    if (offset > lastOffset) {
      l.last = n;
    }
    Numbered highest = l.highest == null || later(earlier, l.highest) ? earlier : l.highest;
    l.highest = later(highest, l.last) ? highest : null;
    heapBytes += l.last.heapBytes() + (l.highest == null ? 0 : l.highest.heapBytes()) - before;
  }

  /** What the changes kept so far hold on the heap, estimated: what a follow counts in the worker's buffer budget. */
  long heapBytes() {
    return heapBytes;
  }

  /** Whether {@code a}'s source time is above {@code b}'s (an unknown time is below every known one). */
  private static boolean later(Numbered a, Numbered b) {
    Long x = a.change().tsMs();
    Long y = b.change().tsMs();
    return x != null && (y == null || x > y);
  }

  /** What a change is reduced by: its key's values and its partition; null when it is kept as it is. */
  private KeyAt keyAndPartition(ChangeEvent e) {
    if (e.isTruncate() || e.position().partition() == ChangelogChanges.NO_PARTITION
        || e.position().offset() == ChangelogChanges.NO_OFFSET) {
      return null;
    }
    int[] slots = keySlots(e.schema());
    if (slots.length == 1) {
      Object value = slots[0] < 0 ? null : e.values()[slots[0]];
      return reduces(value) ? new KeyAt(value, e.position().partition()) : null;
    }
    Object[] values = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      values[i] = slots[i] < 0 ? null : e.values()[slots[i]];
      if (!reduces(values[i])) {
        return null;
      }
    }
    return new KeyAt(Arrays.asList(values), e.position().partition());
  }

  /**
   * Where the key columns are in a change of this schema (-1: not there). A follow's changes share
   * one schema: found once, not by name for every change.
   */
  private int[] keySlots(RowSchema schema) {
    if (schema != slotsOf) {
      int[] slots = new int[key.size()];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = schema.indexOf(key.get(i));
      }
      keySlots = slots;
      slotsOf = schema;
    }
    return keySlots;
  }

  /** Whether a key value reduces changes: not without one (the merge drops it), nor one compared by identity. */
  private static boolean reduces(Object value) {
    return value != null && !(value instanceof byte[]);
  }

  /** Changes added so far, before the reduction: what a commit's size is counted in. */
  long added() {
    return added;
  }

  /** The changes kept, in the order they were added. */
  List<ChangeEvent> changes() {
    List<Numbered> all = new ArrayList<>(kept);
    byKey.values().forEach(l -> {
      all.add(l.last);
      if (l.highest != null) {
        all.add(l.highest);
      }
    });
    if (added > Integer.MAX_VALUE || added > 4L * all.size()) {
      all.sort(Comparator.comparingLong(Numbered::number));
      return all.stream().map(Numbered::change).toList();
    }
    // Each number is below the count added and once only: put in place, not compared (a sort of
    // the kept changes, chasing a pointer per comparison, was a twentieth of a follow).
    ChangeEvent[] inOrder = new ChangeEvent[(int) added];
    all.forEach(n -> inOrder[(int) n.number()] = n.change());
    List<ChangeEvent> out = new ArrayList<>(all.size());
    for (ChangeEvent e : inOrder) {
      if (e != null) {
        out.add(e);
      }
    }
    return out;
  }
}
