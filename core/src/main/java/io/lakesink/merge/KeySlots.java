package io.lakesink.merge;

import io.lakesink.event.IntegerText;
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

  /** Integer keys ({@code Long}s), in a {@link LongTable}. */
  static final class Longs extends KeySlots {
    private final LongTable table = new LongTable();

    @Override
    int slotOf(Object key) {
      return table.slotOf((Long) key);
    }

    @Override
    int add(Object key) {
      int slot = takeSlot();
      table.put((Long) key, slot);
      return slot;
    }

    @Override
    int remove(Object key) {
      int slot = table.remove((Long) key);
      if (slot >= 0) {
        freeSlot(slot);
      }
      return slot;
    }

    @Override
    int size() {
      return table.size();
    }

    @Override
    long bytes() {
      return table.bytes();
    }
  }

  /**
   * String keys: those that are an integer's text ({@link IntegerText}: ids in a text column) by
   * that integer in a {@link LongTable}, the others in a map; one slot numbering for both.
   */
  static final class Strings extends KeySlots {
    private final LongTable integers = new LongTable();
    private final Map<Object, Integer> others = new HashMap<>();

    @Override
    int slotOf(Object key) {
      long k = IntegerText.valueOf((String) key);
      if (k != IntegerText.NONE) {
        return integers.slotOf(k);
      }
      Integer slot = others.get(key);
      return slot == null ? -1 : slot;
    }

    @Override
    int add(Object key) {
      int slot = takeSlot();
      long k = IntegerText.valueOf((String) key);
      if (k != IntegerText.NONE) {
        integers.put(k, slot);
      } else {
        others.put(key, slot);
      }
      return slot;
    }

    @Override
    int remove(Object key) {
      long k = IntegerText.valueOf((String) key);
      int slot;
      if (k != IntegerText.NONE) {
        slot = integers.remove(k);
      } else {
        Integer held = others.remove(key);
        slot = held == null ? -1 : held;
      }
      if (slot >= 0) {
        freeSlot(slot);
      }
      return slot;
    }

    @Override
    int size() {
      return integers.size() + others.size();
    }

    /** The integers' arrays, and per other key a node, a boxed slot and the key, a short string. */
    @Override
    long bytes() {
      return integers.bytes() + others.size() * 104L;
    }
  }

  /**
   * {@code long} keys to the slots they were given: open addressing with linear probing over
   * primitive arrays, at most half full, removals shifting the run after them back (no
   * tombstones), so a key costs no object and a lookup touches one or two cache lines.
   */
  private static final class LongTable {
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

    /** The key's slot, or -1. */
    int slotOf(long key) {
      int i = indexOf(key);
      return i < 0 ? -1 : slotPlusOne[i] - 1;
    }

    /** Adds a key not held, at {@code slot}. */
    void put(long k, int slot) {
      if ((size + 1) * 2 > keys.length) {
        grow();
      }
      int i = indexOf(k);
      if (i >= 0) {
        throw new IllegalStateException("key held already: " + k);
      }
      keys[-1 - i] = k;
      slotPlusOne[-1 - i] = slot + 1;
      size++;
    }

    /** Removes the key: the slot it had, or -1. */
    int remove(long key) {
      int i = indexOf(key);
      if (i < 0) {
        return -1;
      }
      int slot = slotPlusOne[i] - 1;
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

    int size() {
      return size;
    }

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
