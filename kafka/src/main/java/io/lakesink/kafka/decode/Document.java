package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * The bytes of the record being decoded: {@code bytes[start..end)}, the record's own array or
 * the part of the consumer's fetch buffer it was read into (not copied out of it). Positions
 * ({@link Range}) are indexes into {@code bytes}. Parts read past in the one streaming pass (an
 * image the operation did not yet select, an object that is a column only if the record turns
 * out flattened) are kept as byte ranges and read again from here when needed.
 */
record Document(byte[] bytes, int start, int end) {
  /** A byte range of this record, once read, so known to be one well-formed JSON value. */
  record Range(int start, int end) {}

  /** A record that is a whole array. */
  static Document of(byte[] bytes) {
    return new Document(bytes, 0, bytes.length);
  }

  /** The record's size in bytes. */
  int size() {
    return end - start;
  }

  /** The whole record as a range. */
  Range whole() {
    return new Range(start, end);
  }

  JsonNode tree(Range r) throws IOException {
    return JsonTokens.MAPPER.readTree(bytes, r.start(), r.end() - r.start());
  }
}
