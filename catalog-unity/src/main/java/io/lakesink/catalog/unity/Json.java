package io.lakesink.catalog.unity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The one Jackson mapper of this module (thread-safe once configured) and lenient reading. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** Parses a body; anything that is not JSON (an HTML error page from a proxy) reads as missing. */
  static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return MissingNode.getInstance();
    }
    try {
      JsonNode node = MAPPER.readTree(body);
      return node == null ? MissingNode.getInstance() : node;
    } catch (JsonProcessingException e) {
      return MissingNode.getInstance();
    }
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialize a JSON tree", e);
    }
  }

  /** A text field, or null when absent or not text. */
  static String text(JsonNode node, String field) {
    JsonNode v = node.path(field);
    return v.isValueNode() && !v.isNull() ? v.asText() : null;
  }
}
