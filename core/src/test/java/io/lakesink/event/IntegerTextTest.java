package io.lakesink.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** An integer's canonical text and nothing else reads as that integer. */
class IntegerTextTest {
  @Test
  void theCanonicalTextOfAnIntegerReadsAsIt() {
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 100_000; i++) {
      // Every length of 1 to 18 digits, both signs.
      long bound = (long) Math.pow(10, 1 + r.nextInt(18));
      long v = r.nextLong(bound) * (r.nextBoolean() ? 1 : -1);
      assertEquals(v, IntegerText.valueOf(Long.toString(v)), Long.toString(v));
    }
    assertEquals(0, IntegerText.valueOf("0"));
    assertEquals(999_999_999_999_999_999L, IntegerText.valueOf("999999999999999999"));
    assertEquals(-999_999_999_999_999_999L, IntegerText.valueOf("-999999999999999999"));
  }

  /** Two strings never read as one integer: any other spelling of a number is not read as it. */
  @Test
  void anyOtherTextIsNone() {
    for (String s : List.of("", "-", "00", "01", "-0", "-01", "+1", "1a", "a1", " 1", "1 ", "1.0", "1e3", "١",
        "1000000000000000000", "-1000000000000000000", Long.toString(Long.MIN_VALUE), Long.toString(Long.MAX_VALUE))) {
      assertEquals(IntegerText.NONE, IntegerText.valueOf(s), "'" + s + "'");
    }
    SplittableRandom r = new SplittableRandom(5);
    String alphabet = "0123456789-+ a";
    for (int i = 0; i < 100_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = r.nextInt(22); n > 0; n--) {
        s.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      long v = IntegerText.valueOf(s.toString());
      if (v != IntegerText.NONE) {
        assertEquals(s.toString(), Long.toString(v), "read as " + v);
      }
    }
  }
}
