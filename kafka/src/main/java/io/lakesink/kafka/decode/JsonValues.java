package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.types.DecimalOutOfBoundsException;
import io.lakesink.types.Decimals;

/** How JSON values read without a schema: every column is a string. */
final class JsonValues {
  private JsonValues() {}

  /**
   * Text as is, numbers and booleans as written, objects and arrays as JSON text.
   *
   * @throws DecimalOutOfBoundsException for a number like {@code 1e999999999}, whose plain text
   *     would take gigabytes
   */
  static String text(JsonNode v) throws DecimalOutOfBoundsException {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isBigDecimal()) {
      return Decimals.plain(v.decimalValue()); // 1e3 reads 1000, 12.50 keeps its zero
    }
    return v.isValueNode() ? v.asText() : v.toString();
  }
}
