package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keys to slots against a map, through random adds and removes (removals shift runs back). */
class KeySlotsTest {
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void answersAsAMapDoesAndKeepsSlotsDense(boolean integers) {
    KeySlots slots = integers ? new KeySlots.Longs() : new KeySlots.Strings();
    Map<Object, Integer> model = new HashMap<>();
    SplittableRandom r = new SplittableRandom(11);
    int peak = 0;
    for (int step = 0; step < 200_000; step++) {
      // Few distinct keys, clustered (consecutive ids collide in runs), the extremes included.
      long k = r.nextInt(10) == 0 ? (r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : r.nextLong(5_000) * (r.nextBoolean() ? 1 : 4096);
      // As strings: an integer's text (held as the integer), another spelling of it, and a name.
      Object key = integers ? (Object) k : switch (r.nextInt(3)) {
        case 0 -> Long.toString(k);
        case 1 -> "0" + k;
        default -> "k" + k;
      };
      if (model.containsKey(key) && r.nextInt(3) == 0) {
        assertEquals((int) model.remove(key), slots.remove(key));
      } else if (!model.containsKey(key)) {
        model.put(key, slots.add(key));
      }
      if (step % 1000 == 0) {
        for (Map.Entry<Object, Integer> e : model.entrySet()) {
          assertEquals((int) e.getValue(), slots.slotOf(e.getKey()), "slot of " + e.getKey());
        }
      }
      assertEquals(model.size(), slots.size());
      peak = Math.max(peak, model.size());
    }
    assertEquals(-1, slots.slotOf(integers ? (Object) 123_456_789L : "absent"));
    assertEquals(-1, slots.remove(integers ? (Object) 123_456_789L : "absent"));
    Set<Integer> distinct = new HashSet<>(model.values());
    assertEquals(model.size(), distinct.size(), "one slot per key");
    int most = peak;
    assertTrue(distinct.stream().allMatch(s -> s < most), "slots reused, never more than the keys held at once: " + most);
  }
}
