package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * The bytes of the record being decoded. Parts read past in the one streaming pass (an image
 * the operation did not yet select, an object that is a column only if the record turns out
 * flattened) are kept as byte ranges and read again from here when needed.
 */
record Document(byte[] bytes) {
  /** A byte range of this record, once read, so known to be one well-formed JSON value. */
  record Range(int start, int end) {}

  JsonNode tree(Range r) throws IOException {
    return JsonTokens.MAPPER.readTree(bytes, r.start(), r.end() - r.start());
  }
}
