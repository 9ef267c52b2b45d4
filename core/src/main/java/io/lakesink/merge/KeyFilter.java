package io.lakesink.merge;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * A Bloom filter of the keys one data file held when it was read: a merge skips a file whose
 * filter says none of the batch's keys can be there, even when the file's key range overlaps the
 * batch's (a merge's own output spans its whole batch). A data file never gains rows (a deletion
 * vector only hides some), so a filter built once stays a superset of the file's live keys: it
 * can say "maybe" for a key that is gone, never "no" for one that is there.
 *
 * <p>About 0.007 % false positives: 20 bits and 14 probes per key. A file is skipped only when
 * no batch key may be in it, so the rate must be small next to one over the batch's size: at 1 %
 * (10 bits), a batch of a few hundred keys found a "maybe" in nearly every file (measured,
 * docs/merge.md); at this rate a batch of a thousand keys skips about nine files in ten. Keys hash the way the table stores
 * them ({@link StorageForm}), with a hash of lakesink's own, stable across JVMs and versions, so
 * a filter written by one worker is read right by another.
 */
final class KeyFilter {
  static final int BITS_PER_KEY = 20;
  static final int PROBES = 14;
  private static final int MAGIC = 0x4c534b46; // "LSKF"
  private static final byte VERSION = 1;

  private final long[] words;

  private KeyFilter(long[] words) {
    this.words = words;
  }

  /** An empty filter sized for {@code keys} keys. */
  static KeyFilter forKeys(long keys) {
    long bits = Math.max(64, keys * BITS_PER_KEY);
    return new KeyFilter(new long[(int) Math.min(Integer.MAX_VALUE - 8, (bits + 63) / 64)]);
  }

  long bytes() {
    return words.length * 8L;
  }

  void add(List<Object> key) {
    addHash(hash(key));
  }

  /** Adds the key of one integer column, as {@link #add} adds {@code List.of(key)}. */
  void addLong(long key) {
    addHash(hashLong(key));
  }

  /** Adds the key of one string column by its UTF-8 bytes, as {@link #add} adds {@code List.of(key)}. */
  void addUtf8(byte[] utf8, int offset, int length) {
    addHash(hashUtf8(utf8, offset, length));
  }

  private void addHash(long h) {
    long bits = words.length * 64L;
    for (int i = 0; i < PROBES; i++) {
      long bit = Math.floorMod(probe(h, i), bits);
      words[(int) (bit >>> 6)] |= 1L << bit;
    }
  }

