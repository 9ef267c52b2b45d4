package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.FlushWriters;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several workers in one consumer group on one topic, as replicas run in production: partitions
 * move between them while events flow. Whatever moves, every offset lands exactly once in the
 * changelog and the merged table ends equal to the last change of every key.
 */
@Timeout(600)
class RebalanceTest {
  static final int PARTITIONS = 4;
  @TempDir Path data;
  final List<RunningWorker> workers = new ArrayList<>();
  String topic;
  WorkerHarness harness;
  ChangeStream stream;

  void setUp(String mode) {
    topic = SharedKafka.newTopic("rebalance", PARTITIONS);
    harness = new WorkerHarness(data).subscribe(
        "- {topic: " + topic + ", table: t, mode: " + mode + ", primary_key: [id]}");
    harness.delivery = "  flush_interval: 1s\n  flush_rows: 50\n";
    // Small polls keep partitions moving mid-stream; a short poll interval makes a stalled
    // worker lose its partitions within seconds.
    harness.kafkaExtra = "  properties:\n    max.poll.records: \"20\"\n    max.poll.interval.ms: \"8000\"\n";
    stream = new ChangeStream(new Random(mode.hashCode()));
  }

  @AfterEach
  void stopAll() {
    workers.forEach(RunningWorker::stop);
  }

  @ParameterizedTest
  @ValueSource(strings = {"changelog", "merge"})
  void scaleUpThenDown(String mode) throws Exception {
    setUp(mode);
    produce(300);
    RunningWorker first = start(FlushHook.NONE, localStorage());
    awaitDelivered(100);
    start(FlushHook.NONE, localStorage());
    produce(300);
    start(FlushHook.NONE, localStorage()); // three members share four partitions
    produce(300);
    awaitAllDelivered();
    first.stop(); // scale down: its partitions move while more events arrive
    produce(300);
    workers.get(1).stop();
    produce(300);
    awaitAllDelivered();
    assertExactlyOnce(mode);
  }

