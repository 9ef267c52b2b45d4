package io.lakesink.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A schemaless ({@code schemas.enable=false}) stream of flattened Debezium records, as
 * ExtractNewRecordState writes them with {@code add.fields=op,ts_ms,source.ts_ms} and
 * {@code delete.tombstone.handling.mode=rewrite-with-tombstone}: the row's fields, then
 * {@code __op}, {@code __ts_ms}, {@code __source_ts_ms} and {@code __deleted} ("true"/"false").
 *
 * <p>Without a schema every column is a string: text as is, numbers and booleans as their JSON
 * text, arrays and objects as compact JSON. Names carry quotes, backslashes, tabs, non-Latin
 * scripts and an emoji; some records omit {@code address} entirely (a second row shape); deleted
 * keys come back; some deletes are followed by a tombstone. Deterministic (fixed seed).
 *
 * <p>While producing, it records the changelog rows lakesink must write (with the offsets the
 * broker assigned) and the current state: the last change of each key, unless it is a delete.
 */
final class FlattenedCustomers {
  static final String TOPIC = "crm.public.customers";
  static final int PARTITIONS = 3;
  static final List<String> COLUMNS = List.of("id", "name", "email", "tier", "balance", "active", "tags", "address");
  static final long T0 = 1_770_000_000_000L;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] NAMES = {
    "ada", "Zoë", "Łukasz", "東京商事", "Ωmega 😀", "O'Brien", "", "Ma\"ria", "back\\slash", "tab\there", "grace"
  };
  private static final String[] TIERS = {"gold", "silver", "bronze"};
  private static final String[] CITIES = {"Oslo", "Tromsø", "Zürich", "Lyon"};

  /** Every changelog row lakesink must write, without {@code __ingest_date}. */
  final List<Map<String, Object>> changelog = new ArrayList<>();
  /** The current state: id (as the string column holds it) → visible row with __op and __ts_ms. */
  final Map<String, Map<String, Object>> current = new TreeMap<>();
  /** Per partition: the offset after the last record, and after the last non-tombstone record. */
  final Map<Integer, Long> endOffsets = new HashMap<>();
  final Map<Integer, Long> afterLastData = new HashMap<>();

  private final Random random = new Random(20261102);
  private final Map<Long, ObjectNode> live = new LinkedHashMap<>();
  private final List<Long> deleted = new ArrayList<>();
  private long nextId = 1;
  private long clock = T0;

  static FlattenedCustomers produce(String bootstrapServers) {
    FlattenedCustomers s = new FlattenedCustomers();
    try (TopicWriter w = new TopicWriter(bootstrapServers, TOPIC)) {
      for (int i = 0; i < 60; i++) {
        s.change(w, "r", s.nextId++);
      }
      for (int i = 0; i < 300; i++) {
        int dice = s.random.nextInt(100);
        if (dice < 55 && !s.live.isEmpty()) {
          s.change(w, "u", s.pickLive(-1));
        } else if (dice < 75 && !s.live.isEmpty()) {
          s.delete(w, s.pickLive(-1));
        } else if (dice < 85 && !s.deleted.isEmpty()) {
          s.change(w, "c", s.deleted.remove(s.random.nextInt(s.deleted.size()))); // a key comes back
        } else {
          s.change(w, "c", s.nextId++);
        }
      }
      // End every partition with an update, so each partition's last record is a row (a trailing
      // tombstone is only covered by a later commit) and the stored offsets are exact.
      for (int p = 0; p < PARTITIONS; p++) {
        long id = s.pickLive(p);
        if (id > 0) {
          s.change(w, "u", id);
        } else {
          s.change(w, "c", s.nextIdIn(p));
        }
      }
    }
    return s;
  }

  private long nextIdIn(int partition) {
    while (nextId % PARTITIONS != partition) {
      nextId++;
    }
    return nextId++;
  }

  /** A random live id, or in one partition (-1: any); 0 when there is none. */
  private long pickLive(int partition) {
    List<Long> ids = live.keySet().stream().filter(id -> partition < 0 || id % PARTITIONS == partition).toList();
    return ids.isEmpty() ? 0 : ids.get(random.nextInt(ids.size()));
  }

  private void change(TopicWriter w, String op, long id) {
    ObjectNode row = image(id);
    live.put(id, row);
    send(w, op, id, row, false);
  }

  private void delete(TopicWriter w, long id) {
    ObjectNode before = live.remove(id);
    deleted.add(id);
    send(w, "d", id, before, true);
    if (random.nextBoolean()) {
      int partition = (int) (id % PARTITIONS);
      long offset = w.send(partition, key(id), null);
      endOffsets.put(partition, offset + 1);
    }
  }

  private ObjectNode image(long id) {
    ObjectNode row = JSON.createObjectNode();
    row.put("id", id);
    row.put("name", NAMES[random.nextInt(NAMES.length)]);
    if (random.nextInt(4) == 0) {
      row.putNull("email");
    } else {
      row.put("email", "c" + id + "@example.com");
    }
    row.put("tier", TIERS[random.nextInt(TIERS.length)]);
    if (random.nextBoolean()) {
      row.put("balance", (random.nextInt(2_000_000) - 1_000_000) / 100.0);
    } else {
      row.put("balance", (long) random.nextInt(100_000));
    }
    row.put("active", random.nextBoolean());
    var tags = row.putArray("tags");
    for (int t = random.nextInt(3); t > 0; t--) {
      tags.add(random.nextBoolean() ? "vip" : "eu");
    }
    int address = random.nextInt(10);
    if (address == 0) {
      row.putNull("address");
    } else if (address > 1) {
      row.putObject("address").put("city", CITIES[random.nextInt(CITIES.length)]).put("zip", String.format("%04d", random.nextInt(10_000)));
    } // else: no address field at all — another row shape
    return row;
  }

  private void send(TopicWriter w, String op, long id, ObjectNode image, boolean isDelete) {
    long ts = clock;
    clock += 1000;
    ObjectNode value = image.deepCopy();
    value.put("__op", op);
    value.put("__ts_ms", ts + 7);
    value.put("__source_ts_ms", ts);
    value.put("__deleted", isDelete ? "true" : "false");
    int partition = (int) (id % PARTITIONS);
    long offset = w.send(partition, key(id), value.toString().getBytes(StandardCharsets.UTF_8));
    endOffsets.put(partition, offset + 1);
    afterLastData.put(partition, offset + 1);

    Map<String, Object> row = new LinkedHashMap<>();
    for (String c : COLUMNS) {
      row.put(c, text(image, c));
    }
    row.put("__op", op);
    row.put("__deleted", isDelete);
    row.put("__ts_ms", ts);
    row.put("__partition", partition);
    row.put("__offset", offset);
    changelog.add(row);

    String key = String.valueOf(id);
    if (isDelete) {
      current.remove(key);
    } else {
      Map<String, Object> visible = new LinkedHashMap<>();
      for (String c : COLUMNS) {
        visible.put(c, row.get(c));
      }
      visible.put("__op", op);
      visible.put("__ts_ms", ts);
      current.put(key, visible);
    }
  }

  /** The string a schemaless column holds: JSON text of the field, null when null or absent. */
  private static String text(ObjectNode image, String field) {
    var v = image.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isBoolean()) {
      return Boolean.toString(v.booleanValue());
    }
    if (v.isIntegralNumber()) {
      return Long.toString(v.longValue());
    }
    if (v.isDouble()) {
      return Double.toString(v.doubleValue());
    }
    return v.toString(); // arrays and objects: compact JSON
  }

  private static byte[] key(long id) {
    return ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
  }
}
