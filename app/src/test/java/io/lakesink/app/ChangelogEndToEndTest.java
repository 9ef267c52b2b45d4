package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentState;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The worker on a real broker, end to end: what lands in Delta for each kind of input. */
@Timeout(300)
class ChangelogEndToEndTest {
  @TempDir Path data;

  @Test
  void typedEnvelopeLandsOnceWithSchemaTypesAndTheViewRulesGiveTheCurrentState() throws Exception {
    String topic = SharedKafka.newTopic("orders", DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(SharedKafka.bootstrap(), topic);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: orders, primary_key: [id]}");

    assertEquals(Main.OK, w.runToEnd());

    List<Map<String, Object>> rows = w.rows("orders");
    assertEquals(DemoChangeStream.changes().size(), rows.size(), "one row per change, tombstones skipped");
    assertNoDuplicatePositions(rows);
    Map<String, Object> first = rows.stream().filter(r -> r.get("id").equals(1L) && "r".equals(r.get("__op"))).findFirst().orElseThrow();
    assertEquals(new BigDecimal("10.50"), first.get("amount"));
    assertEquals(LocalDate.of(2026, 11, 2), first.get("order_date"));
    assertEquals(Instant.ofEpochMilli(DemoChangeStream.T0), first.get("updated_at"));
    assertEquals(DemoChangeStream.T0, first.get("__ts_ms"), "__ts_ms is source.ts_ms, not the envelope's ts_ms");
    assertEquals(LocalDate.now(ZoneOffset.UTC), first.get("__ingest_date"));

    Map<Long, String> status = new TreeMap<>();
    for (Map<String, Object> r : CurrentState.collapse(rows, List.of("id"), true)) {
      status.put((Long) r.get("id"), (String) r.get("status"));
    }
    // 3 and 7 were deleted; 2 had two updates at the same __ts_ms and the later offset wins.
    assertEquals(Map.of(1L, "shipped", 2L, "cancelled", 4L, "pending", 5L, "pending", 6L, "pending"), status);

    // Kafka's group offsets were committed after, and equal to, what the table stores.
    Map<SourcePartition, Long> stored = w.storedOffsets("orders", topic, 2);
    Map<Integer, Long> group = w.groupOffsets(topic);
    for (int p = 0; p < 2; p++) {
      assertEquals(stored.get(new SourcePartition(topic, p)), group.get(p));
    }

    // A second run finds nothing new and writes nothing.
    long version = w.table("orders").version();
    assertEquals(Main.OK, w.runToEnd());
    assertEquals(version, w.table("orders").version());
    assertEquals(rows.size(), w.rows("orders").size());
  }

  @Test
  void schemalessEnvelopeAndFlattenedRecordsOverSeveralTopicsAndPartitions() throws Exception {
    String envelopeTopic = SharedKafka.newTopic("plain", 3);
    String flatTopic = SharedKafka.newTopic("flat", 3);
    Map<String, String> expectedEnvelope;
    Map<String, String> expectedFlat;
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      expectedEnvelope = randomStream(producer, envelopeTopic, false, new Random(7));
      expectedFlat = randomStream(producer, flatTopic, true, new Random(11));
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + envelopeTopic + ", table: plain, primary_key: [id]}")
        .subscribe("- {topic: " + flatTopic + ", table: \"flat.items\"}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 50\n";

    assertEquals(Main.OK, w.runToEnd());

    List<Map<String, Object>> plain = w.rows("plain");
    assertNoDuplicatePositions(plain);
    assertEquals(expectedEnvelope, state(CurrentState.collapse(plain, List.of("id"), true)));
    assertInstanceOf(String.class, plain.get(0).get("id"), "without a schema every column is a string");

    List<Map<String, Object>> flat = w.rows("flat.items");
    assertTrue(w.table("flat.items").location().endsWith("/flat_items_APPEND"), "names are sanitized");
    assertNoDuplicatePositions(flat);
    assertFalse(flat.get(0).containsKey("__source_ts_ms"), "flattened metadata fields are not columns");
    assertEquals(expectedFlat, state(CurrentState.collapse(flat, List.of("id"), true)));
    long deletes = flat.stream().filter(r -> Boolean.TRUE.equals(r.get(ChangelogColumns.DELETED))).count();
    assertTrue(deletes > 0 && flat.stream().filter(r -> "d".equals(r.get("__op"))).count() == deletes);
  }

