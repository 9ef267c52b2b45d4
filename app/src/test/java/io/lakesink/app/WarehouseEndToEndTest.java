package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.kafka.WorkerResult;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A worker with catalog.warehouse_id builds the current-state view (issue 12), against the fake workspace. */
@Timeout(300)
class WarehouseEndToEndTest {
  @TempDir Path data;

  WorkerResult run(WorkerHarness w, FakeDatabricks fake, String catalogExtra) {
    var config = new io.lakesink.app.config.ConfigLoader(
            n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(w.yaml() + UnityCatalogEndToEndTest.catalogYaml(fake) + catalogExtra, "test");
    try (var storage = Pipeline.storage(config.storage());
        var worker = Pipeline.worker(config, storage, io.lakesink.delivery.FlushHook.NONE, java.time.Clock.systemUTC())) {
      return worker.run(true);
    }
  }

  private static String warehouse() {
    return "  warehouse_id: " + FakeDatabricks.WAREHOUSE_ID + "\n";
  }

  @Test
  void theViewIsBuiltAtFirstDeliveryAndRebuiltWhenTheChangelogGainsAColumn() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("wh", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        for (int i = 0; i < 3; i++) SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(i, "int64", String.valueOf(i)));
        p.flush();
      }
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      WorkerResult first = run(w, fake, warehouse());
      assertTrue(first.allDelivering(), first.states().toString());
      assertInstanceOf(DeliveryState.Healthy.class, first.states().get("stock_APPEND"));
      assertEquals("VIEW", fake.table("main.bronze.stock").path("table_type").asText());
      assertTrue(fake.table("main.bronze.stock").path("comment").asText()
          .startsWith("lakesink-current-state:v1 changelog=`main`.`bronze`.`stock_APPEND`"));
      assertEquals(1, fake.statements().size(), fake.statements().toString());

      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        p.send(new ProducerRecord<>(topic, 0, null, ("{\"schema\":{\"type\":\"struct\",\"fields\":["
            + "{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"qty\"},{\"type\":\"string\",\"optional\":true,\"field\":\"note\"}]},"
            + "{\"type\":\"string\",\"field\":\"op\"}]},\"payload\":{\"after\":{\"id\":10,\"qty\":1,\"note\":\"new\"},\"op\":\"c\"}}").getBytes()));
        p.flush();
      }
      WorkerResult second = run(w, fake, warehouse());
      assertTrue(second.allDelivering(), second.states().toString());
      long creates = fake.statements().stream().filter(s -> s.startsWith("CREATE OR REPLACE VIEW `main`.`bronze`.`stock`")).count();
      assertEquals(2, creates, "rebuilt once for the new column: " + fake.statements());
    }
  }

  @Test
  void anObjectThatIsNotOursDegradesTheTableWithTheAdviceAndTheNextAttemptWhileDataFlows() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("wh-owned", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(1, "int64", "1"));
        p.flush();
      }
      fake.putTable("main.bronze.stock", "MANAGED", "abfss://x@y.dfs.core.windows.net/managed/stock", "id", "bigint");
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      WorkerResult result = run(w, fake, warehouse());
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, result.states().get("stock_APPEND"));
      assertTrue(d.reason().contains("a MANAGED main.bronze.stock that lakesink did not build"), d.reason());
      assertTrue(d.reason().contains("rename or drop it, or point the subscription's view to another schema"), d.reason());
      assertTrue(d.reason().contains("(attempt 1 failed; next attempt at "), d.reason());
      assertEquals("MANAGED", fake.table("main.bronze.stock").path("table_type").asText(), "left untouched");
      assertEquals(1, w.rows("stock").size(), "the changelog was written anyway");
    }
  }

  @Test
  void withoutPrimaryKeyTheViewIsKeyedOnTheRecordKeyAsMergeIs() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("wh-keyless", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        for (int i = 0; i < 4; i++) {
          SharedKafka.send(p, topic, 0, "{\"id\":" + (i % 2) + "}", ChangelogEndToEndTest.envelope("u", i % 2, "v" + i, 1000 + i));
        }
        p.flush();
      }
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock}");
      WorkerResult result = run(w, fake, warehouse());
      assertTrue(result.allDelivering(), result.states().toString());
      String view = fake.table("main.bronze.stock").path("view_definition").asText();
      assertTrue(view.contains("PARTITION BY `id`"), "deduplicated on the record key's field: " + view);
    }
  }
}
