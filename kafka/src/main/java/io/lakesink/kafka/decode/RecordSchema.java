package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Set;

/**
 * The {@code schema} part of a record written with {@code schemas.enable}, and the row schemas
 * derived from it for each image it can describe, made once per distinct schema.
 */
final class RecordSchema {
  /** Which part of the payload a row is read from. */
  enum Image {
    AFTER("after"),
    BEFORE("before"),
    FLATTENED(null);

    final String field;

    Image(String field) {
      this.field = field;
    }
  }

  private final JsonNode schema;
  private final JsonNode[] described = new JsonNode[Image.values().length]; // the part of the schema each image has
  private final Object[] derived = new Object[Image.values().length]; // ConnectJsonSchema or DecodeException

  RecordSchema(JsonNode schema) {
    this.schema = schema;
    for (Image image : Image.values()) {
      described[image.ordinal()] = image == Image.FLATTENED ? schema : fieldSchema(schema, image.field);
    }
  }

  /** The schema's {@code name} (Debezium's heartbeat, transaction and schema-change values have one), or null. */
  String name() {
    JsonNode name = schema.get("name");
    return name != null && name.isTextual() ? name.asText() : null;
  }

  /** The builder of one row of this image: typed, or untyped when the schema does not describe it. */
  RowBuilder builder(Image image, UntypedSchemas untyped) {
    JsonNode part = described[image.ordinal()];
    if (part == null || part.isNull()) {
      return new UntypedRowBuilder(untyped, image == Image.FLATTENED);
    }
    return new TypedRowBuilder(() -> typed(image, part));
  }

  private ConnectJsonSchema typed(Image image, JsonNode described) throws DecodeException {
    Object d = derived[image.ordinal()];
    if (d == null) {
      try {
        d = ConnectJsonSchema.of(image == Image.FLATTENED ? withoutFields(described, DebeziumJsonDecoder.FLATTENED_METADATA) : described);
      } catch (DecodeException e) {
        d = e;
      }
      derived[image.ordinal()] = d;
    }
    if (d instanceof DecodeException e) {
      throw new DecodeException(e.getMessage()); // a fresh one for each record it refuses
    }
    return (ConnectJsonSchema) d;
  }

  private static JsonNode withoutFields(JsonNode struct, Set<String> exclude) {
    if (!(struct.path("fields") instanceof ArrayNode)) {
      return struct; // a schema without a field list is refused by ConnectJsonSchema.of
    }
    var copy = struct.deepCopy();
    var fields = (ArrayNode) copy.path("fields");
    for (int i = fields.size() - 1; i >= 0; i--) {
      if (exclude.contains(fields.get(i).path("field").asText())) {
        fields.remove(i);
      }
    }
    return copy;
  }

  private static JsonNode fieldSchema(JsonNode envelopeSchema, String field) {
    for (JsonNode f : envelopeSchema.path("fields")) {
      if (field.equals(f.path("field").asText())) {
        return f;
      }
    }
    return null;
  }
}
