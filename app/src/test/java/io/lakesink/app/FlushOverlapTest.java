package io.lakesink.app;

import static io.lakesink.app.RebalanceTest.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.FlushWriters;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's poll thread keeps reading while a table's flush is written on a writer thread:
 * stalled with a hook here, so that what the poll thread does meanwhile is observable. Each test
 * would time out on a worker that flushes on its poll thread.
 */
@Timeout(600)
class FlushOverlapTest {
  static final int PARTITIONS = 2;
  @TempDir Path data;
  final CountDownLatch stalled = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);
  final AtomicBoolean armed = new AtomicBoolean(true);
  RebalanceTest.RunningWorker running;

  @AfterEach
  void stop() {
    release.countDown();
    if (running != null) {
      running.stop();
    }
  }

  /** Stalls the first flush of {@code table} at {@code at}, on the writer thread, until released. */
  FlushHook stallFirst(String table, FlushStep at) {
    return (t, step) -> {
      if (step == at && t.startsWith(table) && armed.compareAndSet(true, false)) {
        stalled.countDown();
        RebalanceTest.await(release);
      }
    };
  }

  static void produce(String topic, long fromId, int count) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (long id = fromId; id < fromId + count; id++) {
        SharedKafka.send(p, topic, (int) (id % PARTITIONS), "{\"id\":" + id + "}",
            ChangelogEndToEndTest.envelope("c", id, "n" + id, 1000 + id));
      }
      p.flush();
    }
  }

  static void awaitLatch(CountDownLatch latch, String what) throws InterruptedException {
    assertTrue(latch.await(240, TimeUnit.SECONDS), "timed out waiting: " + what);
  }

  long stored(WorkerHarness h, String table, String topic) {
    return h.storedOffsets(table, topic, PARTITIONS).values().stream().mapToLong(Long::longValue).sum();
  }

  static int buffered(KafkaWorker worker, String table) {
    return worker.status().subscriptions().stream().filter(s -> s.table().table().startsWith(table))
        .mapToInt(s -> s.table().bufferedEvents()).sum();
  }

  /** Every id below {@code count} exactly once. */
  static void assertEveryIdOnce(WorkerHarness h, String table, int count) {
    List<Map<String, Object>> rows = h.rows(table);
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    TreeSet<Long> ids = new TreeSet<>();
    rows.forEach(r -> ids.add(Long.parseLong(String.valueOf(r.get("id"))))); // schemaless: a string
    assertEquals(count, rows.size(), "rows of " + table);
    assertEquals(count, ids.size());
    assertEquals(count - 1L, ids.last());
  }

  KafkaWorker worker(WorkerHarness h, TableStorage storage, FlushHook hook, FlushWriters writers) {
    DeliveryContext context = DeliveryContext.of(h.config().delivery(), new QuarantineStore(storage))
        .withHook(hook).withBackoff(ms -> {}).withWriters(writers);
    return Pipeline.worker(h.config(), storage, context);
  }

  @Test
  void anotherTableKeepsLandingAndTheStalledTableKeepsBufferingWhileAFlushIsInFlight() throws Exception {
    String slow = SharedKafka.newTopic("overlap-slow", PARTITIONS);
    String fast = SharedKafka.newTopic("overlap-fast", PARTITIONS);
    WorkerHarness h = new WorkerHarness(data)
        .subscribe("- {topic: " + slow + ", table: slow}")
        .subscribe("- {topic: " + fast + ", table: fast}");
    h.delivery = "  flush_interval: 1s\n  flush_rows: 20\n";
    TableStorage storage = new LocalStorage(data, "lakesink");
    running = new RebalanceTest.RunningWorker(
        worker(h, storage, stallFirst("slow", FlushStep.BEFORE_COMMIT), FlushWriters.pool(2)));

    produce(slow, 0, 40);
    awaitLatch(stalled, "the slow table's first flush stalled");
    produce(fast, 0, 100);
    produce(slow, 40, 60);
    awaitCondition(() -> stored(h, "fast", fast) == 100, "the other table's events land meanwhile");
    awaitCondition(() -> buffered(running.worker, "slow") == 100, "the stalled table buffers what it reads (in flight included)");
    assertEquals(0, stored(h, "slow", slow), "nothing of the stalled table landed yet");

    release.countDown();
    awaitCondition(() -> stored(h, "slow", slow) == 100, "the stalled table catches up");
    assertEveryIdOnce(h, "slow", 100);
    assertEveryIdOnce(h, "fast", 100);
  }

  @Test
  void aFailedFlushInFlightIsRetriedWithWhatWasReadSinceAndLandsExactlyOnce() throws Exception {
    String topic = SharedKafka.newTopic("overlap-fail", PARTITIONS);
    WorkerHarness h = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    h.delivery = "  flush_interval: 1s\n  flush_rows: 20\n";
    FlakyStorage flaky = new FlakyStorage(data);
    armed.set(false);
    running = new RebalanceTest.RunningWorker(
        worker(h, flaky, stallFirst("t", FlushStep.BEFORE_WRITE), FlushWriters.pool(1)));
    produce(topic, 0, 40);
    awaitCondition(() -> stored(h, "t", topic) == 40, "the first events landed");

    // Every attempt of the next flush fails; it is stalled first until more was read behind it.
    flaky.failNextCommits(BufferedDelivery.MAX_ATTEMPTS, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
    armed.set(true);
    produce(topic, 40, 40);
    awaitLatch(stalled, "the next flush started");
    produce(topic, 80, 40);
    awaitCondition(() -> buffered(running.worker, "t") == 80, "what was read since is buffered behind the batch");
    release.countDown(); // the batch fails and goes back in front; the retry writes both

    awaitCondition(() -> stored(h, "t", topic) == 120, "the table converges");
    assertEveryIdOnce(h, "t", 120);
  }

  @Test
  void shutdownWaitsForTheFlushInFlightAndCommitsTheGroupOffsetsAfterIt() throws Exception {
    String topic = SharedKafka.newTopic("overlap-stop", PARTITIONS);
    WorkerHarness h = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    h.delivery = "  flush_interval: 1s\n  flush_rows: 20\n";
    TableStorage storage = new LocalStorage(data, "lakesink");
    KafkaWorker worker = worker(h, storage, stallFirst("t", FlushStep.BEFORE_COMMIT), FlushWriters.pool(1));
    AtomicReference<WorkerResult> result = new AtomicReference<>();
    Thread thread = new Thread(() -> {
      try (worker) {
        result.set(worker.run(false));
      }
    }, "worker");
    thread.start();
    try {
      produce(topic, 0, 40);
      awaitLatch(stalled, "the first flush stalled");
      produce(topic, 40, 60);
      awaitCondition(() -> buffered(worker, "t") == 100, "everything is read, 40 of it in flight");
      worker.stop(); // while the flush is in flight
      assertTrue(thread.isAlive(), "the run waits for the flush in flight");
    } finally {
      release.countDown();
      thread.join(240_000);
    }
    assertFalse(thread.isAlive());
    assertFalse(result.get().finalFlushFailed());
    assertEquals(100, stored(h, "t", topic));
    assertEveryIdOnce(h, "t", 100);
    Map<Integer, Long> expected = new HashMap<>();
    h.storedOffsets("t", topic, PARTITIONS).forEach((SourcePartition p, Long next) -> expected.put(p.partition(), next));
    assertEquals(expected, h.groupOffsets(topic), "group offsets follow the Delta commits");
  }
}
