package io.lakesink.currentstate;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * {@code long} keys to entries, open-addressed over primitive arrays (linear probing, at most
 * half full), for the reduction's bigint keys ({@link LatestChanges}): no node and no boxed key per
 * key, and a lookup reads the key where the entry's reference is. Entries are only added.
 */
final class LongEntries<V> {
  private long[] keys;
  private Object[] values;
  private int mask;
  private int size;

  /** @param expected about how many keys it will hold: made that large at once, not grown a dozen times */
  LongEntries(int expected) {
    int capacity = Integer.highestOneBit(Math.max(8, Math.min(1 << 29, expected) * 2 - 1)) << 1;
    keys = new long[capacity];
    values = new Object[capacity];
    mask = capacity - 1;
  }

  private static int home(long k, int mask) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  @SuppressWarnings("unchecked")
  V get(long k) {
    for (int i = home(k, mask); values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == k) {
        return (V) values[i];
      }
    }
    return null;
  }

  /** Adds a key it does not hold. */
  void put(long k, V value) {
    if ((size + 1) * 2 > keys.length) {
      grow();
    }
    int i = home(k, mask);
    while (values[i] != null) {
      i = (i + 1) & mask;
    }
    keys[i] = k;
    values[i] = value;
    size++;
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  void forEach(Consumer<V> action) {
    for (Object v : values) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldKeys.length * 2];
    mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldValues[j] != null) {
        int i = home(oldKeys[j], mask);
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
    Arrays.fill(oldValues, null);
  }
}
