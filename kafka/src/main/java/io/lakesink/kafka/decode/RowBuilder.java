package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import io.lakesink.event.RowSchema;
import java.io.IOException;

/**
 * Collects the fields of one row image as the parser goes past them, and makes the row at the
 * end. A field given twice keeps its first place and its last value (as a Jackson tree would).
 * Problems with a value are kept until {@link #finish}, which reports the first in column order:
 * the record is read to its end first, so a syntax error anywhere wins, as it did with a tree.
 */
sealed interface RowBuilder permits UntypedRowBuilder, TypedRowBuilder {
  /** The columns and their values, aligned. */
  record Row(RowSchema schema, Object[] values) {}

  /** A field whose value starts at the parser's current token; consumes the whole value. */
  void value(String name, JsonParser p) throws IOException;

  /** A field whose value (an object or array) was read past; it is read again if needed. */
  void deferred(String name, Document.Range range);

  Row finish(Document doc) throws DecodeException, IOException;
}
