package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commits fail for a while (storage returns 503s): the table is never quarantined, reading of
 * its partitions pauses so the buffer does not grow, and once storage is back every event lands
 * exactly once.
 */
@Timeout(300)
class StorageOutageTest {
  @TempDir Path data;

  /**
   * Write attempts the outage lasts: a flush tries {@code MAX_ATTEMPTS} times before giving up,
   * so this spans several failed flushes, each followed by a poll that could read more.
   */
  static final int OUTAGE_WRITES = 2 + 5 * io.lakesink.delivery.BufferedDelivery.MAX_ATTEMPTS;

  @Test
  void anOutageHoldsReadingBackAndLosesNothing() throws Exception {
    String topic = SharedKafka.newTopic("outage", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 100; i++) SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 10\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"10\"\n";
    FlakyStorage storage = new FlakyStorage(data);
    KafkaWorker[] holder = new KafkaWorker[1];
    List<Integer> bufferedDuringOutage = new ArrayList<>();
    AtomicInteger writes = new AtomicInteger();
    FlushHook outage = (table, step) -> {
      if (step != FlushStep.BEFORE_WRITE) {
        return;
      }
      int n = writes.incrementAndGet();
      if (n == 2) {
        storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.FAIL_BEFORE_WRITE); // storage goes away
      } else if (n > 2 && n < OUTAGE_WRITES) {
        WorkerStatus s = holder[0].status();
        bufferedDuringOutage.add(s.subscriptions().get(0).table().bufferedEvents());
      } else if (n == OUTAGE_WRITES) {
        storage.failNextCommits(0, FlakyStorage.Fault.FAIL_BEFORE_WRITE); // and comes back
      }
    };
    // Flushes on the poll thread, so that each failed flush is followed by a poll that could read
    // more (the path MERGE tables and the Connect task take). With writer threads, reading goes
    // on while the first failing flush is in flight, up to the buffer budget, and pauses once its
    // failure is collected: FlushOverlapTest's failed-flush case.
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage))
        .withHook(outage).withBackoff(millis -> {}).withWriters(io.lakesink.delivery.FlushWriters.SYNCHRONOUS);
    WorkerResult result;
    try (KafkaWorker worker = Pipeline.worker(w.config(), storage, context)) {
      holder[0] = worker;
      result = worker.run(true);
    }

    assertTrue(result.allDelivering(), "never quarantined: " + result.states());
    assertTrue(new QuarantineStore(storage).list().isEmpty());
    assertEquals(OUTAGE_WRITES - 3, bufferedDuringOutage.size());
    // Reading paused: the buffer stayed at what was read before the first failed flush.
    assertTrue(bufferedDuringOutage.stream().allMatch(b -> b <= 20), "buffer during the outage: " + bufferedDuringOutage);
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(100, rows.size());
  }

  /**
   * The same outage with flushes on a writer thread: reading goes on while the first failing
   * flush is in flight, and pauses once its failure is collected. Events produced during the
   * outage stay unread (the buffer does not grow over the later failed flushes) until storage is
   * back; then everything lands exactly once.
   */
  @Test
  void anOutageHoldsReadingBackWithFlushesOnAWriterThread() throws Exception {
    String topic = SharedKafka.newTopic("outage-writer", 1);
    produce(topic, 0, 100);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 10\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"10\"\n";
    FlakyStorage storage = new FlakyStorage(data);
    KafkaWorker[] holder = new KafkaWorker[1];
    List<Integer> bufferedWhilePaused = new ArrayList<>();
    AtomicInteger writes = new AtomicInteger();
    int firstAfterAFailure = 2 + io.lakesink.delivery.BufferedDelivery.MAX_ATTEMPTS;
    FlushHook outage = (table, step) -> {
      if (step != FlushStep.BEFORE_WRITE) {
        return;
      }
      int n = writes.incrementAndGet();
      if (n == 2) {
        storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.FAIL_BEFORE_WRITE); // storage goes away
      } else if (n == firstAfterAFailure) {
        // The first flush failed and was collected: reading is paused. More events arrive.
        produce(topic, 100, 50);
        bufferedWhilePaused.add(holder[0].status().subscriptions().get(0).table().bufferedEvents());
      } else if (n > firstAfterAFailure && n < OUTAGE_WRITES) {
        bufferedWhilePaused.add(holder[0].status().subscriptions().get(0).table().bufferedEvents());
      } else if (n == OUTAGE_WRITES) {
        storage.failNextCommits(0, FlakyStorage.Fault.FAIL_BEFORE_WRITE); // and comes back
      }
    };
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage))
        .withHook(outage).withBackoff(millis -> {}).withWriters(io.lakesink.delivery.FlushWriters.pool(1));
    KafkaWorker worker = Pipeline.worker(w.config(), storage, context);
    holder[0] = worker;
    RebalanceTest.RunningWorker running = new RebalanceTest.RunningWorker(worker);
    try {
      RebalanceTest.awaitCondition(
          () -> w.storedOffsets("t", topic, 1).getOrDefault(new io.lakesink.delivery.SourcePartition(topic, 0), 0L) == 150,
          "every event landed once storage was back");
    } finally {
      running.stop();
    }
    assertTrue(worker.status().subscriptions().get(0).table().state().equals("healthy"), "never quarantined");
    assertEquals(OUTAGE_WRITES - firstAfterAFailure, bufferedWhilePaused.size());
    assertTrue(bufferedWhilePaused.stream().allMatch(b -> b.equals(bufferedWhilePaused.get(0))) && bufferedWhilePaused.get(0) <= 100,
        "nothing read while the flushes failed: " + bufferedWhilePaused);
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(150, rows.size());
  }

  static void produce(String topic, int from, int count) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = from; i < from + count; i++) SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      p.flush();
    }
  }
}