  boolean mayContain(List<Object> key) {
    long h = hash(key);
    long bits = words.length * 64L;
    for (int i = 0; i < PROBES; i++) {
      long bit = Math.floorMod(probe(h, i), bits);
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** The i-th probe: two halves of one hash combined (Kirsch and Mitzenmacher). */
  private static long probe(long h, int i) {
    return (h >>> 32) + i * (h & 0xffffffffL | 1L) + (long) i * i;
  }

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  /** A key's hash: FNV-1a over each value's canonical bytes, then a finalizer to spread the bits. */
  static long hash(List<Object> key) {
    long h = FNV_OFFSET;
    for (Object v : key) {
      byte[] bytes = canonical(v);
      for (byte b : bytes) {
        h = (h ^ (b & 0xff)) * FNV_PRIME;
      }
      h = (h ^ 0xff) * FNV_PRIME; // separates the values: ("ab", "c") and ("a", "bc") differ
    }
    return finish(h);
  }

  /** {@link #hash} of {@code List.of(key)}, without the list or the bytes. */
  static long hashLong(long key) {
    long h = (FNV_OFFSET ^ 'i') * FNV_PRIME;
    for (int i = 0; i < 8; i++) {
      h = (h ^ ((key >>> (56 - 8 * i)) & 0xff)) * FNV_PRIME;
    }
    return finish((h ^ 0xff) * FNV_PRIME);
  }

  /** {@link #hash} of {@code List.of(key)} for a string key, from its UTF-8 bytes, without the string. */
  static long hashUtf8(byte[] utf8, int offset, int length) {
    long h = (FNV_OFFSET ^ 's') * FNV_PRIME;
    for (int i = offset; i < offset + length; i++) {
      h = (h ^ (utf8[i] & 0xff)) * FNV_PRIME;
    }
    return finish((h ^ 0xff) * FNV_PRIME);
  }

  private static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  /** A value's bytes, the same for equal stored values (integers of any width alike). */
  private static byte[] canonical(Object v) {
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return longBytes('i', ((Number) v).longValue());
    }
    if (v instanceof String s) {
      return ("s" + s).getBytes(StandardCharsets.UTF_8);
    }
    if (v instanceof Instant t) {
      return longBytes('t', ChronoUnit.MICROS.between(Instant.EPOCH, t));
    }
    if (v instanceof LocalDate d) {
      return longBytes('d', d.toEpochDay());
    }
    if (v instanceof BigDecimal d) {
      return ("m" + d.toPlainString()).getBytes(StandardCharsets.UTF_8);
    }
    if (v instanceof byte[] b) {
      byte[] out = new byte[b.length + 1];
      out[0] = 'b';
      System.arraycopy(b, 0, out, 1, b.length);
      return out;
    }
    return ("o" + v).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] longBytes(char tag, long x) {
    byte[] out = new byte[9];
    out[0] = (byte) tag;
    for (int i = 0; i < 8; i++) {
      out[i + 1] = (byte) (x >>> (56 - 8 * i));
    }
    return out;
  }

  /**
   * The filter as stored: what it is for (the data file's name and size, the key columns), the
   * bits, and a CRC-32 of all of it, so a damaged or foreign file is never taken for this one.
   */
  byte[] encode(String dataFile, long dataFileSize, List<String> columns) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + words.length * 8);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(MAGIC);
      out.writeByte(VERSION);
      out.writeUTF(dataFile);
      out.writeLong(dataFileSize);
      out.writeUTF(String.join("\u0001", columns));
      out.writeInt(PROBES);
      out.writeInt(words.length);
      out.flush();
      // The bits in one bulk copy, big-endian as DataOutputStream writes a long: a filter is
      // 20 bits a key, a long at a time through a stream was a visible part of a merge.
      ByteBuffer bits = ByteBuffer.allocate(words.length * 8);
      bits.asLongBuffer().put(words);
      bytes.write(bits.array());
      CRC32 crc = new CRC32();
      crc.update(bytes.toByteArray());
      out.writeInt((int) crc.getValue());
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in memory: cannot happen
    }
  }

  /**
   * The filter stored in {@code bytes}, or empty when they are damaged (truncated, a bit flipped)
   * or describe another file, another size of it, other key columns or another format.
   */
  static Optional<KeyFilter> decode(byte[] bytes, String dataFile, long dataFileSize, List<String> columns) {
    if (bytes.length < 8) {
      return Optional.empty();
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = ((bytes[bytes.length - 4] & 0xff) << 24) | ((bytes[bytes.length - 3] & 0xff) << 16)
        | ((bytes[bytes.length - 2] & 0xff) << 8) | (bytes[bytes.length - 1] & 0xff);
    if ((int) crc.getValue() != stored) {
      return Optional.empty();
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bytes.length - 4))) {
      if (in.readInt() != MAGIC || in.readByte() != VERSION || !in.readUTF().equals(dataFile) || in.readLong() != dataFileSize
          || !in.readUTF().equals(String.join("\u0001", columns)) || in.readInt() != PROBES) {
        return Optional.empty();
      }
      int n = in.readInt();
      if (n <= 0 || (long) n * 8 != in.available()) {
        return Optional.empty();
      }
      long[] words = new long[n];
      // What remains is the bits, big-endian: one bulk copy, not a stream read per long.
      ByteBuffer.wrap(bytes, bytes.length - 4 - n * 8, n * 8).asLongBuffer().get(words);
      return Optional.of(new KeyFilter(words));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
