package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RepeatedTextTest {
  private final RepeatedText text = RepeatedText.ofThisThread();

  @Test
  void aValueThatRepeatsIsOneString() throws IOException {
    String first = text("\"shipped\"");
    assertEquals("shipped", first);
    assertSame(first, text("\"shipped\""));
    assertSame(first, text("\"ship\\u0070ed\""), "the same text, however escaped");
    assertSame(text("17"), text("17"), "an integer's digits too");
    assertEquals("17", text("17"));
  }

  @Test
  void eachValueReadsAsItsOwnText() throws IOException {
    // Far more distinct values than slots, so values share slots and replace each other: whatever
    // the table holds, a value reads as its own text (a slot is taken only on equal characters).
    SplittableRandom random = new SplittableRandom(7);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 4 * RepeatedText.SLOTS; i++) {
      values.add(switch (i % 4) {
        case 0 -> "v" + i;
        case 1 -> "\u00e9t\u00e9 " + i; // beyond ASCII
        case 2 -> "\u20ac" + i + "\ud83d\ude00"; // a pair of surrogates
        default -> Integer.toString(i);
      });
    }
    for (int n = 0; n < 20_000; n++) {
      String v = values.get(random.nextInt(values.size()));
      String json = v.chars().allMatch(Character::isDigit) ? v : "\"" + v + "\"";
      assertEquals(v, text(json));
    }
  }

  @Test
  void valuesOfEqualHashAreToldApartByTheirText() throws IOException {
    // "Aa" and "BB" hash alike, so they take the same slot with the same hash: the slot's hash
    // only rules a value out, the characters decide.
    assertEquals("Aa".hashCode(), "BB".hashCode());
    String aa = text("\"Aa\"");
    assertEquals("BB", text("\"BB\""));
    assertEquals("Aa", text("\"Aa\""));
    assertNotSame(aa, text("\"BB\""));
    assertEquals("BB", utf8("BB"));
    assertEquals("Aa", utf8("Aa"));
    assertEquals("BB", utf8("BB"));
  }

  @Test
  void aLongValueIsNotLookedUp() throws IOException {
    String value = "x".repeat(RepeatedText.MAX_CHARS + 1);
    String first = text("\"" + value + "\"");
    assertEquals(value, first);
    assertNotSame(first, text("\"" + value + "\""), "made as read: values this long rarely repeat");
    String limit = "y".repeat(RepeatedText.MAX_CHARS);
    assertSame(text("\"" + limit + "\""), text("\"" + limit + "\""));
  }

  @Test
  void theEmptyString() throws IOException {
    assertEquals("", text("\"\""));
    assertSame(text("\"\""), text("\"\""));
  }

  @Test
  void utf8BytesThatRepeatAreOneStringWhenAscii() {
    String first = utf8("shipped");
    assertEquals("shipped", first);
    assertSame(first, utf8("shipped"));
    // Only the first length bytes count: a reused buffer (Avro's Utf8) may be longer.
    byte[] longer = "shipped and more".getBytes(StandardCharsets.UTF_8);
    assertSame(first, text.text(longer, 7));
    String accented = utf8("\u00e9t\u00e9");
    assertEquals("\u00e9t\u00e9", accented);
    assertNotSame(accented, utf8("\u00e9t\u00e9"), "beyond ASCII: made as read");
    String value = "x".repeat(RepeatedText.MAX_CHARS + 1);
    assertNotSame(utf8(value), utf8(value), "long values are not looked up");
    assertSame(utf8(""), utf8(""));
  }

  @Test
  void eachByteRunReadsAsItsOwnText() {
    SplittableRandom random = new SplittableRandom(11);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 4 * RepeatedText.SLOTS; i++) {
      values.add(switch (i % 3) {
        case 0 -> "v" + i;
        case 1 -> "\u00e9t\u00e9 " + i;
        default -> "\u20ac" + i + "\ud83d\ude00";
      });
    }
    for (int n = 0; n < 20_000; n++) {
      String v = values.get(random.nextInt(values.size()));
      assertEquals(v, utf8(v));
    }
    // A string the JSON lookup holds is not taken for bytes, nor the other way round: each reads as itself.
    assertEquals("17", text.text("17".getBytes(StandardCharsets.UTF_8), 2));
  }

  private String utf8(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    return text.text(bytes, bytes.length);
  }

  private String text(String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    try (JsonParser p = JsonTokens.parser(bytes, 0, bytes.length)) {
      p.nextToken();
      return text.text(p);
    }
  }
}
