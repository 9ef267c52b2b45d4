package io.lakesink.merge;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Keys to slots (small, dense ints) for {@link KeyLocations}: a slot a removed key had is given to
 * the next key added, so the slots stay as many as the keys.
 */
abstract class KeySlots {
  private int[] free = new int[16];
  private int freeCount;
  private int next;

  /** The key's slot, or -1. */
  abstract int slotOf(Object key);

  /** Adds a key not held: its new slot. */
  abstract int add(Object key);

  /** Removes the key: the slot it had, or -1. */
  abstract int remove(Object key);

  /** Keys held. */
  abstract int size();

  /** What the index itself takes on the heap, about (the slots' own arrays are the caller's). */
  abstract long bytes();

  final int takeSlot() {
    return freeCount > 0 ? free[--freeCount] : next++;
  }

  final void freeSlot(int slot) {
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = slot;
  }

  /** String keys: a map. */
  static final class Objects extends KeySlots {
    private final Map<Object, Integer> slots = new HashMap<>();

    @Override
    int slotOf(Object key) {
      Integer slot = slots.get(key);
      return slot == null ? -1 : slot;
    }

    @Override
    int add(Object key) {
      int slot = takeSlot();
      slots.put(key, slot);
      return slot;
    }

    @Override
    int remove(Object key) {
      Integer slot = slots.remove(key);
      if (slot == null) {
        return -1;
      }
      freeSlot(slot);
      return slot;
    }

    @Override
    int size() {
      return slots.size();
    }

    /** A node, a boxed slot and the key, a short string, per key. */
    @Override
    long bytes() {
      return slots.size() * 104L;
    }
  }

  /**
   * Integer keys ({@code Long}s): open addressing with linear probing over primitive arrays, at
   * most half full, removals shifting the run after them back (no tombstones), so a key costs no
   * object and a lookup touches one or two cache lines.
   */
  static final class Longs extends KeySlots {
    private long[] keys = new long[16];
    /** Per table position: the key's slot plus one; 0 for an empty position. */
    private int[] slotPlusOne = new int[16];
    private int mask = 15;
    private int size;

    private static int hash(long k) {
      long h = k * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 32));
    }

    private int indexOf(long k) {
      int i = hash(k) & mask;
      while (slotPlusOne[i] != 0) {
        if (keys[i] == k) {
          return i;
        }
        i = (i + 1) & mask;
      }
      return -1 - i; // where it would go
    }

    @Override
    int slotOf(Object key) {
      int i = indexOf((Long) key);
      return i < 0 ? -1 : slotPlusOne[i] - 1;
    }

    @Override
    int add(Object key) {
      if ((size + 1) * 2 > keys.length) {
        grow();
      }
      long k = (Long) key;
      int i = indexOf(k);
      if (i >= 0) {
        throw new IllegalStateException("key held already: " + k);
      }
      int slot = takeSlot();
      keys[-1 - i] = k;
      slotPlusOne[-1 - i] = slot + 1;
      size++;
      return slot;
    }

    @Override
    int remove(Object key) {
      int i = indexOf((Long) key);
      if (i < 0) {
        return -1;
      }
      int slot = slotPlusOne[i] - 1;
      freeSlot(slot);
      size--;
      // Shift back the entries after it in the run that would be found at or before the gap.
      int gap = i;
      int j = (i + 1) & mask;
      while (slotPlusOne[j] != 0) {
        int home = hash(keys[j]) & mask;
        if (((j - home) & mask) >= ((j - gap) & mask)) {
          keys[gap] = keys[j];
          slotPlusOne[gap] = slotPlusOne[j];
          gap = j;
        }
        j = (j + 1) & mask;
      }
      slotPlusOne[gap] = 0;
      return slot;
    }

    @Override
    int size() {
      return size;
    }

    @Override
    long bytes() {
      return keys.length * 12L;
    }

    private void grow() {
      long[] oldKeys = keys;
      int[] oldSlots = slotPlusOne;
      keys = new long[oldKeys.length * 2];
      slotPlusOne = new int[oldKeys.length * 2];
      mask = keys.length - 1;
      for (int i = 0; i < oldKeys.length; i++) {
        if (oldSlots[i] != 0) {
          int j = hash(oldKeys[i]) & mask;
          while (slotPlusOne[j] != 0) {
            j = (j + 1) & mask;
          }
          keys[j] = oldKeys[i];
          slotPlusOne[j] = oldSlots[i];
        }
      }
    }
  }
}
