package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch's string keys found by stored UTF-8 bytes exactly when the bytes decode to one of them. */
class Utf8KeysTest {
  @Test
  void findsEveryKeyByItsBytesAsTheBatchsOwnStringAndNoOther() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      keys.add("key-" + i);
    }
    keys.addAll(List.of("é", "日本語", "\uD83D\uDE00", "a\u0000b", "key-7")); // key-7 twice: once is enough
    Utf8Keys set = new Utf8Keys(keys);
    assertEquals(5004, set.size());
    for (String k : keys) {
      byte[] padded = ("<" + k + ">").getBytes(StandardCharsets.UTF_8);
      assertSame(keysOwn(keys, k), set.get(padded, 1, padded.length - 2), k);
    }
    for (String other : new String[] {"key-5000", "key-", "", "e", "日本", "\uD83D\uDE01", "ab"}) {
      byte[] b = other.getBytes(StandardCharsets.UTF_8);
      assertNull(set.get(b, 0, b.length), other);
    }
  }

  /**
   * A string with an unpaired surrogate has no UTF-8 form: Java encodes it with a {@code ?},
   * which a stored {@code "a?"} would match if the set took the encoding at its word. No stored
   * value reads back as such a string, so it matches nothing.
   */
  @Test
  void aKeyWithAnUnpairedSurrogateMatchesNoStoredValue() {
    Utf8Keys set = new Utf8Keys(List.of("a\uD800", "b"));
    assertEquals(1, set.size());
    byte[] question = "a?".getBytes(StandardCharsets.UTF_8);
    assertNull(set.get(question, 0, question.length));
    assertEquals("b", set.get(new byte[] {'b'}, 0, 1));
  }

  @Test
  void aKeyFoundByItsBytesGivesWhatItStandsFor() {
    List<String> keys = new ArrayList<>();
    List<Integer> items = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      keys.add("k" + i);
      items.add(i);
    }
    keys.add("k7"); // again: the first one's item stays
    items.add(-1);
    Utf8Keys set = new Utf8Keys(keys, items);
    for (int i = 0; i < 3000; i++) {
      byte[] b = ("k" + i).getBytes(StandardCharsets.UTF_8);
      int slot = set.find(b, 0, b.length);
      assertEquals("k" + i, set.keyAt(slot));
      assertEquals(i, set.itemAt(slot));
    }
    byte[] none = "k3000".getBytes(StandardCharsets.UTF_8);
    assertEquals(-1, set.find(none, 0, none.length));
    byte[] b = "k1".getBytes(StandardCharsets.UTF_8);
    assertNull(new Utf8Keys(List.of("k1")).itemAt(new Utf8Keys(List.of("k1")).find(b, 0, b.length)), "made without items");
  }

  private static String keysOwn(List<String> keys, String k) {
    return keys.stream().filter(k::equals).findFirst().orElseThrow();
  }
}
