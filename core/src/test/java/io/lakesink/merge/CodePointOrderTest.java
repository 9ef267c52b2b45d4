package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link io.lakesink.event.StringOrder#compare} (how a merge sorts and prunes by string keys, and clustering sorts) is the order
 * of the strings' UTF-8 bytes, Parquet's: its char-by-char fast path included, on strings mixing
 * ASCII, other BMP characters on both sides of the surrogate block, supplementary characters and
 * lone surrogates.
 */
class CodePointOrderTest {
  private static final char[] ALPHABET = {
    'a', 'b', 'z', '0', '9', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffee', '\uffff',
    '\ud83d', '\ude00', '\ud800', '\udc00', '\udbff', '\udfff'};

  @Test
  void ordersAsUtf8BytesDo() {
    SplittableRandom random = new SplittableRandom(26);
    int differentSigns = 0;
    for (int n = 0; n < 200_000; n++) {
      String a = random(random);
      String b = random.nextInt(4) == 0 ? a.substring(0, random.nextInt(a.length() + 1)) + random(random) : random(random);
      int expected = Integer.signum(reference(a, b));
      assertEquals(expected, Integer.signum(io.lakesink.event.StringOrder.compare(a, b)), () -> escape(a) + " vs " + escape(b));
      if (wellFormed(a) && wellFormed(b)) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        assertEquals(Integer.signum(Arrays.compareUnsigned(x, y)), expected, () -> escape(a) + " vs " + escape(b));
      }
      if (Integer.signum(a.compareTo(b)) != expected) {
        differentSigns++;
      }
    }
    assertTrue(differentSigns > 100, "cases where UTF-16 order differs were generated: " + differentSigns);
  }

  /** The order by code points, a lone surrogate as its own value (what the merge compared before its fast path). */
  private static int reference(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static String random(SplittableRandom random) {
    StringBuilder sb = new StringBuilder();
    int length = random.nextInt(6);
    for (int i = 0; i < length; i++) {
      if (random.nextInt(3) == 0) {
        sb.appendCodePoint(0x10000 + random.nextInt(0x100000)); // a well-formed pair
      } else {
        sb.append(ALPHABET[random.nextInt(ALPHABET.length)]);
      }
    }
    return sb.toString();
  }

  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    s.chars().forEach(c -> sb.append(String.format("\\u%04x", c)));
    return sb.toString();
  }
}
