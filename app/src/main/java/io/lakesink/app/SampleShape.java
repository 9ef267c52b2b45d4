package io.lakesink.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.kafka.avro.AvroDebeziumDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.avro.Schema;

/**
 * What one record of a topic shows: whose events they are, how they are encoded, and the record
 * key's fields. Only names are read, never a value: the configuration init writes may be shared.
 *
 * @param keyFields the record key's top-level fields (the default primary key); empty when unknown
 * @param keyNote why there are none, or null
 */
record SampleShape(Kind kind, Format format, List<String> keyFields, String keyNote) {
  enum Kind {
    TABLE, SCHEMA_CHANGE, TRANSACTION, HEARTBEAT
  }

  enum Format {
    JSON_WITH_SCHEMAS, JSON, AVRO, NOT_DECODABLE, UNSEEN
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param schemas the registry's schema of an id, or null when no registry is known (or it failed)
   */
  static SampleShape of(TopicSampler.Sample sample, IntFunction<Schema> schemas) {
    byte[] key = sample.key();
    List<String> keyFields = List.of();
    String keyNote = null;
    if (key == null) {
      // Only a record that was read says there is no key; an unread topic says nothing.
      keyNote = sample.status() == TopicSampler.Status.READ ? "records have no key (a table without a primary key): merge needs primary_key" : null;
    } else if (AvroDebeziumDecoder.looksLikeConfluentAvro(key)) {
      Schema s = schemas == null ? null : schemas.apply(schemaId(key));
      keyFields = s == null ? List.of() : fieldNames(s);
      keyNote = s != null ? null : schemas == null
          ? "the key is Avro: init needs --schema-registry-url to see its fields (lakesink reads them from the registry)"
          : "the key is Avro and the registry did not give its schema (lakesink reads its fields from the registry)";
    } else {
      JsonNode k = json(key);
      keyFields = k == null ? List.of() : fieldNames(payload(k));
      keyNote = keyFields.isEmpty() ? "the key is not a struct and names no column: merge needs primary_key" : null;
    }
    byte[] value = sample.value();
    if (value == null) {
      return new SampleShape(Kind.TABLE, Format.UNSEEN, keyFields, keyNote);
    }
    if (AvroDebeziumDecoder.looksLikeConfluentAvro(value)) {
      Schema s = schemas == null ? null : schemas.apply(schemaId(value));
      return new SampleShape(s == null ? Kind.TABLE : kind(Set.copyOf(fieldNames(s)), keyFields), Format.AVRO, keyFields, keyNote);
    }
    JsonNode v = json(value);
    if (v == null || !v.isObject()) {
      return new SampleShape(Kind.TABLE, Format.NOT_DECODABLE, keyFields, keyNote);
    }
    boolean withSchema = v.has("schema") && v.has("payload");
    JsonNode payload = payload(v);
    return new SampleShape(kind(Set.copyOf(fieldNames(payload)), keyFields),
        withSchema ? Format.JSON_WITH_SCHEMAS : Format.JSON, keyFields, keyNote);
  }

  /** Debezium's own events by their fields; anything else is taken for a table's (envelope or flattened). */
  private static Kind kind(Set<String> fields, List<String> keyFields) {
    if (fields.contains("ddl") || fields.contains("tableChanges")) {
      return Kind.SCHEMA_CHANGE;
    }
    if (fields.contains("status") && (fields.contains("event_count") || fields.contains("data_collections")) && !fields.contains("op")) {
      return Kind.TRANSACTION;
    }
    if (fields.equals(Set.of("ts_ms")) && keyFields.contains("serverName")) {
      return Kind.HEARTBEAT;
    }
    return Kind.TABLE;
  }

  /** The JSON converter with schemas wraps the data in {@code {"schema": …, "payload": …}}. */
  private static JsonNode payload(JsonNode node) {
    return node.isObject() && node.has("schema") && node.has("payload") ? node.get("payload") : node;
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    if (node != null && node.isObject()) {
      node.fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  private static List<String> fieldNames(Schema s) {
    return s.getType() == Schema.Type.RECORD ? s.getFields().stream().map(Schema.Field::name).toList() : List.of();
  }

  private static JsonNode json(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      return null; // not JSON: a string key, or another converter's bytes
    }
  }

  /** Bytes 1–4 of the Confluent wire format. */
  private static int schemaId(byte[] bytes) {
    return ByteBuffer.wrap(bytes, 1, 4).getInt();
  }
}
