package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.kafka.WorkerResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Delivery with {@code catalog.type: unity} against an in-process fake Databricks workspace. */
@Timeout(300)
class UnityCatalogEndToEndTest {
  @TempDir Path data;

  WorkerHarness harness(FakeDatabricks fake, String topic) {
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
    w.kafkaExtra = "  properties:\n    max.poll.records: \"5\"\n";
    w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    return w;
  }

  static String catalogYaml(FakeDatabricks fake) {
    return "catalog:\n  type: unity\n  workspace_url: " + fake.url() + "\n  client_id: " + FakeDatabricks.CLIENT_ID
        + "\n  client_secret: ${env:DATABRICKS_CLIENT_SECRET}\n  catalog: main\n  schema: bronze\n";
  }

  WorkerResult run(WorkerHarness w, FakeDatabricks fake) {
    var config = new io.lakesink.app.config.ConfigLoader(
            n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(w.yaml() + catalogYaml(fake), "test");
    try (var storage = Pipeline.storage(config.storage());
        var worker = Pipeline.worker(config, storage, io.lakesink.delivery.FlushHook.NONE, java.time.Clock.systemUTC())) {
      return worker.run(true);
    }
  }

  static List<String> columns(JsonNode table) {
    List<String> names = new ArrayList<>();
    table.path("columns").forEach(c -> names.add(c.path("name").asText() + ":" + c.path("type_text").asText()));
    return names;
  }

  @Test
  void registersOnceReRegistersAfterSchemaEvolutionSurvivesThrottlingAndLeaksNoSecret() throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    List<String> tokens = new ArrayList<>();
    String statusJson;
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("uc", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        for (int i = 0; i < 10; i++) SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(i, "int64", String.valueOf(i)));
        p.flush();
      }
      WorkerHarness w = harness(fake, topic);
      fake.throttle(3, "1"); // a burst of 429s, each asking to wait a second
      WorkerResult first = run(w, fake);
      assertTrue(first.allDelivering(), first.states().toString());

      JsonNode table = fake.table("main.bronze.stock_APPEND");
      assertEquals("EXTERNAL", table.path("table_type").asText());
      assertEquals("DELTA", table.path("data_source_format").asText());
      assertEquals(w.table("stock").location(), table.path("storage_location").asText());
      assertEquals(List.of("id:bigint", "qty:bigint", "__op:string", "__deleted:boolean", "__ts_ms:bigint",
          "__partition:int", "__offset:bigint", "__ingest_date:date"), columns(table));
      assertEquals(1, fake.count("POST", "/api/2.1/unity-catalog/tables"), "registered once although it was committed twice");

      // The source gains a column: the registration is brought up to date (delete + create).
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        p.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, ("{\"schema\":{\"type\":\"struct\",\"fields\":["
            + "{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"qty\"},{\"type\":\"string\",\"optional\":true,\"field\":\"note\"}]},"
            + "{\"type\":\"string\",\"field\":\"op\"}]},\"payload\":{\"after\":{\"id\":10,\"qty\":1,\"note\":\"new\"},\"op\":\"c\"}}").getBytes()));
        p.flush();
      }
      WorkerResult second = run(w, fake);
      assertTrue(second.allDelivering(), second.states().toString());
      List<String> evolved = columns(fake.table("main.bronze.stock_APPEND"));
      assertEquals("note:string", evolved.get(evolved.size() - 1));
      assertEquals(2, fake.count("POST", "/api/2.1/unity-catalog/tables"));
      assertEquals(1, fake.count("DELETE", "/api/2.1/unity-catalog/tables"));
      tokens.addAll(fake.issuedTokens());
      statusJson = second.states().toString();
    } finally {
      System.setErr(err);
    }
    String logs = captured.toString(StandardCharsets.UTF_8);
    assertTrue(logs.contains("stock_APPEND"), "the run was logged");
    assertFalse(logs.contains(FakeDatabricks.CLIENT_SECRET), "the client secret never appears in logs");
    assertFalse(logs.contains("Bearer"), "no access token in logs");
    assertFalse(tokens.isEmpty());
    for (String token : tokens) {
      assertFalse(logs.contains(token), "an access token appeared in the logs");
      assertFalse(statusJson.contains(token));
    }
  }

  @Test
  void aCatalogEntryThatIsNotOursQuarantinesTheTableAndAMissingGrantOnlyDegradesIt() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("uc-other", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(1, "int64", "1"));
        p.flush();
      }
      fake.putTable("main.bronze.stock_APPEND", "VIEW", null, "id", "bigint");
      WorkerResult result = run(harness(fake, topic), fake);
      DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("stock_APPEND"));
      assertTrue(q.record().reason().contains("VIEW"), q.record().reason());
    }
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("uc-denied", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(1, "int64", "1"));
        p.flush();
      }
      fake.revoke("schema", "main.bronze", "CREATE_EXTERNAL_TABLE");
      WorkerHarness w = new WorkerHarness(data.resolve("denied")).subscribe("- {topic: " + topic + ", table: stock}");
      WorkerResult result = run(w, fake);
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, result.states().get("stock_APPEND"));
      assertTrue(d.reason().contains("GRANT CREATE EXTERNAL TABLE"), d.reason());
      assertEquals(1, w.rows("stock").size(), "the data was written anyway");
    }
  }
}
