package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.WorkerResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker decodes a poll's records on several threads (one hot partition cut into runs, quiet
 * partitions beside it): every record lands once and in offset order, and a poison record deep in
 * the hot partition still stops only its table, at its own position.
 */
@Timeout(300)
class ParallelDecodeEndToEndTest {
  static final int HOT = 3000; // several poll batches, each cut into many decode runs
  static final int QUIET = 5;
  static final int POISON = 1700;

  @TempDir Path data;

  @Test
  void aHotPartitionDecodedInRunsLandsOnceInOrderAndAPoisonRecordStopsOnlyItsTable() throws Exception {
    String good = SharedKafka.newTopic("hot-good", 3);
    String bad = SharedKafka.newTopic("hot-bad", 3);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int i = 0; i < HOT; i++) {
        String event = ChangelogEndToEndTest.envelope(i % 5 == 4 ? "u" : "c", i, "n" + i, 1000 + i);
        SharedKafka.send(producer, good, 0, "{\"id\":" + i + "}", event);
        SharedKafka.send(producer, bad, 0, "{\"id\":" + i + "}", i == POISON ? "{not json" : event);
      }
      for (int p = 1; p <= 2; p++) {
        for (int i = 0; i < QUIET; i++) {
          String event = ChangelogEndToEndTest.envelope("c", p * 100_000 + i, "q", 1000 + i);
          SharedKafka.send(producer, good, p, null, event);
          SharedKafka.send(producer, bad, p, null, event);
        }
      }
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + good + ", table: good}")
        .subscribe("- {topic: " + bad + ", table: bad}");

    WorkerResult result = w.runForResult();

    assertTrue(result.states().get("good_APPEND").delivering());
    Map<Integer, List<Long>> offsets = offsetsByPartition(w.rows("good"));
    assertEquals(HOT + 2 * QUIET, offsets.values().stream().mapToInt(List::size).sum());
    for (Map.Entry<Integer, List<Long>> p : offsets.entrySet()) {
      List<Long> sorted = new ArrayList<>(p.getValue());
      sorted.sort(null);
      for (int i = 0; i < sorted.size(); i++) {
        assertEquals(i, sorted.get(i), "partition " + p.getKey() + ": every offset once");
      }
    }
    w.rows("good").stream().filter(r -> (Integer) r.get("__partition") == 0)
        .forEach(r -> assertEquals("n" + r.get("__offset"), r.get("name"), "the row at an offset is that offset's record"));

    DeliveryState.Quarantined failed = assertInstanceOf(DeliveryState.Quarantined.class, result.states().get("bad_APPEND"));
    String reason = failed.record().reason();
    assertTrue(reason.contains("topic " + bad + ", partition 0, offset " + POISON) && reason.contains("not valid JSON"), reason);
    w.rows("bad").stream().filter(r -> (Integer) r.get("__partition") == 0)
        .forEach(r -> assertTrue((Long) r.get("__offset") < POISON, "nothing past the poison record: " + r));
    Long stored = w.storedOffsets("bad", bad, 3).get(new SourcePartition(bad, 0));
    assertTrue(stored == null || stored <= POISON, "offsets stay before the poison record: " + stored);
  }

  static Map<Integer, List<Long>> offsetsByPartition(List<Map<String, Object>> rows) {
    Map<Integer, List<Long>> byPartition = new TreeMap<>();
    rows.forEach(r -> byPartition.computeIfAbsent((Integer) r.get("__partition"), x -> new ArrayList<>()).add((Long) r.get("__offset")));
    return byPartition;
  }
}
