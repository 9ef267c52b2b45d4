package io.lakesink.merge;

import java.util.Arrays;
import java.util.Collection;

/**
 * The integer keys of a batch as a primitive open-addressing set: what a merge tests every stored
 * row's key against while it scans a file, without boxing the key or building a key object.
 */
final class LongKeySet {
  private static final long EMPTY = Long.MIN_VALUE;
  private final long[] slots;
  private final int mask;
  private boolean holdsEmpty;

  LongKeySet(Collection<Long> keys) {
    int capacity = Integer.highestOneBit(Math.max(4, keys.size() * 2 - 1)) << 1;
    slots = new long[capacity];
    Arrays.fill(slots, EMPTY);
    mask = capacity - 1;
    for (long k : keys) {
      add(k);
    }
  }

  private void add(long k) {
    if (k == EMPTY) {
      holdsEmpty = true;
      return;
    }
    int i = index(k);
    while (slots[i] != EMPTY && slots[i] != k) {
      i = (i + 1) & mask;
    }
    slots[i] = k;
  }

  boolean contains(long k) {
    if (k == EMPTY) {
      return holdsEmpty;
    }
    for (int i = index(k); slots[i] != EMPTY; i = (i + 1) & mask) {
      if (slots[i] == k) {
        return true;
      }
    }
    return false;
  }

  private int index(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }
}
