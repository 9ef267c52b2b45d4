package io.lakesink.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Debezium envelope stream with schemas ({@code schemas.enable=true}) for a {@code products}
 * table that gains two optional columns, {@code price decimal(10,2)} and {@code in_stock
 * boolean}, between phase 1 and phase 2. The test delivers phase 1 in one worker run and phase 2
 * in a second, so the table exists with the narrow schema when the wider one arrives.
 *
 * <p>Timestamps are {@code MicroTimestamp}s with sub-millisecond parts (Kernel writes timestamp
 * statistics truncated to milliseconds; Spark's data skipping must still find the row) and one
 * before 1970 (negative micros).
 */
final class EvolvingProducts {
  static final String TOPIC = "inventory.public.products";
  static final long T0 = 1_780_000_000_000L;
  /** 2026-05-28T23:26:40.123456Z: the newest updated_at, with microseconds. */
  static final Instant NEWEST = Instant.ofEpochSecond(T0 / 1000 + 3 * 3600, 123_456_000);
  /** 1969-07-20T20:17:40.000001Z. */
  static final Instant BEFORE_EPOCH = Instant.parse("1969-07-20T20:17:40.000001Z");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A row image; price and inStock are only sent by the wider (phase 2) schema. */
  record Product(long id, String name, Instant updatedAt, BigDecimal price, Boolean inStock) {}

  final List<Map<String, Object>> changelog = new ArrayList<>();
  final Map<Long, Map<String, Object>> current = new TreeMap<>();
  long endOffset;
  private long clock = T0;

  /** Phase 1, narrow schema: id, name, updated_at. */
  void producePhase1(String bootstrapServers) {
    producePhase1(bootstrapServers, TOPIC);
  }

  /** Phase 1 into another topic (the same stream for a second subscription). */
  void producePhase1(String bootstrapServers, String topic) {
    try (TopicWriter w = new TopicWriter(bootstrapServers, topic)) {
      send(w, "r", new Product(1, "kettle", Instant.ofEpochSecond(T0 / 1000, 1_000), null, null), false, false);
      send(w, "r", new Product(2, "toaster", BEFORE_EPOCH, null, null), false, false);
      send(w, "r", new Product(3, "mixer", null, null, null), false, false);
      send(w, "u", new Product(2, "toaster v2", Instant.ofEpochSecond(T0 / 1000 + 60, 999_999_000), null, null), false, false);
    }
  }

  /** Phase 2, wider schema: the two new optional columns at the end of the row. */
  void producePhase2(String bootstrapServers) {
    producePhase2(bootstrapServers, TOPIC);
  }

  void producePhase2(String bootstrapServers, String topic) {
    try (TopicWriter w = new TopicWriter(bootstrapServers, topic)) {
      send(w, "u", new Product(1, "kettle", Instant.ofEpochSecond(T0 / 1000 + 3600, 250_000), new BigDecimal("19.99"), true), true, false);
      send(w, "c", new Product(4, "grinder", Instant.ofEpochSecond(T0 / 1000 + 7200), null, false), true, false);
      send(w, "d", new Product(3, "mixer", null, null, null), true, true);
      send(w, "u", new Product(4, "grinder", NEWEST, new BigDecimal("-1234567.89"), true), true, false);
    }
  }

  private void send(TopicWriter w, String op, Product p, boolean wide, boolean isDelete) {
    long ts = clock;
    clock += 1000;
    long offset = w.send(0, key(p.id()), value(op, p, wide, isDelete, ts));
    endOffset = offset + 1;

    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", p.id());
    row.put("name", p.name());
    row.put("updated_at", p.updatedAt());
    row.put("__op", op);
    row.put("__deleted", isDelete);
    row.put("__ts_ms", ts);
    row.put("__partition", 0);
    row.put("__offset", offset);
    row.put("price", p.price());
    row.put("in_stock", p.inStock());
    changelog.add(row);
    if (isDelete) {
      current.remove(p.id());
    } else {
      Map<String, Object> visible = new LinkedHashMap<>(row);
      visible.remove("__deleted");
      visible.remove("__partition");
      visible.remove("__offset");
      current.put(p.id(), visible);
    }
  }

  private static byte[] key(long id) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode schema = root.putObject("schema").put("type", "struct").put("optional", false).put("name", "inventory.public.products.Key");
    schema.putArray("fields").addObject().put("type", "int64").put("optional", false).put("field", "id");
    root.putObject("payload").put("id", id);
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(String op, Product p, boolean wide, boolean isDelete, long ts) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode schema = root.putObject("schema").put("type", "struct").put("optional", false).put("name", "inventory.public.products.Envelope");
    ArrayNode fields = schema.putArray("fields");
    rowSchema(fields.addObject(), "before", wide);
    rowSchema(fields.addObject(), "after", wide);
    ArrayNode source = fields.addObject().put("type", "struct").put("optional", false).put("field", "source").putArray("fields");
    source.addObject().put("type", "string").put("optional", false).put("field", "connector");
    source.addObject().put("type", "int64").put("optional", false).put("field", "ts_ms");
    fields.addObject().put("type", "string").put("optional", false).put("field", "op");
    fields.addObject().put("type", "int64").put("optional", true).put("field", "ts_ms");

    ObjectNode payload = root.putObject("payload");
    if (isDelete) {
      rowPayload(payload.putObject("before"), p, wide);
      payload.putNull("after");
    } else {
      payload.putNull("before");
      rowPayload(payload.putObject("after"), p, wide);
    }
    payload.putObject("source").put("connector", "postgresql").put("ts_ms", ts);
    payload.put("op", op);
    payload.put("ts_ms", ts + 40);
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void rowSchema(ObjectNode field, String name, boolean wide) {
    field.put("type", "struct").put("optional", true).put("name", "inventory.public.products.Value").put("field", name);
    ArrayNode f = field.putArray("fields");
    f.addObject().put("type", "int64").put("optional", false).put("field", "id");
    f.addObject().put("type", "string").put("optional", true).put("field", "name");
    f.addObject().put("type", "int64").put("optional", true).put("name", "io.debezium.time.MicroTimestamp").put("version", 1).put("field", "updated_at");
    if (wide) {
      ObjectNode price = f.addObject().put("type", "bytes").put("optional", true)
          .put("name", "org.apache.kafka.connect.data.Decimal").put("version", 1).put("field", "price");
      price.putObject("parameters").put("scale", "2").put("connect.decimal.precision", "10");
      f.addObject().put("type", "boolean").put("optional", true).put("field", "in_stock");
    }
  }

  private static void rowPayload(ObjectNode row, Product p, boolean wide) {
    row.put("id", p.id()).put("name", p.name());
    if (p.updatedAt() == null) {
      row.putNull("updated_at");
    } else {
      row.put("updated_at", Math.addExact(Math.multiplyExact(p.updatedAt().getEpochSecond(), 1_000_000L), p.updatedAt().getNano() / 1000));
    }
    if (wide) {
      if (p.price() == null) {
        row.putNull("price");
      } else {
        row.put("price", Base64.getEncoder().encodeToString(p.price().unscaledValue().toByteArray()));
      }
      if (p.inStock() == null) {
        row.putNull("in_stock");
      } else {
        row.put("in_stock", p.inStock());
      }
    }
  }
}
