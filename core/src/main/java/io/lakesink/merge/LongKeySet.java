package io.lakesink.merge;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The integer keys of a batch as a primitive open-addressing set: what a merge tests every stored
 * row's key against while it scans a file, without boxing the key or building a key object.
 *
 * <p>Most keys tested are not in the set (a batch changes a few rows of each file it reads), so a
 * bit per hash in front of the slots answers most of them from a table small enough to stay in
 * the core's first cache (16 to 32 bits per key, at most 32 KB), where the slots (16 bytes per
 * key) do not: once the page reads were cheap, the slots' cache misses were a third of a
 * merge's scan.
 *
 * <p>A file written or clustered in key order (lakesink's own files, and every file an optimize
 * wrote) is tested faster still by a {@link Walk}: its keys are compared with the batch's keys in
 * sorted order, one comparison a row, no hash at all.
 */
final class LongKeySet {
  private static final long EMPTY = Long.MIN_VALUE;
  private static final int MAX_BITS = 1 << 18;
  private final long[] slots;
  private final int mask;
  private final long[] bits;
  private final int bitMask;
  private boolean holdsEmpty;
  /** The keys ascending, for {@link Walk}s. */
  private final long[] sorted;
  /** What each key stands for ({@link #itemOf}), by slot, the empty key's apart; null when made without. */
  private final Object[] items;
  private Object emptyItem;

  LongKeySet(Collection<Long> keys) {
    this(List.copyOf(keys), null);
  }

  /**
   * @param items what each key stands for, in the order of {@code keys} ({@link #itemOf}): the
   *     first of a key given twice is kept; null for none
   */
  LongKeySet(List<Long> keys, List<?> items) {
    int capacity = Integer.highestOneBit(Math.max(4, keys.size() * 2 - 1)) << 1;
    slots = new long[capacity];
    Arrays.fill(slots, EMPTY);
    mask = capacity - 1;
    this.items = items == null ? null : new Object[capacity];
    int nbits = Math.min(MAX_BITS, Integer.highestOneBit(Math.max(64, keys.size() * 16 - 1)) << 1);
    bits = new long[nbits >>> 6];
    bitMask = nbits - 1;
    long[] all = new long[keys.size()];
    int n = 0;
    for (int v = 0; v < keys.size(); v++) {
      long k = keys.get(v);
      add(k, items == null ? null : items.get(v));
      all[n++] = k;
    }
    Arrays.sort(all, 0, n);
    // Distinct, so that a walk stops at a key once.
    int d = 0;
    for (int i = 0; i < n; i++) {
      if (d == 0 || all[d - 1] != all[i]) {
        all[d++] = all[i];
      }
    }
    sorted = Arrays.copyOf(all, d);
  }

  /** A test of one file's keys, in the order the file holds them: not thread-safe, one per file read. */
  Walk walk() {
    return new Walk();
  }

  /**
   * Tests a file's keys against the set as the file gives them. While they ascend, each is compared
   * with the smallest batch key not below the key before it, moving along the sorted batch keys:
   * a row costs a comparison, and the walk as a whole moves over the batch keys within the file's
   * key range once. A key below the one before it (a file not in key order) hands the rest of the
   * file to the set's hash lookup. Same answers as {@link #contains} either way.
   */
  final class Walk {
    private boolean started;
    private boolean ordered = true;
    private long last;
    /** The index in {@code sorted} of the smallest batch key not below {@code last}. */
    private int next;

    boolean contains(long k) {
      if (!ordered) {
        return LongKeySet.this.contains(k);
      }
      if (!started) {
        started = true;
        next = lowerBound(k, 0);
      } else if (k < last) {
        ordered = false;
        return LongKeySet.this.contains(k);
      } else if (next < sorted.length && sorted[next] < k) {
        next = lowerBound(k, next + 1);
      }
      last = k;
      return next < sorted.length && sorted[next] == k;
    }

    /** The first index from {@code from} whose key is not below {@code k}: a few steps, then a binary search. */
    private int lowerBound(long k, int from) {
      int i = from;
      for (int steps = 0; steps < 8; steps++, i++) {
        if (i >= sorted.length || sorted[i] >= k) {
          return i;
        }
      }
      int found = Arrays.binarySearch(sorted, i, sorted.length, k);
      return found >= 0 ? found : -found - 1;
    }
  }

  private void add(long k, Object item) {
    if (k == EMPTY) {
      if (!holdsEmpty) {
        emptyItem = item;
      }
      holdsEmpty = true;
      return;
    }
    int b = bit(k);
    bits[b >>> 6] |= 1L << b;
    int i = index(k);
    while (slots[i] != EMPTY && slots[i] != k) {
      i = (i + 1) & mask;
    }
    if (slots[i] == EMPTY && items != null) { // else the same key again: the first one's item stays
      items[i] = item;
    }
    slots[i] = k;
  }

  /** What key {@code k} stands for; null when the set does not hold it, or was made without items. */
  Object itemOf(long k) {
    if (items == null) {
      return null;
    }
    if (k == EMPTY) {
      return holdsEmpty ? emptyItem : null;
    }
    for (int i = index(k); slots[i] != EMPTY; i = (i + 1) & mask) {
      if (slots[i] == k) {
        return items[i];
      }
    }
    return null;
  }

  boolean contains(long k) {
    if (k == EMPTY) {
      return holdsEmpty;
    }
    int b = bit(k);
    if ((bits[b >>> 6] & (1L << b)) == 0) {
      return false;
    }
    for (int i = index(k); slots[i] != EMPTY; i = (i + 1) & mask) {
      if (slots[i] == k) {
        return true;
      }
    }
    return false;
  }

  /** Another part of the hash than the slot index: a key's bit and its slot fall independently. */
  private int bit(long k) {
    long h = k * 0xC2B2AE3D27D4EB4FL;
    return (int) (h >>> 40) & bitMask;
  }

  private int index(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
