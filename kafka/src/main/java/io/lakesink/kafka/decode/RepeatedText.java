package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The text of a JSON value, one {@code String} for a value that repeats: a status, a currency, a
 * country, a small number in a record without a schema. Change streams are full of such columns,
 * and every event's string of each was an object of its own, held by the worker's buffers until
 * the flush (and by a kept table's follow after it): four of the ten strings a buffered event of
 * the benchmark held, each marked and copied by the collector as live data.
 *
 * <p>A small direct-mapped table of recent values, looked up by the parser's characters before a
 * string is made: a hit makes no string at all; a miss makes the one it would have made and takes
 * the slot. Values that never repeat (ids, times) only churn the slots, each costing a hash over
 * its characters; a value that repeats is found again unless as many distinct values as there
 * are slots came in between. Long values, which rarely repeat, are not looked up.
 *
 * <p>Avro strings come as UTF-8 bytes ({@link #text(byte[], int)}): looked up by those bytes in a
 * table of their own when every byte is ASCII, which compares byte for character with the string
 * held; other text is made as read.
 *
 * <p>One per thread: decoder threads each decode runs of records, and a table per thread is
 * bounded whatever the number of topics; never shared, so nothing is synchronized.
 */
public final class RepeatedText {
  /** Slots: a power of two. */
  static final int SLOTS = 1024;
  /** Values longer than this are made as read, not looked up. */
  static final int MAX_CHARS = 64;

  private static final ThreadLocal<RepeatedText> OF_THREAD = ThreadLocal.withInitial(RepeatedText::new);

  private final String[] slots = new String[SLOTS];
  /**
   * The hash of each slot's string: a value that does not repeat (an id, an amount, a time) is
   * told apart from the slot's string without reading that string, which sits elsewhere in the
   * heap. Comparing it character by character was a fifth of a decoder thread's CPU in the
   * changelog benchmark, nearly all of it for values that differed.
   */
  private final int[] hashes = new int[SLOTS];
  /** Strings read as UTF-8 bytes, apart: a slot of {@link #slots} may hold a string no byte run maps to. */
  private final String[] bytesSlots = new String[SLOTS];
  private final int[] bytesHashes = new int[SLOTS];

  private RepeatedText() {}

  /** The table of the calling thread. */
  public static RepeatedText ofThisThread() {
    return OF_THREAD.get();
  }

  /** {@link JsonParser#getText()} of the current token (a string or a number), shared when it repeats. */
  String text(JsonParser p) throws IOException {
    int length = p.getTextLength();
    if (length > MAX_CHARS) {
      return p.getText();
    }
    char[] chars = p.getTextCharacters();
    int offset = p.getTextOffset();
    int hash = 0;
    for (int i = 0; i < length; i++) {
      hash = 31 * hash + chars[offset + i];
    }
    int slot = slot(hash);
    if (hashes[slot] == hash) {
      String held = slots[slot];
      if (held != null && sameText(held, chars, offset, length)) {
        return held;
      }
    }
    String made = new String(chars, offset, length);
    slots[slot] = made;
    hashes[slot] = hash;
    return made;
  }

  /** The text of the first {@code length} bytes of {@code utf8}, shared when it repeats and is ASCII. */
  public String text(byte[] utf8, int length) {
    if (length > MAX_CHARS) {
      return new String(utf8, 0, length, StandardCharsets.UTF_8);
    }
    int hash = 0;
    int nonAscii = 0;
    for (int i = 0; i < length; i++) {
      hash = 31 * hash + utf8[i];
      nonAscii |= utf8[i]; // negative once any byte has its high bit set
    }
    if (nonAscii < 0) {
      return new String(utf8, 0, length, StandardCharsets.UTF_8);
    }
    int slot = slot(hash);
    if (bytesHashes[slot] == hash) {
      String held = bytesSlots[slot];
      if (held != null && sameAscii(held, utf8, length)) {
        return held;
      }
    }
    String made = new String(utf8, 0, length, StandardCharsets.ISO_8859_1); // ASCII: one character per byte
    bytesSlots[slot] = made;
    bytesHashes[slot] = hash;
    return made;
  }

  /** A value's slot: its hash's high bits folded in, as short values differ mostly in their last characters. */
  private static int slot(int hash) {
    return (hash ^ (hash >>> 16)) & (SLOTS - 1);
  }

  private static boolean sameAscii(String s, byte[] ascii, int length) {
    if (s.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (s.charAt(i) != ascii[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameText(String s, char[] chars, int offset, int length) {
    if (s.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (s.charAt(i) != chars[offset + i]) {
        return false;
      }
    }
    return true;
  }
}
