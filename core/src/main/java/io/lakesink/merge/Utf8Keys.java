package io.lakesink.merge;

import io.lakesink.event.StringOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;

/**
 * A batch's keys of one {@code string} column, found by the UTF-8 bytes a file stores: a merge
 * tests every stored row's key against the batch, and a {@code String} decoded for each of them
 * (most of which the batch does not hold) was much of a merge's allocation. A stored key that is
 * found comes back as the batch's own {@code String}, so a row the merge keeps costs no key of its
 * own either.
 *
 * <p>Bytes and strings match exactly when the string's UTF-8 encoding is the bytes: a string
 * with an unpaired surrogate has none (Java writes {@code ?} in its place), no stored value
 * decodes to it, and it is left out. Read-only once made: the merge's lanes share it.
 */
final class Utf8Keys {
  private final byte[][] bytes;
  private final String[] keys;
  private final int[] hashes;
  private final int mask;
  private final int size;

  Utf8Keys(Collection<String> values) {
    int capacity = Integer.highestOneBit(Math.max(4, values.size()) * 2 - 1) << 1; // at most half full
    bytes = new byte[capacity][];
    keys = new String[capacity];
    hashes = new int[capacity];
    mask = capacity - 1;
    int n = 0;
    for (String s : values) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      if (StringOrder.hasSurrogate(s) && !new String(b, StandardCharsets.UTF_8).equals(s)) {
        continue; // an unpaired surrogate: no stored UTF-8 reads back as this string
      }
      int h = hash(b, 0, b.length);
      int slot = h & mask;
      while (bytes[slot] != null && !(hashes[slot] == h && Arrays.equals(bytes[slot], b))) {
        slot = (slot + 1) & mask;
      }
      if (bytes[slot] == null) { // else the same key again: the first one is kept
        bytes[slot] = b;
        keys[slot] = s;
        hashes[slot] = h;
        n++;
      }
    }
    size = n;
  }

  /** The key whose UTF-8 encoding is these bytes, or null when the batch has none. */
  String get(byte[] utf8, int offset, int length) {
    int h = hash(utf8, offset, length);
    for (int slot = h & mask; bytes[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == h && Arrays.equals(bytes[slot], 0, bytes[slot].length, utf8, offset, offset + length)) {
        return keys[slot];
      }
    }
    return null;
  }

  int size() {
    return size;
  }

  private static int hash(byte[] b, int offset, int length) {
    int h = 1;
    for (int i = offset; i < offset + length; i++) {
      h = 31 * h + b[i];
    }
    return h ^ (h >>> 16);
  }
}
