package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The worker-wide buffer budget flushes early, whatever the per-table flush settings say. */
@Timeout(300)
class BufferBudgetTest {
  @TempDir Path data;

  @Test
  void buffersPastTheBudgetAreFlushedEarly() {
    // Per-table settings alone would buffer everything until the final flush.
    WorkerHarness w = tightBudget(threeThousandInserts("budget"), "t");
    assertEquals(0, w.runToEnd());
    long commits = w.table("t").version(); // version 0 creates the table
    assertTrue(commits >= 5, "the budget forced early flushes: " + commits + " commits");
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(3000, rows.size());
  }

  /**
   * How long reading waited for the budget is counted for {@code /status} and {@code /metrics}:
   * a tight budget makes it wait at every early flush, an ample one never.
   */
  @Test
  void theTimeReadingWaitsForTheBudgetIsCounted() {
    String topic = threeThousandInserts("budget-wait");
    WorkerStatus waited = runForStatus(tightBudget(topic, "tight"));
    assertTrue(waited.buffersFull().toNanos() > 0, "reading waited for the flushes: " + waited.buffersFull());
    String scraped = new WorkerMetrics(() -> waited).scrape();
    assertTrue(scraped.contains("lakesink_buffers_full_seconds_total " + waited.buffersFull().toNanos() / 1e9), scraped);

    WorkerHarness ample = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: ample}");
    ample.delivery = "  flush_interval: 1h\n  flush_rows: 1000000\n  flush_bytes: 1GB\n  max_buffer_bytes: 1GB\n";
    assertEquals(Duration.ZERO, runForStatus(ample).buffersFull());
    assertEquals(3000, ample.rows("ample").size());
  }

  /** A topic of 3,000 inserts of ids 0 to 2,999, one partition. */
  private static String threeThousandInserts(String name) {
    String topic = SharedKafka.newTopic(name, 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 3000; i++) {
        SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "name-" + i, i));
      }
      p.flush();
    }
    return topic;
  }

  /** A worker delivering {@code topic} to {@code table} with a 64 KB buffer budget and polls of 100 records. */
  private WorkerHarness tightBudget(String topic, String table) {
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: " + table + "}");
    w.delivery = "  flush_interval: 1h\n  flush_rows: 1000000\n  flush_bytes: 1GB\n  max_buffer_bytes: 64KB\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"100\"\n";
    return w;
  }

  private static WorkerStatus runForStatus(WorkerHarness w) {
    try (TableStorage storage = Pipeline.storage(w.config().storage());
        KafkaWorker worker = Pipeline.worker(w.config(), storage, FlushHook.NONE, Clock.systemUTC())) {
      assertTrue(worker.run(true).allDelivering());
      return worker.status();
    }
  }

  /**
   * A kept current-state table's follow counts in the budget, and with a budget smaller than one
   * follow's changes reading waits for each follow to end: the worker must still get through every
   * event, the changelog and the kept table exact (a pause a follow never lifted would hang here).
   */
  @Test
  void aFollowHoldingMoreThanTheBudgetMakesReadingWaitAndEverythingArrives() {
    String topic = SharedKafka.newTopic("budget-kept", 1);
    int keys = 500;
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 3000; i++) {
        long id = i % keys;
        String op = i < keys ? "c" : i % 7 == 0 ? "d" : "u";
        SharedKafka.send(p, topic, 0, "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope(op, id, "name-" + i, i));
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: t, primary_key: [id], current_state: {object: table}}");
    w.delivery = "  flush_interval: 1h\n  flush_rows: 400\n  flush_bytes: 1GB\n  max_buffer_bytes: 64KB\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"100\"\n";
    assertEquals(0, w.runToEnd());
    List<Map<String, Object>> changelog = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(changelog);
    assertEquals(3000, changelog.size());
    // The kept table: each key's last event, the deleted ones absent.
    Map<Object, String> expected = new java.util.TreeMap<>();
    for (int i = 0; i < 3000; i++) {
      long id = i % keys;
      if (i >= keys && i % 7 == 0) {
        expected.remove(id);
      } else {
        expected.put(id, "name-" + i);
      }
    }
    Map<Object, String> kept = new java.util.TreeMap<>();
    TableStorage storage = Pipeline.storage(w.config().storage());
    DeltaTableReader.readAll(new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t")))
        .forEach(r -> kept.put(Long.parseLong(String.valueOf(r.get("id"))), String.valueOf(r.get("name"))));
    assertEquals(expected, kept);
  }
}
