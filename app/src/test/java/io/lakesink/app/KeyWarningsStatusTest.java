package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.app.status.StatusServer;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A MERGE subscription whose declared key is wrong: the worker says so in /status, with what to change. */
@Timeout(300)
class KeyWarningsStatusTest {
  @TempDir Path data;

  @Test
  void aConstantKeyColumnIsShownInStatus() throws Exception {
    String topic = SharedKafka.newTopic("kw", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 150; i++) {
        SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", i, "same", i));
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: kw, mode: merge, primary_key: [name, id]}");
    w.delivery = "  flush_interval: 10m\n  flush_rows: 50\n";
    w.kafkaExtra = "  properties: {max.poll.records: 10}\n";
    var config = w.config();
    // The table is looked at after every commit, on the loop's own thread, so the run sees it.
    MaintenancePolicy eager = new MaintenancePolicy(true, new MaintenanceSettings(128L << 20, 100, 1_000, 10, 1), Runnable::run);
    try (var storage = Pipeline.storage(config.storage())) {
      KafkaWorker[] holder = new KafkaWorker[1];
      WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
      DeliveryContext context =
          DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withMetrics(metrics).withMaintenance(eager);
      try (KafkaWorker worker = Pipeline.worker(config, storage, context);
          StatusServer server = StatusServer.start("127.0.0.1", 0, worker::status, metrics)) {
        holder[0] = worker;
        assertTrue(worker.run(true).allDelivering());

        JsonNode table = new ObjectMapper().readTree(StatusEndpointTest.get(server.port(), "/status").body())
            .path("subscriptions").get(0);
        assertEquals(1, table.path("warnings").size(), table.toString());
        String warning = table.path("warnings").get(0).asText();
        assertTrue(warning.contains("Key column 'name' of kw holds the same value (same)"), warning);
        assertTrue(warning.contains("Fix primary_key on the subscription"), warning);
        // What maintenance knows of the table, beside the warnings: its files, and no give-up.
        assertTrue(table.path("files").asInt() >= 1, table.toString());
        assertEquals(0, table.path("optimize_gave_up_in_a_row").asInt(-1), table.toString());
        String scraped = StatusEndpointTest.get(server.port(), "/metrics").body();
        assertTrue(scraped.contains("lakesink_table_files{table=\"kw\"} " + table.path("files").asInt() + ".0"), scraped);
        assertTrue(scraped.contains("lakesink_optimize_gave_up_in_a_row{table=\"kw\"} 0.0"), scraped);
      }
    }
  }
}
