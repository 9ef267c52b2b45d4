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
        // 13 small events never fill the default budget: reading never waited for it.
        assertTrue(prometheus.contains("lakesink_buffers_full_seconds_total 0.0"), prometheus);
        assertEquals(0.0, status.path("buffers_full_seconds").asDouble(-1));
      }
    }
  }

  /** The JDK server reads headers on an executor thread: one half-sent request must not block the probes. */
  @Test
  void aClientThatNeverFinishesItsRequestDoesNotBlockHealth() throws Exception {
    WorkerMetrics metrics = new WorkerMetrics(() -> WorkerStatus.STARTING);
    try (StatusServer server = StatusServer.start("127.0.0.1", 0, () -> WorkerStatus.STARTING, metrics);
        java.net.Socket slow = new java.net.Socket("127.0.0.1", server.port())) {
      slow.getOutputStream().write("GET /status HTTP/1.1\r\nHost: lakesink\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      slow.getOutputStream().flush(); // ...and never the blank line that ends the headers
      HttpResponse<String> health = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
              .timeout(java.time.Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
    }
  }

  @Test
  void readyOnceReadingAndNotWhenEveryTableIsQuarantined() throws Exception {
    String topic = SharedKafka.newTopic("st-ready", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", 1, "a", 1));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    var config = w.config();
    try (var storage = Pipeline.storage(config.storage())) {
      KafkaWorker[] holder = new KafkaWorker[1];
      WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
      DeliveryContext context = DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withMetrics(metrics);
      try (KafkaWorker worker = Pipeline.worker(config, storage, context);
          StatusServer server = StatusServer.start("127.0.0.1", 0, worker::status, metrics)) {
        holder[0] = worker;
        HttpResponse<String> starting = get(server.port(), "/ready");
        assertEquals(503, starting.statusCode());
        assertTrue(starting.body().contains("starting"), starting.body());

        Thread run = new Thread(() -> worker.run(false), "ready-test-worker");
        run.start();
        try {
          awaitReady(server.port(), 200);

          try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
            SharedKafka.send(p, topic, 0, null, "garbage"); // quarantines the only table
            p.flush();
          }
          HttpResponse<String> quarantined = awaitReady(server.port(), 503);
          assertTrue(quarantined.body().contains("every table is quarantined"), quarantined.body());
          assertEquals(200, get(server.port(), "/health").statusCode(), "alive, just not useful");
        } finally {
          worker.stop();
          run.join();
        }
      }
    }
  }

  static HttpResponse<String> awaitReady(int port, int code) throws Exception {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
    while (true) {
      HttpResponse<String> r = get(port, "/ready");
      if (r.statusCode() == code) {
        return r;
      }
      assertTrue(System.nanoTime() < deadline, "/ready never answered " + code + "; last: " + r.body());
      Thread.sleep(100); // polling interval, not a synchronization
    }
  }
}
