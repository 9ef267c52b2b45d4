package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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

  /**
   * A walk answers as the set does for any file: keys ascending (with repeats, runs of gaps, and
   * ranges wider or narrower than the batch's), keys in no order, and a file ascending for a while
   * and then not.
   */
  @Test
  void aWalkAnswersAsTheSetDoesInAnyOrder() {
    SplittableRandom random = new SplittableRandom(11);
    for (int size : new int[] {0, 1, 7, 300, 20_000}) {
      Set<Long> keys = new HashSet<>();
      while (keys.size() < size) {
        keys.add(random.nextLong(-3L * size - 3, 3L * size + 3));
      }
      if (size == 300) {
        keys.add(Long.MIN_VALUE);
        keys.add(Long.MAX_VALUE);
      }
      LongKeySet set = new LongKeySet(keys);
      for (int file = 0; file < 40; file++) {
        int rows = 1 + random.nextInt(5_000);
        long[] fileKeys = new long[rows];
        long k = random.nextLong(-4L * size - 10, 4L * size + 10);
        for (int r = 0; r < rows; r++) {
          k += random.nextInt(4) == 0 ? 0 : random.nextInt(1 + random.nextInt(50)); // repeats and gaps
          fileKeys[r] = k;
        }
        if (file % 4 == 1) {
          fileKeys[0] = Long.MIN_VALUE;
          fileKeys[rows - 1] = Long.MAX_VALUE;
        } else if (file % 4 == 2) {
          for (int r = 0; r < rows; r++) { // no order at all
            fileKeys[r] = random.nextLong(-4L * size - 10, 4L * size + 10);
          }
        } else if (file % 4 == 3 && rows > 2) {
          int from = random.nextInt(rows); // ascending, then a key lower than the last, then anything
          for (int r = from; r < rows; r++) {
            fileKeys[r] = random.nextLong(-4L * size - 10, 4L * size + 10);
          }
        }
        LongKeySet.Walk walk = set.walk();
        for (long key : fileKeys) {
          assertEquals(keys.contains(key), walk.contains(key), "size " + size + ", file " + file + ", key " + key);
        }
      }
    }
  }

  @Test
  void aKeyGivesWhatItStandsFor() {
    List<Long> keys = new java.util.ArrayList<>();
    List<String> items = new java.util.ArrayList<>();
    SplittableRandom random = new SplittableRandom(13);
    for (int i = 0; i < 5000; i++) {
      long k = random.nextLong();
      keys.add(k);
      items.add("item " + k);
    }
    keys.add(Long.MIN_VALUE); // the set's own empty marker is a key like any other
    items.add("the smallest");
    keys.add(keys.get(3)); // again: the first one's item stays
    items.add("again");
    LongKeySet set = new LongKeySet(keys, items);
    for (int i = 0; i < 5000; i++) {
      assertEquals("item " + keys.get(i), set.itemOf(keys.get(i)));
    }
    assertEquals("the smallest", set.itemOf(Long.MIN_VALUE));
    assertNull(set.itemOf(Long.MAX_VALUE - 1), "a key not held");
    assertNull(new LongKeySet(List.of(1L)).itemOf(1L), "made without items");
    assertNull(new LongKeySet(List.of(1L), List.of("one")).itemOf(Long.MIN_VALUE));
  }
}