  @Test
  void aPoisonRecordStopsOnlyItsTableWithTheRecordNamedAndOffsetsFrozen() throws Exception {
    String good = SharedKafka.newTopic("good", 1);
    String bad = SharedKafka.newTopic("bad", 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < 20; i++) {
        SharedKafka.send(producer, good, 0, "{\"id\":" + i + "}", envelope("c", i, "n" + i, 1000 + i));
        SharedKafka.send(producer, bad, 0, "{\"id\":" + i + "}", i == 12 ? "{not json" : envelope("c", i, "n" + i, 1000 + i));
      }
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + good + ", table: good}")
        .subscribe("- {topic: " + bad + ", table: bad}");

    WorkerResult result = w.runForResult();

    assertTrue(result.states().get("good_APPEND").delivering());
    DeliveryState.Quarantined failed = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("bad_APPEND"));
    String message = failed.record().reason();
    assertTrue(message.contains("topic " + bad + ", partition 0, offset 12") && message.contains("not valid JSON"), message);
    assertEquals(20, w.rows("good").size());
    w.rows("bad").forEach(r -> assertTrue((Long) r.get("__offset") < 12));
    Long stored = w.storedOffsets("bad", bad, 1).get(new SourcePartition(bad, 0));
    assertTrue(stored == null || stored <= 12, "offsets stay before the poison record: " + stored);
    Long group = w.groupOffsets(bad).get(0);
    assertTrue(group == null || group <= 12, "group offset stays before the poison record: " + group);
    assertEquals(Main.TABLES_FAILED, w.runToEnd(), "a restart stops at the same record again");
  }

  @Test
  void aTopicRecreatedBehindTheTablesBackStopsTheTableInsteadOfReplaying() throws Exception {
    String topic = SharedKafka.newTopic("recreated", 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < 5; i++) SharedKafka.send(producer, topic, 0, "{\"id\":" + i + "}", envelope("c", i, "a", i));
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    assertEquals(Main.OK, w.runToEnd());
    SharedKafka.broker().deleteTopic(topic);
    SharedKafka.broker().createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < 2; i++) SharedKafka.send(producer, topic, 0, "{\"id\":" + i + "}", envelope("u", i, "b", 10 + i));
      producer.flush();
    }

    WorkerResult result = w.runForResult();

    DeliveryState.Quarantined failed = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("t_APPEND"));
    assertTrue(failed.record().reason().contains("up to offset 5 but the partition now ends at offset 2"), failed.record().reason());
    assertEquals(5, w.rows("t").size(), "nothing replayed");
  }

  @Test
  void deleteWithoutBeforeImageKeepsTheKeyFromTheRecordKey() throws Exception {
    String topic = SharedKafka.newTopic("nobefore", 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", envelope("c", 1, "a", 10));
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":20},\"op\":\"d\",\"ts_ms\":21}");
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", null);
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    assertEquals(Main.OK, w.runToEnd());
    List<Map<String, Object>> rows = w.rows("t");
    assertEquals(2, rows.size());
    Map<String, Object> delete = rows.stream().filter(r -> "d".equals(r.get("__op"))).findFirst().orElseThrow();
    assertEquals("1", delete.get("id"));
    assertNull(delete.get("name"));
    assertEquals(20L, delete.get("__ts_ms"));
    assertEquals(List.of(), CurrentState.collapse(rows, List.of("id"), true));
  }

  /**
   * A delete and its tombstone read in different polls, the delete's batch taken before the
   * tombstone came: the tombstone's position is committed on its own once as old as the flush
   * interval, so while the worker runs, with nothing after it, the table's stored offset and the
   * group's committed offset (what lag monitors read) reach the partition's end.
   */
  @ParameterizedTest
  @ValueSource(strings = {"changelog", "merge"})
  void aTombstoneReadAfterItsDeletesCommitMovesTheOffsetsToTheEnd(String mode) throws Exception {
    String topic = SharedKafka.newTopic("split", 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", envelope("c", 1, "a", 10));
      SharedKafka.send(producer, topic, 0, "{\"id\":2}", envelope("c", 2, "b", 11));
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", envelope("d", 1, "a", 12));
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", null);
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: t, mode: " + mode + ", primary_key: [id]}");
    // One record per poll and a batch of three: the delete's batch is taken before its tombstone is read.
    w.delivery = "  flush_interval: 1s\n  flush_rows: 3\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"1\"\n";
    try (TableStorage storage = new LocalStorage(data, "lakesink")) {
      RebalanceTest.RunningWorker worker = new RebalanceTest.RunningWorker(Pipeline.worker(w.config(), storage,
          DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage))));
      try {
        SourcePartition p0 = new SourcePartition(topic, 0);
        RebalanceTest.awaitCondition(() -> Long.valueOf(4).equals(w.storedOffsets("t", topic, 1).get(p0)),
            "the table stores the offset after the tombstone");
        RebalanceTest.awaitCondition(() -> groupOffset(w, topic) == 4, "the group's offset is after the tombstone");
      } finally {
        worker.stop();
      }
    }
    List<Map<String, Object>> rows = w.rows("t");
    assertEquals(mode.equals("merge") ? 1 : 3, rows.size(), "no row for the tombstone: " + rows);
  }

  private static long groupOffset(WorkerHarness w, String topic) {
    try {
      return w.groupOffsets(topic).getOrDefault(0, -1L);
    } catch (Exception e) {
      return -1;
    }
  }

  static void assertNoDuplicatePositions(List<Map<String, Object>> rows) {
    Set<String> seen = new HashSet<>();
    for (Map<String, Object> r : rows) {
      assertTrue(seen.add(r.get("__partition") + "/" + r.get("__offset")), "duplicate position " + r);
    }
  }

  private static Map<String, String> state(List<Map<String, Object>> rows) {
    Map<String, String> m = new TreeMap<>();
    rows.forEach(r -> m.put(String.valueOf(r.get("id")), String.valueOf(r.get("name"))));
    return m;
  }

  static String envelope(String op, long id, String name, long ts) {
    String image = "{\"id\":" + id + ",\"name\":\"" + name + "\",\"qty\":" + (id * 3) + "}";
    String before = op.equals("d") ? image : "null";
    String after = op.equals("d") ? "null" : image;
    return "{\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"ts_ms\":" + ts + ",\"db\":\"shop\"},\"op\":\"" + op + "\",\"ts_ms\":" + (ts + 5) + "}";
  }

  static String flattened(String op, long id, String name, long ts) {
    return "{\"id\":" + id + ",\"name\":\"" + name + "\",\"qty\":" + (id * 3) + ",\"__op\":\"" + op + "\",\"__ts_ms\":" + (ts + 5)
        + ",\"__source_ts_ms\":" + ts + ",\"__deleted\":\"" + op.equals("d") + "\"}";
  }

  /**
   * Random changes to 25 keys; each key always goes to the same partition and its source
   * timestamps never decrease (some repeat), so the last change sent per key is its current
   * state: an independent model of what the view must compute.
   */
  static Map<String, String> randomStream(KafkaProducer<byte[], byte[]> producer, String topic, boolean flat, Random random) {
    Map<Long, String> current = new HashMap<>();
    Map<Long, Long> clock = new HashMap<>();
    for (int i = 0; i < 400; i++) {
      long id = random.nextInt(25);
      long ts = clock.merge(id, random.nextInt(3) == 0 ? 0L : 1L + random.nextInt(5), Long::sum) + 1_000_000L;
      String op;
      if (!current.containsKey(id)) {
        op = random.nextBoolean() ? "c" : "r";
      } else {
        op = random.nextInt(5) == 0 ? "d" : "u";
      }
      String name = "v" + i;
      String key = "{\"id\":" + id + "}";
      int partition = (int) (id % 3);
      if (op.equals("d")) {
        name = current.get(id);
        current.remove(id);
      } else {
        current.put(id, name);
      }
      SharedKafka.send(producer, topic, partition, key, flat ? flattened(op, id, name, ts) : envelope(op, id, name, ts));
      if (op.equals("d") && !flat) {
        SharedKafka.send(producer, topic, partition, key, null);
      }
    }
    Map<String, String> expected = new TreeMap<>();
    current.forEach((k, v) -> expected.put(String.valueOf(k), v));
    return expected;
  }
}
