package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A table that cannot take a record is quarantined durably, alone, until its cause changes. */
@Timeout(300)
class QuarantineEndToEndTest {
  @TempDir Path data;

  static String typed(long id, String qtyType, String qtyJson) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":["
        + "{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"},{\"type\":\"" + qtyType + "\",\"optional\":true,\"field\":\"qty\"}]},"
        + "{\"type\":\"string\",\"field\":\"op\"}]},"
        + "\"payload\":{\"after\":{\"id\":" + id + ",\"qty\":" + qtyJson + "},\"op\":\"c\"}}";
  }

  @Test
  void quarantineSurvivesRestartsAndIsReleasedWhenTheSubscriptionChanges() throws Exception {
    String topic = SharedKafka.newTopic("typed", 1);
    String other = SharedKafka.newTopic("other", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 10; i++) SharedKafka.send(p, topic, 0, null, typed(i, "int64", String.valueOf(i)));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: stock}")
        .subscribe("- {topic: " + other + ", table: other}");
    assertEquals(Main.OK, w.runToEnd());
    assertEquals(10, w.rows("stock").size());

    // The source starts sending qty as text: the bigint column cannot take "lots".
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, topic, 0, null, typed(10, "string", "\"lots\""));
      for (int i = 11; i < 15; i++) SharedKafka.send(p, topic, 0, null, typed(i, "int64", String.valueOf(i)));
      for (int i = 0; i < 5; i++) SharedKafka.send(p, other, 0, null, ChangelogEndToEndTest.envelope("c", i, "o", i));
      p.flush();
    }
    WorkerResult second = w.runForResult();
    DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, second.states().get("stock_APPEND"));
    assertTrue(q.record().reason().contains("Column qty") && q.record().reason().contains("offset 10"), q.record().reason());
    assertEquals(5, w.rows("other").size(), "the other table kept flowing");
    assertEquals(10, w.rows("stock").size());
    QuarantineRecord saved = new QuarantineStore(Pipeline.storage(w.config().storage())).load("stock_APPEND").orElseThrow();
    assertEquals(topic, saved.topic());
    assertEquals(10L, saved.offset());

    // A restart does not clear it, and nothing is consumed for it, even new records.
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, topic, 0, null, typed(15, "int64", "15"));
      p.flush();
    }
    WorkerResult third = w.runForResult();
    assertInstanceOf(DeliveryState.Quarantined.class, third.states().get("stock_APPEND"));
    assertEquals(10, w.rows("stock").size());
    assertEquals(Map.of(new SourcePartition(topic, 0), 10L), w.storedOffsets("stock", topic, 1), "offsets frozen");
    assertEquals(10L, w.groupOffsets(topic).get(0));

    // The operator maps qty to a text column: the subscription changed, so the table is released
    // and the retained events are delivered, exactly once.
    WorkerHarness fixed = new WorkerHarness(data);
    fixed.subscribe("- {topic: " + topic + ", table: stock, columns: [id, {source: qty, name: qty_text, cast: string}]}")
        .subscribe("- {topic: " + other + ", table: other}");
    WorkerResult fourth = fixed.runForResult();
    assertTrue(fourth.states().get("stock_APPEND").delivering());
    List<Map<String, Object>> rows = fixed.rows("stock");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    Set<Long> offsets = new TreeSet<>();
    rows.forEach(r -> offsets.add((Long) r.get("__offset")));
    assertEquals(16, offsets.size());
    assertEquals("lots", rows.stream().filter(r -> r.get("__offset").equals(10L)).findFirst().orElseThrow().get("qty_text"));
    assertTrue(new QuarantineStore(Pipeline.storage(fixed.config().storage())).list().isEmpty());
  }

  @Test
  void anOperatorReleasesATableExplicitly() throws Exception {
    String topic = SharedKafka.newTopic("poison", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", 1, "a", 1));
      SharedKafka.send(p, topic, 0, null, "{broken");
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: p}");
    assertEquals(Main.TABLES_FAILED, w.runToEnd());
    Path config = data.resolve("lakesink.yaml");
    java.nio.file.Files.writeString(config, w.yaml());

    CommandLineTest.Output list = CommandLineTest.run("quarantine", "list", "--config", config.toString());
    assertEquals(Main.OK, list.exit());
    assertTrue(list.out().contains("p_APPEND") && list.out().contains("offset 1"), list.out());

    CommandLineTest.Output release = CommandLineTest.run("quarantine", "release", "--config", config.toString(), "--table", "p");
    assertEquals(Main.OK, release.exit(), release.err());
    assertTrue(release.out().contains("Released p_APPEND"), release.out());
    assertTrue(CommandLineTest.run("quarantine", "list", "--config", config.toString()).out().contains("No table is quarantined"));
    // The cause is still there: the next run meets the same record and quarantines again.
    assertEquals(Main.TABLES_FAILED, w.runToEnd());
  }
}
