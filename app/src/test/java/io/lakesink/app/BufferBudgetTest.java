package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
    String topic = SharedKafka.newTopic("budget", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 3000; i++) {
        SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "name-" + i, i));
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    // Per-table settings alone would buffer everything until the final flush.
    w.delivery = "  flush_interval: 1h\n  flush_rows: 1000000\n  flush_bytes: 1GB\n  max_buffer_bytes: 64KB\n";
    w.kafkaExtra = "  properties:\n    max.poll.records: \"100\"\n";
    assertEquals(0, w.runToEnd());
    long commits = w.table("t").version(); // version 0 creates the table
    assertTrue(commits >= 5, "the budget forced early flushes: " + commits + " commits");
    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    assertEquals(3000, rows.size());
  }
}
