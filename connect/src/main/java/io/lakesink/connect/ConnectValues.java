package io.lakesink.connect;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Keys and values that a converter already turned into Connect data (a {@code Struct} from
 * {@code AvroConverter} or {@code JsonConverter} with schemas, a {@code Map} without), written
 * back as the Debezium JSON lakesink's decoder reads: with their Connect schema as
 * {@code {"schema": …, "payload": …}} (what Debezium's own JSON converter writes with
 * {@code schemas.enable}, so column types and logical types such as {@code io.debezium.time.Timestamp}
 * or Connect's {@code Decimal} survive), without one as the bare payload.
 *
 * <p>Why not decode the Struct directly: the JSON decoder is where a change event becomes a row
 * (types, deletes, tombstones, errors); one decoding path keeps the Connect task and the worker
 * producing the same rows. The round trip costs CPU, which a user avoids with
 * {@code ByteArrayConverter}.
 */
final class ConnectValues {
  private final JsonConverter keysWithSchema = converter(true, true);
  private final JsonConverter keysWithout = converter(true, false);
  private final JsonConverter valuesWithSchema = converter(false, true);
  private final JsonConverter valuesWithout = converter(false, false);

  private static JsonConverter converter(boolean isKey, boolean schemas) {
    JsonConverter c = new JsonConverter();
    // Nulls stay nulls (a column's default is not a value the source sent); decimals as
    // Debezium writes them (base64 of the unscaled value, the scale in the schema).
    c.configure(Map.of("schemas.enable", String.valueOf(schemas), "decimal.format", "BASE64",
        "replace.null.with.default", "false"), isKey);
    return c;
  }

  /** Whether the record carries Connect data rather than the bytes (or text) a converter passed through. */
  static boolean isConnectData(SinkRecord r) {
    return isData(r.key()) || isData(r.value());
  }

  private static boolean isData(Object v) {
    return v != null && !(v instanceof byte[]) && !(v instanceof String);
  }

  byte[] key(SinkRecord r) {
    return bytes(r.topic(), r.keySchema(), r.key(), keysWithSchema, keysWithout);
  }

  byte[] value(SinkRecord r) {
    return bytes(r.topic(), r.valueSchema(), r.value(), valuesWithSchema, valuesWithout);
  }

  private static byte[] bytes(String topic, Schema schema, Object v, JsonConverter withSchema, JsonConverter without) {
    if (v == null) {
      return null; // a tombstone, or no key
    }
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof String s && (schema == null || schema.type() == Schema.Type.STRING)) {
      return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    return (schema == null ? without : withSchema).fromConnectData(topic, schema, v);
  }
}
