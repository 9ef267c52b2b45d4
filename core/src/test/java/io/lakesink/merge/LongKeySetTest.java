package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The batch's integer keys: exactly the keys added, whatever the size of the set (its bits in front of the slots only answer "no"). */
class LongKeySetTest {
  @Test
  void holdsExactlyTheKeysAdded() {
    SplittableRandom random = new SplittableRandom(7);
    for (int size : new int[] {0, 1, 10, 1000, 50_000}) {
      Set<Long> keys = new HashSet<>();
      keys.add(Long.MIN_VALUE); // the empty slot's marker is a key too
      while (keys.size() < size) {
        keys.add(random.nextBoolean() ? random.nextLong() : random.nextLong(-5 * size - 5, 5 * size + 5));
      }
      LongKeySet set = new LongKeySet(keys);
      for (long k : keys) {
        assertEquals(true, set.contains(k), "key " + k);
      }
      for (long k = -5L * size - 5; k < 5L * size + 5; k++) {
        assertEquals(keys.contains(k), set.contains(k), "key " + k);
      }
      for (int i = 0; i < 100_000; i++) {
        long k = random.nextLong();
        assertEquals(keys.contains(k), set.contains(k), "key " + k);
      }
    }
    assertEquals(false, new LongKeySet(List.of(1L)).contains(Long.MIN_VALUE));
  }
}
