package io.lakesink.kafka.decode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Record schemas by the bytes they were written as. A schema repeats in every record of a
 * table, and comparing bytes costs far less than reading them as a tree each time. Bounded: a
 * stream whose schemas keep changing must not grow it without end.
 */
final class RecordSchemas {
  private final Map<Bytes, Cached> schemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  // The most recently used entry: the next record's schema is nearly always the same, and is
  // then found by comparing bytes, without hashing them. It stays the cache's most recent entry
  // until another lookup, which replaces it here.
  private Cached last;

  private record Cached(Bytes key, RecordSchema schema) {}

  /** The schema written at {@code range} of the record (a well-formed JSON value). */
  RecordSchema get(Document doc, Document.Range range) throws IOException {
    if (last != null && last.key().sameAs(doc.bytes(), range.start(), range.end())) {
      return last.schema();
    }
    Bytes probe = new Bytes(doc.bytes(), range.start(), range.end());
    Cached cached = schemas.get(probe);
    if (cached == null) {
      Bytes key = probe.copy(); // the cache must not hold on to the whole record
      cached = new Cached(key, new RecordSchema(doc.tree(range)));
      schemas.put(key, cached);
    }
    last = cached;
    return cached.schema();
  }

  private static final byte[] SCHEMA_FIELD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD_FIELD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * Where the payload starts when the record begins, byte for byte, with the last schema as the
   * Connect JSON converter writes it ({@code {"schema":<schema>,"payload":}); else -1. The
   * schema is then not even read past: it is a complete JSON value, so equal bytes end where it
   * ended.
   */
  int payloadAfterLastSchema(Document doc) {
    if (last == null) {
      return -1;
    }
    byte[] value = doc.bytes();
    int schemaStart = doc.start() + SCHEMA_FIELD.length;
    int schemaEnd = schemaStart + last.key().length();
    int payloadStart = schemaEnd + PAYLOAD_FIELD.length;
    boolean matches = payloadStart < doc.end()
        && Arrays.equals(value, doc.start(), schemaStart, SCHEMA_FIELD, 0, SCHEMA_FIELD.length)
        && last.key().sameAs(value, schemaStart, schemaEnd)
        && Arrays.equals(value, schemaEnd, payloadStart, PAYLOAD_FIELD, 0, PAYLOAD_FIELD.length);
    return matches ? payloadStart : -1;
  }

  /** The schema {@link #payloadAfterLastSchema} found. */
  RecordSchema last() {
    return last.schema();
  }

  /** How many schemas are remembered. */
  int size() {
    return schemas.size();
  }

  /** A byte range, compared by content. */
  static final class Bytes {
    private final byte[] bytes;
    private final int start;
    private final int end;
    private final int hash;

    Bytes(byte[] bytes, int start, int end) {
      this.bytes = bytes;
      this.start = start;
      this.end = end;
      int h = 1;
      for (int i = start; i < end; i++) {
        h = 31 * h + bytes[i];
      }
      this.hash = h;
    }

    int length() {
      return end - start;
    }

    Bytes copy() {
      return new Bytes(Arrays.copyOfRange(bytes, start, end), 0, end - start);
    }

    boolean sameAs(byte[] other, int otherStart, int otherEnd) {
      return Arrays.equals(bytes, start, end, other, otherStart, otherEnd);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes b && hash == b.hash && b.sameAs(bytes, start, end);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
