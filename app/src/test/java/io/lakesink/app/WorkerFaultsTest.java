package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryContext;
import io.lakesink.app.status.StatusServer;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.testing.FlakyStorage;
import io.lakesink.testing.ShiftableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of storage that used to end the worker or quarantine every table, on a real broker:
 * each must leave the worker running, the tables unquarantined, and every event delivered once.
 */
@Timeout(300)
class WorkerFaultsTest {
  @TempDir Path data;

  String produce(int events) {
    String topic = SharedKafka.newTopic("faults", 2);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < events; i++) {
        SharedKafka.send(p, topic, i % 2, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      }
      p.flush();
    }
    return topic;
  }

  /** With --stop-at-end the run ends at once on a worker-level fault, with its own exit code. */
  @Test
  void aRunToTheEndStopsOnAWorkerFaultWithItsOwnExitCode() {
    String topic = produce(10);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    FlakyStorage storage = new FlakyStorage(data);
    storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.UNAUTHORIZED);
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage)).withBackoff(ms -> {});
    WorkerResult result;
    try (KafkaWorker worker = Pipeline.worker(w.config(), storage, context)) {
      result = worker.run(true);
    }
    assertTrue(result.allDelivering(), "no table quarantined: " + result.states());
    assertEquals(1, result.faults().size(), result.faults().toString());
    assertEquals(ExitCode.WORKER_FAULT.code, Commands.exitCode(result));
  }

  /** Fails on the previous worker: storedOffsets threw out of the rebalance callback, out of poll(). */
  @Test
  void storageUnreadableAtAssignmentIsRetriedNotFatal() {
    String topic = produce(60);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    FlakyStorage storage = new FlakyStorage(data);
    storage.failNextListings(3); // the first positioning attempts cannot read the Delta log
    ShiftableClock clock = new ShiftableClock();
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage)).withClock(clock);
    RebalanceTest.RunningWorker running = new RebalanceTest.RunningWorker(Pipeline.worker(w.config(), storage, context));
    try {
      RebalanceTest.awaitCondition(() -> {
        clock.advance(Duration.ofSeconds(6)); // makes each positioning retry due at once
        return w.storedOffsets("t", topic, 2).values().stream().mapToLong(Long::longValue).sum() == 60;
      }, "every event delivered");
      assertTrue(running.thread.isAlive(), "the worker kept running");
    } finally {
      running.stop();
    }
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(60, rows.size());
  }

  /** Fails on the previous worker: the table was quarantined for a worker-wide credential problem. */
  @Test
  void refusedCredentialsAreAWorkerFaultNotAQuarantine() throws Exception {
    String topic = produce(40);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    FlakyStorage storage = new FlakyStorage(data);
    storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.UNAUTHORIZED);
    ShiftableClock clock = new ShiftableClock();
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage))
        .withClock(clock).withBackoff(ms -> {});
    KafkaWorker worker = Pipeline.worker(w.config(), storage, context);
    RebalanceTest.RunningWorker running = new RebalanceTest.RunningWorker(worker);
    WorkerMetrics metrics = new WorkerMetrics(worker::status);
    try (StatusServer server = StatusServer.start("127.0.0.1", 0, worker::status, metrics)) {
      RebalanceTest.awaitCondition(() -> !worker.status().healthy(), "the fault is reported");
      WorkerStatus faulty = worker.status();
      assertTrue(faulty.faults().get(0).contains("403"), faulty.faults().toString());
      assertEquals("healthy", faulty.subscriptions().get(0).table().state(), "the table is not quarantined");
      assertTrue(new QuarantineStore(storage).list().isEmpty());
      assertEquals(503, StatusEndpointTest.get(server.port(), "/health").statusCode(), "unhealthy while the fault stands");
      assertTrue(StatusEndpointTest.get(server.port(), "/status").body().contains("403"));

      storage.failNextCommits(0, FlakyStorage.Fault.UNAUTHORIZED); // the operator fixes the role assignment
      RebalanceTest.awaitCondition(() -> {
        clock.advance(Duration.ofSeconds(31)); // the next re-check is due
        return w.storedOffsets("t", topic, 2).values().stream().mapToLong(Long::longValue).sum() == 40;
      }, "delivered after the fault cleared");
      RebalanceTest.awaitCondition(() -> worker.status().healthy(), "the fault cleared");
      assertEquals(200, StatusEndpointTest.get(server.port(), "/health").statusCode());
    } finally {
      running.stop();
    }
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(40, rows.size());
  }
}
