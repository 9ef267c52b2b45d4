package io.lakesink.merge;

import io.lakesink.event.StringOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

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
  /** What each key stands for (its caller's entry), or null throughout when made without. */
  private final Object[] items;
  private final int[] hashes;
  private final int mask;
  private final int size;

  Utf8Keys(Collection<String> values) {
    this(List.copyOf(values), null);
  }

  /**
   * @param items what each key stands for, in the order of {@code values} ({@link #itemAt}): the
   *     first of a key given twice is kept; null for none
   */
  Utf8Keys(List<String> values, List<?> items) {
    int capacity = Integer.highestOneBit(Math.max(4, values.size()) * 2 - 1) << 1; // at most half full
    bytes = new byte[capacity][];
    keys = new String[capacity];
    this.items = items == null ? null : new Object[capacity];
    hashes = new int[capacity];
    mask = capacity - 1;
    int n = 0;
    for (int v = 0; v < values.size(); v++) {
      String s = values.get(v);
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
        if (this.items != null) {
          this.items[slot] = items.get(v);
        }
        hashes[slot] = h;
        n++;
      }
    }
    size = n;
  }

  /** The key whose UTF-8 encoding is these bytes, or null when the batch has none. */
  String get(byte[] utf8, int offset, int length) {
    int slot = find(utf8, offset, length);
    return slot < 0 ? null : keys[slot];
  }

  /** Where the key whose UTF-8 encoding is these bytes is ({@link #keyAt}, {@link #itemAt}); -1 when the batch has none. */
  int find(byte[] utf8, int offset, int length) {
    int h = hash(utf8, offset, length);
    for (int slot = h & mask; bytes[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == h && Arrays.equals(bytes[slot], 0, bytes[slot].length, utf8, offset, offset + length)) {
        return slot;
      }
    }
    return -1;
  }

  String keyAt(int slot) {
    return keys[slot];
  }

  /** What the key found at {@code slot} stands for; null when made without items. */
  Object itemAt(int slot) {
    return items == null ? null : items[slot];
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
