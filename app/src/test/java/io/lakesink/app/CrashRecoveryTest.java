package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The worker dies at each step of a flush, mid-stream, and is restarted: every event must be in
 * the table exactly once, with no gap and no duplicate {@code (__partition, __offset)}.
 */
@Timeout(300)
class CrashRecoveryTest {
  static final int EVENTS_PER_PARTITION = 40;

  /** Stands in for the process dying: an Error nothing in the worker catches. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(String step) {
      super("simulated crash at " + step);
    }
  }

  @TempDir Path data;

  /**
   * Dies in the middle of the stream: at the second flush's step, or right after the first
   * commit. A crashed process does nothing more: the flush that closing the consumer runs (its
   * revoke callback) dies as well, and it leaves no group.
   */
  static FlushHook crashMidStream(FlushStep crashAt) {
    AtomicInteger calls = new AtomicInteger();
    AtomicBoolean dead = new AtomicBoolean();
    int crashOn = crashAt == FlushStep.AFTER_COMMIT ? 1 : 2;
    return (table, step) -> {
      if (dead.get() || (step == crashAt && calls.incrementAndGet() == crashOn)) {
        dead.set(true);
        throw new SimulatedCrash(step.name());
      }
    };
  }

  @ParameterizedTest
  @EnumSource(FlushStep.class)
  void restartAfterACrashAtEachStepDeliversEveryEventExactlyOnce(FlushStep crashAt) throws Exception {
    String topic = SharedKafka.newTopic("crash", 2);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < EVENTS_PER_PARTITION; i++) {
        for (int p = 0; p < 2; p++) {
          long id = i * 2L + p;
          SharedKafka.send(producer, topic, p, "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope("c", id, "n" + id, 1000 + i));
        }
      }
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    // Small polls and flushes, so the crash comes after some commits and before others.
    w.delivery = "  flush_interval: 1s\n  flush_rows: 15\n";
    // A crashed worker leaves no group: the restart waits out its session (the broker's minimum, not 45 s).
    w.kafkaExtra = "  properties:\n    max.poll.records: \"7\"\n    session.timeout.ms: \"6000\"\n    heartbeat.interval.ms: \"2000\"\n";

    assertThrows(SimulatedCrash.class, () -> w.runToEnd(crashMidStream(crashAt)));
    int before = w.rows("t").size();
    assertTrue(before < 2 * EVENTS_PER_PARTITION, "the crash happened mid-stream (" + before + " rows)");

    assertEquals(Main.OK, w.runToEnd());

    List<Map<String, Object>> rows = w.rows("t");
    ChangelogEndToEndTest.assertNoDuplicatePositions(rows);
    for (int p = 0; p < 2; p++) {
      Set<Long> offsets = new TreeSet<>();
      for (Map<String, Object> r : rows) {
        if (r.get("__partition").equals(p)) offsets.add((Long) r.get("__offset"));
      }
      assertEquals(EVENTS_PER_PARTITION, offsets.size(), "partition " + p + " has every offset");
      assertEquals(0L, offsets.iterator().next());
      assertEquals((long) EVENTS_PER_PARTITION - 1, ((TreeSet<Long>) offsets).last());
    }
  }

  @ParameterizedTest
  @EnumSource(FlushStep.class)
  void mergeModeRecoversFromACrashAtEachStepWithTheExactState(FlushStep crashAt) throws Exception {
    String topic = SharedKafka.newTopic("crash-merge", 2);
    Map<Long, String> expected = new java.util.TreeMap<>();
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < 80; i++) {
        long id = i % 20;
        String op = i < 20 ? "c" : (i % 7 == 0 ? "d" : "u");
        if (op.equals("d") && !expected.containsKey(id)) {
          op = "c";
        } else if (!op.equals("d") && !expected.containsKey(id)) {
          op = "c";
        }
        SharedKafka.send(producer, topic, (int) (id % 2), "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope(op, id, "v" + i, 1000 + i));
        if (op.equals("d")) {
          expected.remove(id);
        } else {
          expected.put(id, "v" + i);
        }
      }
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: m, mode: merge, primary_key: [id]}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 15\n";
    // A crashed worker leaves no group: the restart waits out its session (the broker's minimum, not 45 s).
    w.kafkaExtra = "  properties:\n    max.poll.records: \"7\"\n    session.timeout.ms: \"6000\"\n    heartbeat.interval.ms: \"2000\"\n";
    assertThrows(SimulatedCrash.class, () -> w.runToEnd(crashMidStream(crashAt)));

    assertEquals(Main.OK, w.runToEnd());

    Map<Long, String> actual = new java.util.TreeMap<>();
    for (Map<String, Object> r : w.rows("m")) {
      assertEquals(null, actual.put(Long.parseLong((String) r.get("id")), (String) r.get("name")), "one row per key");
    }
    assertEquals(expected, actual);
    assertEquals(Map.of(new io.lakesink.delivery.SourcePartition(topic, 0), 40L, new io.lakesink.delivery.SourcePartition(topic, 1), 40L),
        w.storedOffsets("m", topic, 2));
  }
}