  @ParameterizedTest
  @ValueSource(strings = {"changelog", "merge"})
  void aWorkerStalledPastThePollIntervalCannotWriteWhatItsSuccessorWrote(String mode) throws Exception {
    setUp(mode);
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean armed = new AtomicBoolean();
    FlushHook stall = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && armed.compareAndSet(true, false)) {
        stalled.countDown();
        await(release);
      }
    };
    produce(200);
    // A poll loop that stalls (a long GC pause, a slow storage call on the poll thread): flushes
    // on the poll thread reproduce it. A flush stalled on a writer thread no longer stalls the
    // loop; that case is aRevokeWhileAFlushIsStalledOnItsWriterThread...
    RunningWorker zombie = start(stall, localStorage(), FlushWriters.SYNCHRONOUS);
    awaitDelivered(200);
    armed.set(true); // the worker's next flush stalls: set before these events arrive
    produce(200);
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the worker stalled in a flush");
    RunningWorker successor = start(FlushHook.NONE, localStorage());
    // Kafka evicts the stalled worker; the successor takes every partition and delivers.
    awaitAllDelivered();
    release.countDown(); // the zombie's commit goes on with events its successor committed
    produce(200);
    awaitAllDelivered();
    assertTrue(successor.thread.isAlive() && zombie.thread.isAlive(), "both workers keep running");
    assertExactlyOnce(mode);
  }

  /**
   * The worker keeps polling while its flush is stalled on the writer thread, so it stays in the
   * group: the revoke waits for the flush within the poll budget, then gives the partitions up
   * and the successor gets its share at once. The stalled batch, released later, lands only what
   * the successor did not write (the fence), and nothing is lost.
   */
  @org.junit.jupiter.api.Test
  void aRevokeWhileAFlushIsStalledOnItsWriterThreadGivesThePartitionsUpAndStaysExactlyOnce() throws Exception {
    setUp("changelog");
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean armed = new AtomicBoolean();
    FlushHook stall = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && armed.compareAndSet(true, false)) {
        stalled.countDown();
        await(release);
      }
    };
    produce(200);
    RunningWorker first = start(stall, localStorage(), FlushWriters.pool(1));
    awaitDelivered(200);
    armed.set(true);
    produce(200);
    assertTrue(stalled.await(120, TimeUnit.SECONDS), "the first worker's flush stalled");
    RunningWorker successor = start(FlushHook.NONE, localStorage());
    try {
      // Shared, not all moved to the successor: the first worker was not evicted.
      awaitCondition(() -> {
        Map<Integer, Long> lag = lagOf(successor);
        if (lag.isEmpty() || lag.size() == PARTITIONS) {
          return false;
        }
        Map<SourcePartition, Long> stored = harness.storedOffsets("t", topic, PARTITIONS);
        return lag.keySet().stream().allMatch(p -> stream.end(p).equals(stored.get(new SourcePartition(topic, p))));
      }, "the successor delivered its share of the partitions while the first worker's flush is stalled");
    } finally {
      release.countDown(); // the stalled commit goes on with events its successor may have committed
    }
    produce(200);
    awaitAllDelivered();
    assertTrue(successor.thread.isAlive() && first.thread.isAlive(), "both workers keep running");
    assertExactlyOnce("changelog");
  }

  static Map<Integer, Long> lagOf(RunningWorker w) {
    var subs = w.worker.status().subscriptions();
    return subs.isEmpty() ? Map.of() : subs.get(0).lag();
  }

  @ParameterizedTest
  @ValueSource(strings = {"changelog", "merge"})
  void revokedDuringAStorageOutageTheBufferIsDropped(String mode) throws Exception {
    setUp(mode);
    FlakyStorage flaky = new FlakyStorage(data);
    produce(200);
    RunningWorker first = start(FlushHook.NONE, flaky);
    awaitDelivered(200);
    flaky.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
    produce(200);
    awaitCondition(() -> first.buffered() > 0, "the first worker buffered events it cannot commit");
    start(FlushHook.NONE, localStorage()); // a rebalance while the first worker's flush fails
    awaitCondition(() -> first.worker.status().subscriptions().get(0).lag().size() < PARTITIONS,
        "the partitions were shared");
    flaky.failNextCommits(0, FlakyStorage.Fault.FAIL_BEFORE_WRITE); // storage comes back
    produce(200);
    awaitAllDelivered();
    assertExactlyOnce(mode);
  }

  // ---------------------------------------------------------------------------------------

  RunningWorker start(FlushHook hook, TableStorage storage) {
    return start(hook, storage, FlushWriters.forThisMachine());
  }

  RunningWorker start(FlushHook hook, TableStorage storage, FlushWriters writers) {
    DeliveryContext context = DeliveryContext.of(harness.config().delivery(), new QuarantineStore(storage))
        .withHook(hook).withBackoff(ms -> {}).withWriters(writers);
    RunningWorker w = new RunningWorker(Pipeline.worker(harness.config(), storage, context));
    workers.add(w);
    return w;
  }

  TableStorage localStorage() {
    return new LocalStorage(data, "lakesink");
  }

  void produce(int events) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      stream.send(p, topic, events);
      p.flush();
    }
  }

  /** Waits until the table's log stores offsets covering at least this many records. */
  void awaitDelivered(long records) {
    awaitCondition(() -> storedTotal() >= records, "delivered " + records + " records");
  }

  void awaitAllDelivered() {
    awaitCondition(() -> storedTotal() == stream.records(), "every record delivered");
  }

  long storedTotal() {
    Map<SourcePartition, Long> stored = harness.storedOffsets(tableName(), topic, PARTITIONS);
    return stored.values().stream().mapToLong(Long::longValue).sum();
  }

  String tableName() {
    return "t";
  }

  void assertExactlyOnce(String mode) {
    Map<SourcePartition, Long> stored = harness.storedOffsets("t", topic, PARTITIONS);
    for (int p = 0; p < PARTITIONS; p++) {
      assertEquals(stream.end(p), stored.get(new SourcePartition(topic, p)), "stored offset of partition " + p);
    }
    if (mode.equals("changelog")) {
      List<Map<String, Object>> rows = harness.rows("t");
      ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
      assertEquals(stream.rowsSent(), rows.size(), "every change exactly once");
    } else {
      Map<String, String> actual = new TreeMap<>();
      harness.rows("t").forEach(r -> actual.put(String.valueOf(r.get("id")), String.valueOf(r.get("name"))));
      assertEquals(stream.model(), actual, "the merged table holds the last change of every key");
    }
  }

  static void awaitCondition(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        // A stall that happens once in many runs leaves no other evidence: print where every
        // thread is (workers, writers, followers, the Kafka clients) before failing.
        printThreads();
        throw new AssertionError("timed out waiting: " + what);
      }
      try {
        Thread.sleep(100); // polling a condition, not a guess at timing
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  static void printThreads() {
    StringBuilder dump = new StringBuilder("Threads at the timeout:\n");
    for (var info : java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      dump.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
      if (info.getLockName() != null) {
        dump.append(" on ").append(info.getLockName()).append(" held by ").append(info.getLockOwnerName());
      }
      dump.append('\n');
      for (StackTraceElement e : info.getStackTrace()) {
        dump.append("    at ").append(e).append('\n');
      }
    }
    System.out.println(dump);
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await(300, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A worker running on its own thread, as one replica. */
  static final class RunningWorker {
    final KafkaWorker worker;
    final Thread thread;

    RunningWorker(KafkaWorker worker) {
      this.worker = worker;
      this.thread = new Thread(() -> {
        try (worker) {
          worker.run(false);
        }
      }, "worker");
      thread.start();
    }

    int buffered() {
      var subs = worker.status().subscriptions();
      return subs.isEmpty() ? 0 : subs.get(0).table().bufferedEvents();
    }

    void stop() {
      if (thread.isAlive()) {
        worker.stop();
        try {
          thread.join(120_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Changes to 40 keys; a key always goes to the same partition and its timestamps only grow,
   * so the last change sent per key is its current state. Deletes are followed by a tombstone.
   */
  static final class ChangeStream {
    private final Random random;
    private final Map<Long, String> current = new HashMap<>();
    private final long[] end = new long[PARTITIONS];
    private long rows;
    private long sent;
    private long ts = 1_000_000L;

    ChangeStream(Random random) {
      this.random = random;
    }

    void send(KafkaProducer<byte[], byte[]> producer, String topic, int events) {
      for (int i = 0; i < events; i++) {
        long id = random.nextInt(40);
        int partition = (int) (id % PARTITIONS);
        String op = !current.containsKey(id) ? "c" : random.nextInt(6) == 0 ? "d" : "u";
        String name = "v" + sent;
        if (op.equals("d")) {
          name = current.remove(id);
        } else {
          current.put(id, name);
        }
        String key = "{\"id\":" + id + "}";
        SharedKafka.send(producer, topic, partition, key, ChangelogEndToEndTest.envelope(op, id, name, ts++));
        end[partition]++;
        rows++;
        sent++;
        if (op.equals("d")) {
          SharedKafka.send(producer, topic, partition, key, null);
          end[partition]++;
        }
      }
    }

    long sent() {
      return sent;
    }

    long rowsSent() {
      return rows;
    }

    long records() {
      long total = 0;
      for (long e : end) total += e;
      return total;
    }

    Long end(int partition) {
      return end[partition];
    }

    Map<String, String> model() {
      Map<String, String> m = new TreeMap<>();
      current.forEach((k, v) -> m.put(String.valueOf(k), v));
      return m;
    }
  }
}
