package io.lakesink.currentstate;

import io.lakesink.event.ChangeEvent;
import io.lakesink.event.HeapEstimate;
import io.lakesink.event.IntegerText;
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
  /**
   * Per key values: the entry of its partition, chained to those of other partitions (a key in
   * two partitions is rare: a producer that changed how it partitions). Keyed on the key value
   * itself, not on a key-and-partition object: each lookup of a changelog row's key then follows
   * one object fewer (its key's was one more cache miss a row, and an object a row).
   */
  private Map<Object, Latest<T>> byKey = Map.of();
  /**
   * The entries of {@code Long} keys (a bigint key, the usual one): in primitive arrays,
   * open-addressed, not in {@link #byKey}. A map node and a boxed key per key were a cache miss
   * more per row read and garbage the size of the keys at every follow.
   */
  private LongEntries<Latest<T>> byLongKey;
  /**
   * The entries of string keys that are an integer's text ({@link IntegerText}: an id in a text
   * column, as schemaless JSON gives every column), by that integer: apart from the bigint keys,
   * so a number and its text are never taken for one key.
   */
  private LongEntries<Latest<T>> byIntegerText;
  /** About how many keys the changes will have: what whichever of them is used is made for. */
  private final int expectedKeys;
  /** Entries of a key and partition. */
  private long entries;
  /** The changes kept whatever follows them. */
  private final List<Numbered<T>> kept = new ArrayList<>();
  private long added;
  /** Keys whose entry keeps an earlier change beside the last one. */
  private long withHighest;

  /** A change with the number of its addition, which orders the changes handed out. */
  private record Numbered<T>(long number, T change) {}

  /** What a key's entry costs besides its changes: the map's node, and the entry with its changes' numbers and times. */
  private static final long ENTRY_BYTES = 32 + 88;
  /** What the changes kept hold on the heap, estimated ({@link HeapEstimate}). */
  private long heapBytes;

  /**
   * A key's last change (highest offset) and the earlier one whose time is above it, if any, each
   * with the number of its addition, what it holds on the heap and its source time ({@code timed}
   * false: none), read once. Held in the entry itself, not in a holder per change: a holder per
   * changelog row read was nearly half of what the reduction allocated, and each comparison of times
   * followed a change to a boxed value far away in the heap.
   */
  private static final class Latest<T> {
    final int partition;
    /** The same key's entry of another partition; null when none. */
    Latest<T> other;
    T last;
    long lastNumber;
    long lastHeap;
    long lastOffset;
    boolean lastTimed;
    long lastTs;
    /** An earlier change whose time is above the last one's: what raises its rank. Null when none. */
    T highest;
    long highestNumber;
    long highestHeap;
    boolean highestTimed;
    long highestTs;

    void last(T change, long number, long heap, long offset, boolean timed, long ts) {
      last = change;
      lastNumber = number;
      lastHeap = heap;
      lastOffset = offset;
      lastTimed = timed;
      lastTs = ts;
    }

    void highest(T change, long number, long heap, boolean timed, long ts) {
      highest = change;
      highestNumber = number;
      highestHeap = heap;
      highestTimed = timed;
      highestTs = ts;
    }

    Latest(int partition) {
      this.partition = partition;
    }

    /** What its changes hold on the heap, estimated. */
    long heap() {
      return lastHeap + (highest == null ? 0 : highestHeap);
    }
  }

  LatestChanges(Reading<T> reading) {
    this(reading, 0);
  }

  /**
   * @param expectedKeys about how many keys the changes will have (the previous commit's count):
   *     the map is made that large at once instead of doubled a dozen times while it fills, each
   *     time rehashing every key (a fiftieth of a follow)
   */
  LatestChanges(Reading<T> reading, int expectedKeys) {
    this.reading = reading;
    this.expectedKeys = expectedKeys;
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
    long number = added++;
    long heap = reading.heapBytes(e);
    if (key == null) {
      kept.add(new Numbered<>(number, e));
      heapBytes += heap;
      return;
    }
    Long tsMs = reading.tsMs(e);
    boolean timed = tsMs != null;
    long ts = timed ? tsMs : 0;
    long offset = reading.offset(e);
    int partition = reading.partition(e);
    long text = key instanceof String str ? IntegerText.valueOf(str) : IntegerText.NONE;
    Latest<T> first = key instanceof Long k ? longKeys().get(k) : text != IntegerText.NONE ? integerTexts().get(text) : byKey.get(key);
    Latest<T> l = first;
    while (l != null && l.partition != partition) {
      l = l.other;
    }
    if (l == null) {
      l = new Latest<>(partition);
      l.last(e, number, heap, offset, timed, ts);
      if (first == null) {
        if (key instanceof Long k) {
          byLongKey.put(k, l);
        } else if (text != IntegerText.NONE) {
          byIntegerText.put(text, l);
        } else {
          if (byKey.isEmpty()) {
            // Made at the first such key, as large as the keys expected: not doubled a dozen times
            // while it fills, each time rehashing every key (a fiftieth of a follow).
            byKey = new HashMap<>((int) Math.min(1 << 30, Math.max(16, expectedKeys * 4L / 3 + 1)));
          }
          byKey.put(key, l);
        }
      } else {
        l.other = first.other;
        first.other = l;
      }
      entries++;
      heapBytes += ENTRY_BYTES + heap;
      return;
    }
    if (offset == l.lastOffset) {
      return; // the same change read twice (a file and the file an optimize packed it into): once is enough
    }
    long before = l.heap();
    boolean hadHighest = l.highest != null;
    // Whichever is earlier, only the highest time of the earlier ones may still matter.
    if (offset > l.lastOffset) {
      if (l.highest == null || later(l.lastTimed, l.lastTs, l.highestTimed, l.highestTs)) {
        l.highest(l.last, l.lastNumber, l.lastHeap, l.lastTimed, l.lastTs);
      }
      l.last(e, number, heap, offset, timed, ts);
    } else if (l.highest == null || later(timed, ts, l.highestTimed, l.highestTs)) {
      l.highest(e, number, heap, timed, ts);
    }
    if (l.highest != null && !later(l.highestTimed, l.highestTs, l.lastTimed, l.lastTs)) {
      l.highest = null;
    }
    heapBytes += l.heap() - before;
    withHighest += (l.highest != null ? 1 : 0) - (hadHighest ? 1 : 0);
  }

  /** The bigint keys' entries, made at the first such key, as large as the keys expected. */
  private LongEntries<Latest<T>> longKeys() {
    if (byLongKey == null) {
      byLongKey = new LongEntries<>(expectedKeys);
    }
    return byLongKey;
  }

  /** The entries of keys that are an integer's text, made at the first such key, as large as the keys expected. */
  private LongEntries<Latest<T>> integerTexts() {
    if (byIntegerText == null) {
      byIntegerText = new LongEntries<>(expectedKeys);
    }
    return byIntegerText;
  }

  /** What the changes kept so far hold on the heap, estimated: what a follow counts in the worker's buffer budget. */
  long heapBytes() {
    return heapBytes;
  }

  /** Whether time {@code a} is above time {@code b} (an unknown time is below every known one). */
  private static boolean later(boolean aTimed, long a, boolean bTimed, long b) {
    return aTimed && (!bTimed || a > b);
  }

  /** Changes added so far, before the reduction. */
  long added() {
    return added;
  }

  /** Keys of the changes reduced: what the next commit's map is sized for. */
  int keys() {
    return byKey.size() + (byLongKey == null ? 0 : byLongKey.size()) + (byIntegerText == null ? 0 : byIntegerText.size());
  }

  /** Changes kept so far: what {@link #changes} hands out, and what a commit's size is counted in. */
  long held() {
    return kept.size() + entries + withHighest;
  }

  /** The changes kept, in the order they were added. */
  List<T> changes() {
    return kept().changes();
  }

  /**
   * The changes kept, in the order they were added, each with the number of its addition (its
   * position in the file, for the changes of one file read in file order).
   */
  Kept<T> kept() {
    if (added > Integer.MAX_VALUE || added > 4 * held()) {
      List<Numbered<T>> all = new ArrayList<>(kept);
      forEachEntry(l -> {
        all.add(new Numbered<>(l.lastNumber, l.last));
        if (l.highest != null) {
          all.add(new Numbered<>(l.highestNumber, l.highest));
        }
      });
      all.sort(Comparator.comparingLong(Numbered::number));
      return new Kept<>(all.stream().map(Numbered::change).toList(), all.stream().mapToLong(Numbered::number).toArray());
    }
    // Each number is below the count added and once only: put in place, not compared (a sort of
    // the kept changes, chasing a pointer per comparison, was a twentieth of a follow).
    Object[] inOrder = new Object[(int) added];
    kept.forEach(n -> inOrder[(int) n.number()] = n.change());
    forEachEntry(l -> {
      inOrder[(int) l.lastNumber] = l.last;
      if (l.highest != null) {
        inOrder[(int) l.highestNumber] = l.highest;
      }
    });
    List<T> out = new ArrayList<>((int) held());
    long[] numbers = new long[inOrder.length];
    for (int i = 0; i < inOrder.length; i++) {
      if (inOrder[i] != null) {
        @SuppressWarnings("unchecked")
        T change = (T) inOrder[i];
        numbers[out.size()] = i;
        out.add(change);
      }
    }
    return new Kept<>(out, out.size() == numbers.length ? numbers : Arrays.copyOf(numbers, out.size()));
  }

  /** Changes kept, in the order they were added, and the number of each one's addition. */
  record Kept<T>(List<T> changes, long[] numbers) {}

  /** Every entry of a key and partition. */
  private void forEachEntry(java.util.function.Consumer<Latest<T>> action) {
    for (LongEntries<Latest<T>> entries : Arrays.asList(byLongKey, byIntegerText)) {
      if (entries != null) {
        entries.forEach(first -> {
          for (Latest<T> l = first; l != null; l = l.other) {
            action.accept(l);
          }
        });
      }
    }
    for (Latest<T> first : byKey.values()) {
      for (Latest<T> l = first; l != null; l = l.other) {
        action.accept(l);
      }
    }
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
