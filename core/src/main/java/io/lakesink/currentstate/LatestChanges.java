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
 * <p>The changes are whatever a {@link Reading} reads: a follow reduces the changelog's rows as
 * they are ({@link ChangelogChanges}), and only those kept become change events, so a change
 * replaced later in the commit (half of them in a busy table) costs no event and no copy of its
 * values.
 *
 * <p>Truncates, changes without a Kafka position (a backfill's: they have no offsets to order
 * them by) and changes with a null key column are all kept as they are. The changes come out in
 * the order they were added (a subsequence of it), as the merge expects within a partition.
 *
 * @param <T> what a change is read as
 */
final class LatestChanges<T> {
  /** What the reduction reads of a change. */
  interface Reading<T> {
    /**
     * The change's key values (the value itself for a one-column key, the usual case; else a list
     * of them), or null when it is kept as it is: a truncate, a change without a Kafka position,
     * a null key value (or one compared by identity, a {@code byte[]}).
     */
    Object keyOf(T change);

    /** Its Kafka partition and offset (a change with a key has both). */
    int partition(T change);

    long offset(T change);

    /** Its source time, or null. */
    Long tsMs(T change);

    /** What it holds on the heap, estimated ({@link HeapEstimate}), as the change event it is applied as. */
    long heapBytes(T change);
  }

  private final Reading<T> reading;
  /** Per key values and partition: its last change and the earlier one of highest time, if any. */
  private final Map<KeyAt, Latest<T>> byKey = new HashMap<>();
  /** The changes kept whatever follows them. */
  private final List<Numbered<T>> kept = new ArrayList<>();
  private long added;
  /** Keys whose entry keeps an earlier change beside the last one. */
  private long withHighest;

  /**
   * A key's values and a partition: one per change looked up, so no list or array of its own for
   * a one-column key, and equality without an iterator (a list's costs one per comparison).
   */
  private record KeyAt(Object key, int partition) {
    // Written out: a record's generated equals and hashCode go through a chain of method
    // handles, and this runs for every changelog row a follow reads.
    @Override
    public boolean equals(Object o) {
      return o instanceof KeyAt k && partition == k.partition && key.equals(k.key);
    }

    @Override
    public int hashCode() {
      return 31 * key.hashCode() + partition;
    }
  }

  /**
   * A change with the number of its addition, which orders the changes handed out, what it holds
   * on the heap, its Kafka offset and its source time ({@code timed} false: none), read once: the
   * reduction compares times up to four times per change and a change's offset with the next of
   * its key's, and each read followed the change to a boxed value far away in the heap (a
   * twentieth of a follow's CPU).
   */
  private record Numbered<T>(long number, T change, long heapBytes, long offset, boolean timed, long tsMs) {
    static <T> Numbered<T> of(long number, T change, long heapBytes, long offset, Long tsMs) {
      return new Numbered<>(number, change, heapBytes, offset, tsMs != null, tsMs == null ? 0 : tsMs);
    }
  }

  /** What a key's entry costs besides its changes: the map's node, the key and the holder. */
  private static final long ENTRY_BYTES = 32 + 24 + 24;
  /** What the changes kept hold on the heap, estimated ({@link HeapEstimate}). */
  private long heapBytes;

  private static final class Latest<T> {
    Numbered<T> last;
    /** An earlier change whose time is above the last one's: what raises its rank. Null when none. */
    Numbered<T> highest;
  }

  LatestChanges(Reading<T> reading) {
    this.reading = reading;
  }

  /** Changes as change events, keyed on {@code key}: what tests give it. */
  static LatestChanges<ChangeEvent> ofEvents(List<String> key) {
    return new LatestChanges<>(new EventReading(key));
  }

  /** Adds the changes read from one changelog file (any order across files). */
  void addAll(List<T> changes) {
    changes.forEach(this::add);
  }

