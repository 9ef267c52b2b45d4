package io.lakesink.currentstate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The reduction's bigint keys to entries, against a map: grown from a small guess, clustered keys and the extremes. */
class LongEntriesTest {
  @Test
  void answersAsAMapDoes() {
    LongEntries<String> entries = new LongEntries<>(4);
    Map<Long, String> model = new HashMap<>();
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < 100_000; i++) {
      long k = r.nextInt(20) == 0 ? (r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE - r.nextInt(3))
          : r.nextLong(60_000) * (r.nextBoolean() ? 1 : 65_536);
      if (!model.containsKey(k)) {
        String v = "v" + k;
        model.put(k, v);
        entries.put(k, v);
      }
      assertEquals(model.get(k), entries.get(k));
    }
    assertEquals(model.size(), entries.size());
    model.forEach((k, v) -> assertEquals(v, entries.get(k)));
    assertNull(entries.get(-42));
    List<String> all = new ArrayList<>();
    entries.forEach(all::add);
    all.sort(null);
    List<String> expected = new ArrayList<>(model.values());
    expected.sort(null);
    assertEquals(expected, all);
  }
}
