package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.app.status.StatusServer;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.TableStorage;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker, a schema registry or storage that stops answering under a live worker shows in
 * {@code /status} and {@code /metrics} within seconds (which service, since when, which tables
 * and partitions wait on it), each waiting table is degraded with a reason naming the service,
 * and all of it clears by itself once the service answers again. Lag is never negative at any
 * sample, and every event lands once.
 */
@Timeout(180)
class OutagesVisibleTest {
  @TempDir Path data;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aBrokerThatStopsShowsAsAnOutageAndClearsWhenItIsBack() throws Exception {
    try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
      broker.createTopic("orders", 2);
      broker.createTopic("items", 1);
      produce(broker, "orders", 0, 40, 2);
      produce(broker, "items", 0, 20, 1);
      WorkerHarness w = new WorkerHarness(data)
          .subscribe("- {topic: orders, table: orders}")
          .subscribe("- {topic: items, table: items}");
      w.bootstrap = broker.bootstrapServers();
      try (LiveWorker live = new LiveWorker(w, Pipeline.storage(w.config().storage()))) {
        live.awaitStored(w, "orders", "orders", 2, 40);
        live.awaitStored(w, "items", "items", 1, 20);
        live.awaitStatus(s -> lags(s).size() == 3 && lags(s).stream().allMatch(l -> l == 0), "caught up, lag 0");

        long stopped = System.nanoTime();
        broker.stopBroker();
        JsonNode down = live.awaitStatus(s -> outage(s, "kafka") != null, "the broker's outage in /status");
        long detectedSeconds = Duration.ofNanos(System.nanoTime() - stopped).toSeconds();
        assertTrue(detectedSeconds < 30, "seen " + detectedSeconds + " s after the broker stopped, before any session timeout");
        JsonNode kafka = outage(down, "kafka");
        assertTrue(kafka.path("problem").asText().contains(broker.bootstrapServers()), kafka.toString());
        assertTrue(kafka.hasNonNull("since"), kafka.toString());
        assertEquals(List.of("items_APPEND", "orders_APPEND"), texts(kafka.path("tables")));
        assertEquals(List.of("items-0", "orders-0", "orders-1"), texts(kafka.path("partitions")));
        JsonNode degraded = live.awaitStatus(
            s -> tables(s).stream().allMatch(t -> t.path("state").asText().equals("degraded")), "both tables degraded");
        for (JsonNode t : tables(degraded)) {
          assertTrue(t.path("reason").asText().startsWith("Waiting on Kafka"), t.toString());
          assertEquals(List.of("kafka"), texts(t.path("waiting_on")));
        }
        String metrics = StatusEndpointTest.get(live.port(), "/metrics").body();
        assertTrue(metrics.contains("lakesink_service_outage{service=\"kafka\"} 1.0"), metrics);
        assertTrue(metrics.contains("lakesink_service_outage{service=\"storage\"} 0.0"), metrics);
        assertTrue(metrics.contains("lakesink_table_waiting{service=\"kafka\",table=\"orders_APPEND\"} 1.0"), metrics);
        assertTrue(metrics.contains("lakesink_table_state{state=\"degraded\",table=\"items_APPEND\"} 1.0"), metrics);
        assertEquals(200, StatusEndpointTest.get(live.port(), "/health").statusCode(), "a restart would not help: still live");

        broker.restartBroker();
        live.awaitStatus(s -> s.path("outages").isEmpty()
            && tables(s).stream().allMatch(t -> t.path("state").asText().equals("healthy")), "the outage cleared");
        assertTrue(StatusEndpointTest.get(live.port(), "/metrics").body().contains("lakesink_service_outage{service=\"kafka\"} 0.0"));

        produce(broker, "orders", 40, 20, 2);
        produce(broker, "items", 20, 10, 1);
        live.awaitStored(w, "orders", "orders", 2, 60);
        live.awaitStored(w, "items", "items", 1, 30);
        live.awaitStatus(s -> lags(s).size() == 3 && lags(s).stream().allMatch(l -> l == 0), "caught up again, lag 0");
      }
      assertDeliveredOnce(w, "orders", 60);
      assertDeliveredOnce(w, "items", 30);
    }
  }

  @Test
  void storageThatFailsCommitsShowsAsAnOutageAndClearsAfterTheNextCommit() throws Exception {
    String topic = SharedKafka.newTopic("outage-storage", 2);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    FlakyStorage storage = new FlakyStorage(data);
    try (LiveWorker live = new LiveWorker(w, storage)) {
      produceShared(topic, 0, 20);
      live.awaitStored(w, "t", topic, 2, 20);

      storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
      produceShared(topic, 20, 20);
      JsonNode down = live.awaitStatus(s -> outage(s, "storage") != null, "the storage outage in /status");
      JsonNode outage = outage(down, "storage");
      assertEquals(List.of("t_APPEND"), texts(outage.path("tables")));
      assertEquals(List.of(topic + "-0", topic + "-1"), texts(outage.path("partitions")));
      assertTrue(outage.path("problem").asText().contains("storage unavailable"), outage.toString());
      JsonNode table = tables(down).get(0);
      assertEquals("degraded", table.path("state").asText(), table.toString());
      assertTrue(table.path("reason").asText().startsWith("Waiting on storage"), table.toString());
      assertEquals(List.of("storage"), texts(table.path("waiting_on")));
      String metrics = StatusEndpointTest.get(live.port(), "/metrics").body();
      assertTrue(metrics.contains("lakesink_service_outage{service=\"storage\"} 1.0"), metrics);
      assertTrue(metrics.contains("lakesink_table_waiting{service=\"storage\",table=\"t_APPEND\"} 1.0"), metrics);

      storage.failNextCommits(0, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
      live.awaitStatus(s -> s.path("outages").isEmpty() && tables(s).get(0).path("state").asText().equals("healthy"),
          "the outage cleared after the next commit");
      live.awaitStored(w, "t", topic, 2, 40);
    }
    assertDeliveredOnce(w, "t", 40);
  }

  @Test
  void aSchemaRegistryThatStopsShowsAsAnOutageAndClearsWhenItIsBack() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      String topic = SharedKafka.newTopic("outage-registry", 1);
      Schema env1 = AvroRecords.envelope(AvroEndToEndTest.V1, false);
      Schema env2 = AvroRecords.envelope(AvroEndToEndTest.V2, false);
      int id1 = registry.register(topic + "-value", env1);
      int id2 = registry.register(topic + "-value", env2);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: items}");
      String yaml = w.yaml() + "schema_registry:\n  url: " + registry.url() + "\n";
      var config = new io.lakesink.app.config.ConfigLoader(n -> null).parse(yaml, "test");
      try (LiveWorker live = new LiveWorker(config, Pipeline.storage(config.storage()))) {
        produceAvro(topic, 0, 5, id1, env1, AvroEndToEndTest.V1);
        live.awaitStored(w, "items", topic, 1, 5);

        registry.failWith(503); // records of the second schema need it: the first one is cached
        produceAvro(topic, 5, 5, id2, env2, AvroEndToEndTest.V2);
        JsonNode down = live.awaitStatus(s -> outage(s, "schema_registry") != null, "the registry's outage in /status");
        JsonNode outage = outage(down, "schema_registry");
        assertEquals(List.of("items_APPEND"), texts(outage.path("tables")));
        assertEquals(List.of(topic + "-0"), texts(outage.path("partitions")));
        assertTrue(outage.path("problem").asText().contains(registry.url()), outage.toString());
        JsonNode table = tables(down).get(0);
        assertEquals("degraded", table.path("state").asText(), table.toString());
        assertTrue(table.path("reason").asText().startsWith("Waiting on the schema registry"), table.toString());
        assertEquals(List.of("schema_registry"), texts(table.path("waiting_on")));
        String metrics = StatusEndpointTest.get(live.port(), "/metrics").body();
        assertTrue(metrics.contains("lakesink_service_outage{service=\"schema_registry\"} 1.0"), metrics);

        registry.up();
        live.awaitStatus(s -> s.path("outages").isEmpty() && tables(s).get(0).path("state").asText().equals("healthy"),
            "the outage cleared");
        live.awaitStored(w, "items", topic, 1, 10);
      }
      assertDeliveredOnce(w, "items", 10);
    }
  }

  static void produceAvro(String topic, int from, int count, int schemaId, Schema envelope, Schema row) {
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = from; i < from + count; i++) {
        GenericData.Record value = new GenericData.Record(row);
        value.put("id", (long) i);
        value.put("name", "item" + i);
        GenericData.Record e = new GenericData.Record(envelope);
        e.put("after", value);
        e.put("source", AvroRecords.source(envelope, 1000L + i));
        e.put("op", "c");
        producer.send(new ProducerRecord<>(topic, 0, null, AvroRecords.wire(schemaId, envelope, e)));
      }
      producer.flush();
    }
  }

  /** Produces {@code count} events with ids from {@code from}, spread over the partitions. */
  static void produce(LocalKafkaBroker broker, String topic, int from, int count, int partitions) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = from; i < from + count; i++) {
        SharedKafka.send(producer, topic, i % partitions, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      }
      producer.flush();
    }
  }

  static void produceShared(String topic, int from, int count) {
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = from; i < from + count; i++) {
        SharedKafka.send(producer, topic, i % 2, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      }
      producer.flush();
    }
  }

  static void assertDeliveredOnce(WorkerHarness w, String table, int events) {
    List<Map<String, Object>> rows = w.rows(table);
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(events, rows.size());
  }

  static JsonNode outage(JsonNode status, String service) {
    for (JsonNode o : status.path("outages")) {
      if (o.path("service").asText().equals(service)) {
        return o;
      }
    }
    return null;
  }

  static List<JsonNode> tables(JsonNode status) {
    List<JsonNode> tables = new java.util.ArrayList<>();
    status.path("subscriptions").forEach(tables::add);
    return tables;
  }

  /** Every lag value of every partition; null (unknown) as Long.MAX_VALUE, so no wait takes it for 0. */
  static List<Long> lags(JsonNode status) {
    List<Long> lags = new java.util.ArrayList<>();
    for (JsonNode t : tables(status)) {
      t.path("lag").forEach(l -> lags.add(l.isNull() ? Long.MAX_VALUE : l.asLong()));
    }
    return lags;
  }

  static List<String> texts(JsonNode array) {
    List<String> texts = new java.util.ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  /**
   * The real worker on its own thread with its status server, and every {@code /status} read
   * through {@link #awaitStatus}, each checked for a negative lag: at the end, none may have had one.
   */
  static final class LiveWorker implements AutoCloseable {
    private final TableStorage storage;
    private final RebalanceTest.RunningWorker running;
    private final StatusServer server;
    private final List<String> negativeLags = new CopyOnWriteArrayList<>();

    LiveWorker(WorkerHarness w, TableStorage storage) {
      this(w.config(), storage);
    }

    LiveWorker(WorkerConfig config, TableStorage storage) {
      this.storage = storage;
      KafkaWorker[] holder = new KafkaWorker[1];
      WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
      DeliveryContext context = DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withMetrics(metrics);
      KafkaWorker worker = Pipeline.worker(config, storage, context);
      holder[0] = worker;
      this.server = StatusServer.start("127.0.0.1", 0, worker::status, metrics);
      this.running = new RebalanceTest.RunningWorker(worker);
    }

    int port() {
      return server.port();
    }

    JsonNode status() throws Exception {
      JsonNode status = JSON.readTree(StatusEndpointTest.get(port(), "/status").body());
      for (JsonNode t : tables(status)) {
        t.path("lag").forEach(l -> {
          if (!l.isNull() && l.asLong() < 0) {
            negativeLags.add(t.path("table").asText() + " " + t.path("lag"));
          }
        });
      }
      return status;
    }

    /** Polls {@code /status} until it satisfies {@code condition} (60 s at most); returns that status. */
    JsonNode awaitStatus(Predicate<JsonNode> condition, String what) throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      JsonNode last;
      do {
        last = status();
        if (condition.test(last)) {
          assertTrue(negativeLags.isEmpty(), "negative lag reported: " + negativeLags);
          return last;
        }
        Thread.sleep(200); // polling interval, not a synchronization
      } while (System.nanoTime() < deadline);
      throw new AssertionError("timed out waiting for " + what + "; last /status: " + last);
    }

    /** Waits until the table's log stores {@code events} offsets over its partitions, reading status meanwhile. */
    void awaitStored(WorkerHarness w, String table, String topic, int partitions, long events) throws Exception {
      Function<Map<SourcePartition, Long>, Long> sum = m -> m.values().stream().mapToLong(Long::longValue).sum();
      awaitStatus(s -> sum.apply(w.storedOffsets(table, topic, partitions)) == events, events + " events stored in " + table);
    }

    @Override
    public void close() {
      running.stop();
      server.close();
      storage.close();
      assertTrue(negativeLags.isEmpty(), "negative lag reported: " + negativeLags);
    }
  }
}
