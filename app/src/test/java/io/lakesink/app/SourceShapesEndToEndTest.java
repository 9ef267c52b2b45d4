package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event shapes beyond inserts, updates and deletes, through a real broker and worker: a truncate
 * in both modes (the case: the source holds [3, 101, 102]), and events lakesink does not
 * understand, which quarantine their table only, naming the position and what was not understood.
 */
@Timeout(300)
class SourceShapesEndToEndTest {
  @TempDir Path data;

  /** Debezium's truncate as its documentation shows it: no before, no after. */
  static String truncate(long ts) {
    return "{\"source\":{\"ts_ms\":" + ts + ",\"db\":\"shop\",\"table\":\"t\"},\"op\":\"t\",\"ts_ms\":" + (ts + 5) + "}";
  }

  private static void insertsTruncateInserts(String topic) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (long id = 1; id <= 8; id++) {
        SharedKafka.send(p, topic, 0, "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope("c", id, "before", 1000 + id));
      }
      SharedKafka.send(p, topic, 0, null, truncate(2000));
      SharedKafka.send(p, topic, 0, "{\"id\":3}", ChangelogEndToEndTest.envelope("c", 3, "again", 2001));
      SharedKafka.send(p, topic, 0, "{\"id\":101}", ChangelogEndToEndTest.envelope("c", 101, "new", 2002));
      SharedKafka.send(p, topic, 0, "{\"id\":102}", ChangelogEndToEndTest.envelope("c", 102, "new", 2003));
      p.flush();
    }
  }

  @Test
  void afterATruncateBothModesHoldWhatTheSourceHolds() {
    String changelog = SharedKafka.newTopic("truncate-changelog", 1);
    String merged = SharedKafka.newTopic("truncate-merge", 1);
    insertsTruncateInserts(changelog);
    insertsTruncateInserts(merged);
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + changelog + ", table: log, primary_key: [id]}")
        .subscribe("- {topic: " + merged + ", table: merged, mode: merge, primary_key: [id]}");
    assertEquals(Main.OK, w.runToEnd());

    List<Map<String, Object>> log = w.rows("log");
    assertEquals(12, log.size(), "every change and the truncate are in the changelog");
    assertEquals(List.of(3L, 101L, 102L), ids(CurrentState.collapse(log, List.of("id"), false)));
    assertEquals(List.of(3L, 101L, 102L), ids(w.rows("merged")));
    assertEquals(Map.of(new SourcePartition(merged, 0), 12L), w.storedOffsets("merged", merged, 1));
  }

  @Test
  void eventsOfAShapeNotUnderstoodQuarantineTheirTableWithThePosition() {
    String noImage = SharedKafka.newTopic("no-image", 1);
    String unknownOp = SharedKafka.newTopic("unknown-op", 1);
    String fine = SharedKafka.newTopic("fine", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, noImage, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("c", 1, "a", 1));
      SharedKafka.send(p, noImage, 0, "{\"id\":2}", "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":2},\"op\":\"u\"}");
      SharedKafka.send(p, unknownOp, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("c", 1, "a", 1));
      SharedKafka.send(p, unknownOp, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("c", 1, "a", 1));
      SharedKafka.send(p, unknownOp, 0, "{\"id\":2}", ChangelogEndToEndTest.envelope("c", 2, "b", 2).replace("\"op\":\"c\"", "\"op\":\"x\""));
      for (long id = 0; id < 3; id++) {
        SharedKafka.send(p, fine, 0, "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope("c", id, "f", id));
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + noImage + ", table: no_image}")
        .subscribe("- {topic: " + unknownOp + ", table: unknown_op, mode: merge, primary_key: [id]}")
        .subscribe("- {topic: " + fine + ", table: fine}");
    WorkerResult result = w.runForResult();

    String reason = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("no_image_APPEND")).record().reason();
    assertTrue(reason.contains("topic " + noImage + ", partition 0, offset 1") && reason.contains("a 'u' event without an 'after' image"),
        reason);
    reason = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("unknown_op")).record().reason();
    assertTrue(reason.contains("offset 2") && reason.contains("the unknown operation 'x' (expected c, u, d, r or t)"), reason);
    QuarantineStore store = new QuarantineStore(Pipeline.storage(w.config().storage()));
    assertEquals(1L, store.load("no_image_APPEND").orElseThrow().offset(), "the position is recorded");
    assertEquals(2L, store.load("unknown_op").orElseThrow().offset());
    assertTrue(w.storedOffsets("no_image", noImage, 1).getOrDefault(new SourcePartition(noImage, 0), 0L) <= 1,
        "offsets frozen: nothing past the event is committed");
    assertTrue(w.storedOffsets("unknown_op", unknownOp, 1).getOrDefault(new SourcePartition(unknownOp, 0), 0L) <= 2);
    assertTrue(result.states().get("fine_APPEND").delivering());
    assertEquals(3, w.rows("fine").size(), "the other table kept flowing");
  }

  /** A typed envelope whose 'amount' column carries the given semantic name (JSON with schemas). */
  private static String typed(long id, String semanticName) {
    return """
        {"schema":{"type":"struct","name":"db.shop.t.Envelope","fields":[
          {"field":"after","type":"struct","optional":true,"fields":[
            {"field":"id","type":"int64"},{"field":"amount","type":"int64","optional":true,"name":"%s"}]},
          {"field":"source","type":"struct","fields":[{"field":"ts_ms","type":"int64"}]},{"field":"op","type":"string"}]},
         "payload":{"after":{"id":%d,"amount":5},"source":{"ts_ms":%d},"op":"c"}}""".formatted(semanticName, id, id);
  }

  /** Debezium's MongoDB envelope: the document as extended-JSON text. */
  private static String mongo(String op, String after, String updateDescription) {
    return "{\"after\":" + (after == null ? "null" : "\"" + after.replace("\"", "\\\"") + "\"")
        + ",\"updateDescription\":" + updateDescription
        + ",\"source\":{\"connector\":\"mongodb\",\"ts_ms\":1,\"db\":\"inventory\",\"collection\":\"orders\"},\"op\":\"" + op + "\"}";
  }

  @Test
  void connectorEventsNotUnderstoodQuarantineTheirTableWithThePosition() {
    String unknownType = SharedKafka.newTopic("unknown-type", 1);
    String mongoPartial = SharedKafka.newTopic("mongo-partial", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, unknownType, 0, "{\"id\":1}", typed(1, "io.debezium.time.MicroTimestamp"));
      SharedKafka.send(p, unknownType, 0, "{\"id\":2}", typed(2, "io.debezium.time.PicoTimestamp"));
      String key = "{\"id\":\"{\\\"$oid\\\": \\\"65f1c0a2b3d4e5f601234567\\\"}\"}";
      SharedKafka.send(p, mongoPartial, 0, key, mongo("c", "{\"_id\": {\"$oid\": \"65f1c0a2b3d4e5f601234567\"}, \"qty\": 5}", "null"));
      SharedKafka.send(p, mongoPartial, 0, key, mongo("u", null, "{\"removedFields\":null,\"updatedFields\":\"{\\\"qty\\\": 6}\"}"));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + unknownType + ", table: unknown_type}")
        .subscribe("- {topic: " + mongoPartial + ", table: mongo_partial, mode: merge}");
    WorkerResult result = w.runForResult();

    String reason = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("unknown_type_APPEND")).record().reason();
    assertTrue(reason.contains("offset 1") && reason.contains("column amount") && reason.contains("io.debezium.time.PicoTimestamp"), reason);
    reason = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("mongo_partial")).record().reason();
    assertTrue(reason.contains("offset 1") && reason.contains("capture.mode=change_streams_update_full"), reason);
    assertTrue(w.storedOffsets("mongo_partial", mongoPartial, 1).getOrDefault(new SourcePartition(mongoPartial, 0), 0L) <= 1,
        "offsets frozen: the update is not skipped");
  }

  private static List<Long> ids(List<Map<String, Object>> rows) {
    TreeSet<Long> ids = new TreeSet<>();
    rows.forEach(r -> ids.add(Long.parseLong(String.valueOf(r.get("id"))))); // schemaless JSON: text
    return List.copyOf(ids);
  }
}
