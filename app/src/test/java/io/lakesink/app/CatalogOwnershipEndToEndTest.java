package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.error.ConfigurationException;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner a table records decides what the worker does with its catalog entry: a real Kafka
 * broker, real Delta tables, the in-process Databricks fake.
 */
@Timeout(300)
class CatalogOwnershipEndToEndTest {
  @TempDir Path data;

  WorkerHarness harness(String topic) {
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    return w;
  }

  static String catalogYaml(FakeDatabricks fake, String schema) {
    return UnityCatalogEndToEndTest.catalogYaml(fake).replace("schema: bronze", "schema: " + schema);
  }

  static WorkerConfig config(WorkerHarness w, FakeDatabricks fake, String schema) {
    return new ConfigLoader(n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(w.yaml() + catalogYaml(fake, schema), "test");
  }

  static WorkerResult run(WorkerConfig config) {
    try (var storage = Pipeline.storage(config.storage());
        var worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      return worker.run(true);
    }
  }

  static void send(String topic, int from, int to) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = from; i < to; i++) SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(i, "int64", String.valueOf(i)));
      p.flush();
    }
  }

  @Test
  void anEntryAnOperatorRemovedIsReportedWithTheCommandThatRestoresItNotCreatedAgain() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("own-removed", 1);
      send(topic, 0, 5);
      WorkerHarness w = harness(topic);
      WorkerResult first = run(config(w, fake, "bronze"));
      assertTrue(first.allDelivering(), first.states().toString());
      assertNotNull(fake.table("main.bronze.stock_APPEND"));
      TableOwner owner = TableOwner.of(w.table("stock").properties()).orElseThrow();
      assertEquals(TableOwner.State.REGISTERED, owner.state());
      assertEquals("main.bronze.stock_APPEND", owner.entry());

      fake.removeTable("main.bronze.stock_APPEND"); // an operator drops the external table: the files stay
      send(topic, 5, 10);
      WorkerResult second = run(config(w, fake, "bronze"));
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, second.states().get("stock_APPEND"));
      assertTrue(d.reason().contains("bin/lakesink register --config"), d.reason());
      assertNull(fake.table("main.bronze.stock_APPEND"), "the entry was not created again");
      assertEquals(1, fake.count("POST", "/api/2.1/unity-catalog/tables"));
      assertEquals(10, w.rows("stock").size(), "the data kept flowing");
    }
  }

  @Test
  void aRenamedSchemaRefusesToStartWithTheHandOffCommandAndNeverRegistersASecondEntry() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      fake.addSchema("main", "silver");
      String topic = SharedKafka.newTopic("own-renamed", 1);
      send(topic, 0, 5);
      WorkerHarness w = harness(topic);
      assertTrue(run(config(w, fake, "bronze")).allDelivering());

      WorkerConfig renamed = config(w, fake, "silver");
      Path file = data.resolve("lakesink.yaml");
      ConfigurationException e;
      try (TableStorage storage = Pipeline.storage(renamed.storage()); Catalogs catalogs = Catalogs.of(renamed, storage)) {
        e = assertThrows(ConfigurationException.class, () -> RenamedTargets.refuse(renamed, storage, catalogs, file));
      }
      assertTrue(e.getMessage().contains("`bin/lakesink handoff --config " + file
          + " --table stock_APPEND --to default.main.silver.stock_APPEND`"), e.getMessage());
      assertTrue(e.getMessage().contains("default:main.bronze.stock_APPEND"), e.getMessage());

      // A worker started without that check (a Kafka Connect task) stops the table instead.
      send(topic, 5, 7);
      WorkerResult result = run(renamed);
      DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("stock_APPEND"));
      assertTrue(q.record().reason().contains("owned by catalog entry default:main.bronze.stock_APPEND"), q.record().reason());
      assertNull(fake.table("main.silver.stock_APPEND"), "never a second entry for the same location");
      assertNotNull(fake.table("main.bronze.stock_APPEND"));
      assertEquals(5, w.rows("stock").size(), "nothing written under the new name");
    }
  }
}
