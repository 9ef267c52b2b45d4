package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.storage.azure.AzureClientOptions;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Changelog delivery with {@code storage.type: azure}, on a real Azurite. */
@Timeout(600)
@ExtendWith(AzuriteExtension.class)
class AzureEndToEndTest {
  @TempDir Path data;

  @Test
  void changelogOnAzureStorageReadsBackRowForRow(Azurite azurite) throws Exception {
    String container = azurite.createContainer();
    String topic = SharedKafka.newTopic("azure-orders", DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(SharedKafka.bootstrap(), topic);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: orders, primary_key: [id]}");
    w.storage = "  type: azure\n  container: " + container + "\n  connection_string: \"" + azurite.connectionString() + "\"\n  allow_insecure_http: true\n";

    assertEquals(Main.OK, w.runToEnd());

    assertEquals("abfss://" + container + "@devstoreaccount1.dfs.core.windows.net/lakesink/orders_APPEND", w.table("orders").location());
    List<Map<String, Object>> rows = w.rows("orders");
    assertEquals(DemoChangeStream.changes().size(), rows.size());
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    Map<Long, String> status = new TreeMap<>();
    CurrentState.collapse(rows, List.of("id"), true).forEach(r -> status.put((Long) r.get("id"), (String) r.get("status")));
    assertEquals(Map.of(1L, "shipped", 2L, "cancelled", 4L, "pending", 5L, "pending", 6L, "pending"), status);
    assertTrue(azurite.serviceClient().getBlobContainerClient(container)
        .getBlobClient("lakesink/orders_APPEND/_delta_log/00000000000000000000.json").exists());
  }

  @Test
  void azuriteStoppedMidRunThenBackLosesAndDuplicatesNothing() throws Exception {
    try (Azurite azurite = Azurite.start()) {
      String container = azurite.createContainer();
      String topic = SharedKafka.newTopic("azure-fault", 2);
      try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
        for (int i = 0; i < 60; i++) {
          SharedKafka.send(producer, topic, i % 2, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "n" + i, 1000 + i));
        }
        producer.flush();
      }
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
      w.storage = "  type: azure\n  container: " + container + "\n  connection_string: \"" + azurite.connectionString() + "\"\n  allow_insecure_http: true\n";
      w.delivery = "  flush_interval: 1s\n  flush_rows: 10\n";
      w.kafkaExtra = "  properties:\n    max.poll.records: \"6\"\n";
      // Short SDK retries, so the outage outlasts them and the worker's own retries take over.
      AzureStorage storage = AzureStorage.create(
          AzureStorageSettings.fromConfig(w.config().storage().settings()),
          AzureClientOptions.defaults().withRetries(2, Duration.ofMillis(50), Duration.ofMillis(200)).withTryTimeout(Duration.ofSeconds(5)));

      // Azurite goes away just before the first commit, and comes back when the worker next
      // starts writing, after its retries for that commit ran out (they fail re-reading the log,
      // before any write). The first commit, not a later one: it is written on a writer thread
      // while the poll thread reads on, and a flush written beside polling takes everything read
      // while the previous one was in flight, so the 60 events may take only two commits, the
      // second one the final flush (an outage there is exit code 6, not this test's case).
      // Whether the loop or the final flush retries the failed batch, it is written once.
      AtomicInteger commits = new AtomicInteger();
      AtomicBoolean down = new AtomicBoolean();
      AtomicInteger outageWrites = new AtomicInteger();
      FlushHook outage = (table, step) -> {
        if (step == FlushStep.BEFORE_COMMIT && commits.incrementAndGet() == 1) {
          azurite.stop();
          down.set(true);
        } else if (step == FlushStep.BEFORE_WRITE && down.get() && outageWrites.incrementAndGet() == 1) {
          azurite.restart();
          down.set(false);
        }
      };

      assertEquals(Main.OK, Commands.run(w.config(), storage, true, outage));

      assertTrue(outageWrites.get() >= 1, "the worker tried again after the flush that met the outage");
      List<Map<String, Object>> rows = io.lakesink.delta.DeltaTableReader.readAll(
          Pipeline.table(storage, io.lakesink.delta.KernelEngine.create(storage), w.subscription("t")));
      ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
      Set<Long> ids = new TreeSet<>();
      rows.forEach(r -> ids.add(Long.parseLong((String) r.get("id"))));
      assertEquals(60, ids.size(), "every event exactly once");
    }
  }
}