  /** Adds the next change read (in file order within a file; files in any order). */
  void add(T e) {
    Object key = reading.keyOf(e);
    Numbered<T> n = Numbered.of(added++, e, reading.heapBytes(e), key == null ? 0 : reading.offset(e), reading.tsMs(e));
    if (key == null) {
      kept.add(n);
      heapBytes += n.heapBytes();
      return;
    }
    KeyAt at = new KeyAt(key, reading.partition(e));
    Latest<T> l = byKey.get(at);
    if (l == null) {
      l = new Latest<>();
      l.last = n;
      byKey.put(at, l);
      heapBytes += ENTRY_BYTES + n.heapBytes();
      return;
    }
    long offset = n.offset();
    long lastOffset = l.last.offset();
    if (offset == lastOffset) {
      return; // the same change read twice (a file and the file an optimize packed it into): once is enough
    }
    long before = l.last.heapBytes() + (l.highest == null ? 0 : l.highest.heapBytes());
    boolean hadHighest = l.highest != null;
    // Whichever is earlier, only the highest time of the earlier ones may still matter.
    Numbered<T> earlier = offset > lastOffset ? l.last : n;
    if (offset > lastOffset) {
      l.last = n;
    }
    Numbered<T> highest = l.highest == null || later(earlier, l.highest) ? earlier : l.highest;
    l.highest = later(highest, l.last) ? highest : null;
    heapBytes += l.last.heapBytes() + (l.highest == null ? 0 : l.highest.heapBytes()) - before;
    withHighest += (l.highest != null ? 1 : 0) - (hadHighest ? 1 : 0);
  }

  /** What the changes kept so far hold on the heap, estimated: what a follow counts in the worker's buffer budget. */
  long heapBytes() {
    return heapBytes;
  }

  /** Whether {@code a}'s source time is above {@code b}'s (an unknown time is below every known one). */
  private static boolean later(Numbered<?> a, Numbered<?> b) {
    return a.timed() && (!b.timed() || a.tsMs() > b.tsMs());
  }

  /** Changes added so far, before the reduction. */
  long added() {
    return added;
  }

  /** Changes kept so far: what {@link #changes} hands out, and what a commit's size is counted in. */
  long held() {
    return kept.size() + byKey.size() + withHighest;
  }

  /** The changes kept, in the order they were added. */
  List<T> changes() {
    List<Numbered<T>> all = new ArrayList<>(kept);
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
    Object[] inOrder = new Object[(int) added];
    all.forEach(n -> inOrder[(int) n.number()] = n.change());
    List<T> out = new ArrayList<>(all.size());
    for (Object e : inOrder) {
      if (e != null) {
        @SuppressWarnings("unchecked")
        T change = (T) e;
        out.add(change);
      }
    }
    return out;
  }

  /** Whether a key value reduces changes: not without one (the merge drops it), nor one compared by identity. */
  private static boolean reduces(Object value) {
    return value != null && !(value instanceof byte[]);
  }

  /**
   * What {@link Reading#keyOf} gives for a change whose values are {@code values}, the key's at
   * {@code slots} (a slot outside them, -1 or past their end, reads null): the value for a
   * one-column key, a list for more, null when one does not reduce changes.
   */
  static Object keyOf(Object[] values, int[] slots) {
    if (slots.length == 1) {
      Object value = at(values, slots[0]);
      return reduces(value) ? value : null;
    }
    Object[] key = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      key[i] = at(values, slots[i]);
      if (!reduces(key[i])) {
        return null;
      }
    }
    return Arrays.asList(key);
  }

  private static Object at(Object[] values, int slot) {
    return slot < 0 || slot >= values.length ? null : values[slot];
  }

  /** {@link Reading} of change events. */
  private static final class EventReading implements Reading<ChangeEvent> {
    private final List<String> key;
    /** The schema {@link #keySlots} were found in, and where the key columns are in it. */
    private RowSchema slotsOf;
    private int[] keySlots;

    EventReading(List<String> key) {
      this.key = List.copyOf(key);
    }

    @Override
    public Object keyOf(ChangeEvent e) {
      if (e.isTruncate() || e.position().partition() == ChangelogChanges.NO_PARTITION
          || e.position().offset() == ChangelogChanges.NO_OFFSET) {
        return null;
      }
      return LatestChanges.keyOf(e.values(), keySlots(e.schema()));
    }

    /** Where the key columns are in a change of this schema (-1: not there); found once per schema. */
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

    @Override
    public int partition(ChangeEvent e) {
      return e.position().partition();
    }

    @Override
    public long offset(ChangeEvent e) {
      return e.position().offset();
    }

    @Override
    public Long tsMs(ChangeEvent e) {
      return e.tsMs();
    }

    @Override
    public long heapBytes(ChangeEvent e) {
      return HeapEstimate.of(e);
    }
  }
}
