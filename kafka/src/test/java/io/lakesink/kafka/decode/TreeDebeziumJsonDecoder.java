package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.types.DecimalOutOfBoundsException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The decoder as it was before the streaming rewrite (a Jackson tree per record), kept as the
 * oracle the streaming decoder is compared with: same events, same messages.
 *
 * <p>Original description:
 * Debezium change events in JSON: the envelope ({@code before}/{@code after}/{@code source}/
 * {@code op}) or a flattened record ({@code __op}, {@code __ts_ms}, {@code __source_ts_ms},
 * {@code __deleted}), with the Connect JSON converter's {@code schemas.enable} on or off.
 *
 * <p>With a schema, columns are typed by {@link io.lakesink.types.TypeMapping}; without one,
 * every column is a string. The change time is {@code source.ts_ms}, else the envelope's
 * {@code ts_ms}. Not thread-safe (it caches row schemas).
 */
final class TreeDebeziumJsonDecoder implements RecordDecoder {
  /** Fields ExtractNewRecordState adds to flattened records; they are metadata, not columns. */
  static final Set<String> FLATTENED_METADATA = Set.of("__op", "__ts_ms", "__source_ts_ms", "__deleted");

  // Decimals stay exact: without a schema, 12.50 must read "12.50", not a double's "12.5".
  private final ObjectMapper mapper =
      new ObjectMapper()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
  private final Map<List<String>, RowSchema> untypedSchemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  private final Map<JsonNode, ConnectJsonSchema> typedSchemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);

  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException {
    if (value == null) {
      return null; // tombstone: the delete itself was the preceding 'd' event
    }
    JsonNode root = parse(value, "value");
    JsonNode schema = null;
    JsonNode payload = root;
    if (root.isObject() && root.has("payload") && root.has("schema")) {
      schema = root.get("schema");
      payload = root.get("payload");
    }
    if (payload == null || payload.isNull()) {
      return null;
    }
    if (!payload.isObject()) {
      throw new DecodeException("expected a JSON object, found " + payload.getNodeType());
    }
    List<String> keyFields = keyFields(key);
    return payload.has("op") && (payload.has("after") || payload.has("before")
            || payload.path("source").isObject() && List.of("t", "m").contains(payload.path("op").asText("")))
        ? envelope(position, schema, payload, keyFields, key, value.length)
        : flattened(position, schema, payload, keyFields, value.length);
  }

  private ChangeEvent envelope(
      SourcePosition position, JsonNode schema, JsonNode payload, List<String> keyFields, byte[] key, int size)
      throws DecodeException {
    String code = payload.path("op").asText(null);
    if ("m".equals(code)) {
      return null; // message events carry no row
    }
    Operation op = Operation.fromCode(code);
    if (op == null) {
      throw new DecodeException("the Debezium field 'op' holds " + OpCodes.describe(code) + " (expected c, u, d, r or t)");
    }
    if (op == Operation.TRUNCATE) {
      Long ts = longOrNull(payload.path("source").get("ts_ms"));
      return ChangeEvent.truncate(position, ts != null ? ts : longOrNull(payload.get("ts_ms")), size);
    }
    String imageField = op == Operation.DELETE ? "before" : "after";
    JsonNode image = payload.get(imageField);
    JsonNode imageSchema = schema == null ? null : fieldSchema(schema, imageField);
    if (image == null || image.isNull()) {
      if (op != Operation.DELETE) {
        throw new DecodeException("a '" + code + "' event without an 'after' image");
      }
      // A delete without a before image (REPLICA IDENTITY DEFAULT, …): the key identifies it.
      JsonNode keyRoot = key == null ? null : parse(key, "key");
      image = keyRoot != null && keyRoot.has("payload") && keyRoot.has("schema") ? keyRoot.get("payload") : keyRoot;
      imageSchema = keyRoot != null && keyRoot.has("schema") ? keyRoot.get("schema") : null;
      if (image == null || !image.isObject()) {
        throw new DecodeException("a delete event with neither a 'before' image nor a record key");
      }
    }
    if (!image.isObject()) {
      throw new DecodeException("the event's '" + imageField + "' image is a JSON " + image.getNodeType() + ", not an object");
    }
    Long ts = longOrNull(payload.path("source").get("ts_ms"));
    if (ts == null) {
      ts = longOrNull(payload.get("ts_ms"));
    }
    ChangeEvent event = row(position, op, ts, imageSchema, image, Set.of(), keyFields, size);
    return "last".equals(payload.path("source").path("snapshot").asText(null)) ? event.asSnapshotEnd() : event;
  }

  private ChangeEvent flattened(
      SourcePosition position, JsonNode schema, JsonNode payload, List<String> keyFields, int size)
      throws DecodeException {
    Operation op = Operation.fromCode(payload.path("__op").asText(null));
    if (payload.has("__op") && !payload.get("__op").isNull() && op == null) {
      throw new DecodeException("the field '__op' holds " + OpCodes.describe(payload.path("__op").asText(null)) + " (expected c, u, d, r or t)");
    }
    boolean deleted = "true".equalsIgnoreCase(payload.path("__deleted").asText("false"));
    if (deleted && op == null) {
      op = Operation.DELETE;
    }
    Long ts = longOrNull(payload.get("__source_ts_ms"));
    if (ts == null) {
      ts = longOrNull(payload.get("__ts_ms"));
    }
    if (op == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, ts, size);
    }
    return row(position, op, ts, schema, payload, FLATTENED_METADATA, keyFields, size);
  }

  private ChangeEvent row(
      SourcePosition position, Operation op, Long ts, JsonNode schema, JsonNode image, Set<String> exclude,
      List<String> keyFields, int size) throws DecodeException {
    if (schema != null && !schema.isNull()) {
      ConnectJsonSchema typed = typedSchemas.get(schema);
      if (typed == null) {
        typed = ConnectJsonSchema.of(withoutFields(schema, exclude));
        typedSchemas.put(schema, typed);
      }
      return new ChangeEvent(position, op, ts, typed.rowSchema, typed.values(image), keyFields, size);
    }
    List<String> names = new ArrayList<>(image.size());
    for (Iterator<String> it = image.fieldNames(); it.hasNext(); ) {
      String n = it.next();
      if (!exclude.contains(n)) {
        names.add(n);
      }
    }
    RowSchema rowSchema = untypedSchemas.computeIfAbsent(names, TreeDebeziumJsonDecoder::untyped);
    Object[] values = new Object[names.size()];
    for (int i = 0; i < values.length; i++) {
      try {
        values[i] = JsonValues.text(image.get(names.get(i)));
      } catch (DecimalOutOfBoundsException e) {
        throw new DecodeException("column " + names.get(i) + ": " + e.getMessage(), e); // never the value: it is the problem
      }
    }
    return new ChangeEvent(position, op, ts, rowSchema, values, keyFields, size);
  }

  private static RowSchema untyped(List<String> names) {
    List<Column> columns = new ArrayList<>(names.size());
    names.forEach(n -> columns.add(new Column(n, ColumnType.STRING)));
    return new RowSchema(columns, false);
  }

  private JsonNode withoutFields(JsonNode struct, Set<String> exclude) {
    if (exclude.isEmpty() || !(struct.path("fields") instanceof ArrayNode)) {
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

  private List<String> keyFields(byte[] key) {
    if (key == null) {
      return List.of();
    }
    try {
      JsonNode k = mapper.readTree(key);
      if (k != null && k.has("payload") && k.has("schema")) {
        k = k.get("payload");
      }
      if (k == null || !k.isObject()) {
        return List.of();
      }
      List<String> names = new ArrayList<>();
      k.fieldNames().forEachRemaining(names::add);
      return names;
    } catch (IOException e) {
      return List.of(); // a key that is not JSON only loses its use as a default primary key
    }
  }

  private JsonNode parse(byte[] bytes, String what) throws DecodeException {
    try {
      JsonNode n = mapper.readTree(bytes);
      if (n == null) {
        throw new DecodeException("the record " + what + " is empty");
      }
      return n;
    } catch (IOException e) {
      // The parser's own message quotes the offending token: the position is said instead.
      String where = e instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getLocation() != null
          ? " at line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr()
          : "";
      throw new DecodeException("the record " + what + " is not valid JSON" + where, e);
    }
  }

  private static Long longOrNull(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (n.isIntegralNumber()) {
      return n.longValue();
    }
    if (n.isTextual()) {
      try {
        return Long.parseLong(n.textValue());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
