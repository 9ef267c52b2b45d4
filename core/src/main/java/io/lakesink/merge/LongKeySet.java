package io.lakesink.merge;

import java.util.Arrays;
import java.util.Collection;

/**
 * The integer keys of a batch as a primitive open-addressing set: what a merge tests every stored
 * row's key against while it scans a file, without boxing the key or building a key object.
 *
 * <p>Most keys tested are not in the set (a batch changes a few rows of each file it reads), so a
 * bit per hash in front of the slots answers most of them from a table small enough to stay in
 * the core's first cache (16 to 32 bits per key, at most 32 KB), where the slots (16 bytes per
 * key) do not: once the page reads were cheap, the slots' cache misses were a third of a
 * merge's scan.
 */
final class LongKeySet {
  private static final long EMPTY = Long.MIN_VALUE;
  private static final int MAX_BITS = 1 << 18;
  private final long[] slots;
  private final int mask;
  private final long[] bits;
  private final int bitMask;
  private boolean holdsEmpty;

  LongKeySet(Collection<Long> keys) {
    int capacity = Integer.highestOneBit(Math.max(4, keys.size() * 2 - 1)) << 1;
    slots = new long[capacity];
    Arrays.fill(slots, EMPTY);
    mask = capacity - 1;
    int nbits = Math.min(MAX_BITS, Integer.highestOneBit(Math.max(64, keys.size() * 16 - 1)) << 1);
    bits = new long[nbits >>> 6];
    bitMask = nbits - 1;
    for (long k : keys) {
      add(k);
    }
  }

  private void add(long k) {
    if (k == EMPTY) {
      holdsEmpty = true;
      return;
    }
    int b = bit(k);
    bits[b >>> 6] |= 1L << b;
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
