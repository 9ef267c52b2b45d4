package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyOrder#sort} (string keys compared by a packed prefix first) gives exactly the order
 * of sorting with the comparator itself, ties kept in their order: short and long keys sharing
 * prefixes, characters above U+00FF and surrogates, NUL characters, empty keys, nulls, and keys
 * that are not strings.
 */
class KeyOrderSortTest {
  private static final String[] PARTS = {"", "a", "ab", "abcdefgh", "abcdefghi", "\u0000", "\u00e9", "\u00ff", "\u0100", "\u4e2d",
    "\ud83d\ude00", "\ue000", "12345", "9", "z"};

  @Test
  void sortsAsTheComparatorDoes() {
    SplittableRandom random = new SplittableRandom(7);
    KeyOrder order = new KeyOrder(new int[] {1});
    for (int round = 0; round < 300; round++) {
      List<Object[]> rows = new ArrayList<>();
      int n = 1 + random.nextInt(200);
      for (int i = 0; i < n; i++) {
        rows.add(new Object[] {i, key(random)});
      }
      List<Object[]> expected = new ArrayList<>(rows);
      expected.sort(order);
      order.sort(rows);
      assertEquals(expected.size(), rows.size());
      for (int i = 0; i < rows.size(); i++) {
        assertSame(expected.get(i), rows.get(i), "round " + round + ", row " + i);
      }
    }
  }

  @Test
  void keysOfOtherTypesAndShortRowsSortAsTheComparatorDoes() {
    KeyOrder order = new KeyOrder(new int[] {2});
    List<Object[]> rows = new ArrayList<>(List.of(
        new Object[] {0, null, 5L}, new Object[] {1}, new Object[] {2, null, 3L}, new Object[] {3, null, null}, new Object[] {4, null, 3L}));
    List<Object[]> expected = new ArrayList<>(rows);
    expected.sort(order);
    order.sort(rows);
    for (int i = 0; i < rows.size(); i++) {
      assertSame(expected.get(i), rows.get(i));
    }
    assertEquals(2, rows.get(0)[0], "3 first, and the first of the two 3s first");
  }

  private static Object key(SplittableRandom random) {
    if (random.nextInt(20) == 0) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    int parts = random.nextInt(4);
    for (int p = 0; p < parts; p++) {
      sb.append(PARTS[random.nextInt(PARTS.length)]);
    }
    return sb.toString();
  }
}
