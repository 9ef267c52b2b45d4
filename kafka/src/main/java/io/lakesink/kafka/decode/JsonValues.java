package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;

/** How JSON values read without a schema: every column is a string. */
final class JsonValues {
  private JsonValues() {}

  /** Text as is, numbers and booleans as written, objects and arrays as JSON text. */
  static String text(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isBigDecimal()) {
      return v.decimalValue().toPlainString(); // 1e3 reads 1000, 12.50 keeps its zero
    }
    return v.isValueNode() ? v.asText() : v.toString();
  }
}
