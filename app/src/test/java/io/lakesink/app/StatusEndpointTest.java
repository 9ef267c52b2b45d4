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
import io.lakesink.quarantine.QuarantineStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** /health, /status and /metrics, scraped from a worker that has one good and one poisoned table. */
@Timeout(300)
class StatusEndpointTest {
  @TempDir Path data;

  static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void reportsStatesCountersAndLag() throws Exception {
    String good = SharedKafka.newTopic("st-good", 2);
    String bad = SharedKafka.newTopic("st-bad", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 12; i++) SharedKafka.send(p, good, i % 2, null, ChangelogEndToEndTest.envelope("c", i, "g", i));
      SharedKafka.send(p, bad, 0, null, ChangelogEndToEndTest.envelope("c", 1, "b", 1));
      SharedKafka.send(p, bad, 0, null, "garbage");
      SharedKafka.send(p, bad, 0, null, ChangelogEndToEndTest.envelope("c", 2, "b", 2));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + good + ", table: good}")
        .subscribe("- {topic: " + bad + ", table: bad}");
    var config = w.config();
    try (var storage = Pipeline.storage(config.storage())) {
      KafkaWorker[] holder = new KafkaWorker[1];
      WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
      DeliveryContext context = DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withMetrics(metrics);
      try (KafkaWorker worker = Pipeline.worker(config, storage, context);
          StatusServer server = StatusServer.start("127.0.0.1", 0, worker::status, metrics)) {
        holder[0] = worker;
        assertEquals(200, get(server.port(), "/health").statusCode());
        worker.run(true);

        JsonNode status = new ObjectMapper().readTree(get(server.port(), "/status").body());
        JsonNode goodStatus = status.path("subscriptions").get(0);
        JsonNode badStatus = status.path("subscriptions").get(1);
        assertEquals("good_APPEND", goodStatus.path("table").asText());
        assertEquals("healthy", goodStatus.path("state").asText());
        assertEquals("changelog", goodStatus.path("mode").asText());
        assertEquals(12, goodStatus.path("rows_delivered").asLong());
        assertTrue(goodStatus.path("last_commit_version").asLong() >= 1);
        assertTrue(goodStatus.hasNonNull("last_commit_at"));
        assertEquals(0, goodStatus.path("lag").path("0").asLong());
        assertEquals("quarantined", badStatus.path("state").asText());
        assertTrue(badStatus.path("reason").asText().contains("offset 1"), badStatus.toString());

        String prometheus = get(server.port(), "/metrics").body();
        assertTrue(prometheus.contains("lakesink_events_delivered_total{table=\"good_APPEND\"} 12.0"), prometheus);
        assertTrue(prometheus.contains("lakesink_tables_quarantined 1.0"), prometheus);
        assertTrue(prometheus.contains("lakesink_table_state{state=\"quarantined\",table=\"bad_APPEND\"} 1.0"), prometheus);
        assertTrue(prometheus.contains("lakesink_errors_total{kind=\"table_failure\",table=\"bad_APPEND\"} 1.0"), prometheus);
        assertTrue(prometheus.contains("lakesink_commit_latency_seconds_count{table=\"good_APPEND\"}"), prometheus);
        assertTrue(prometheus.contains("lakesink_consumer_lag{partition=\"0\",table=\"good_APPEND\"} 0.0"), prometheus);
        assertTrue(prometheus.contains("lakesink_events_consumed{table=\"bad_APPEND\"}"), prometheus);
      }
    }
  }
}
