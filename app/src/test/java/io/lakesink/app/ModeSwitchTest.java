package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.kafka.WorkerResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Switching a subscription's mode keeps its Kafka offsets: nothing replayed, nothing skipped. */
@Timeout(300)
class ModeSwitchTest {
  @TempDir Path data;

  static void produce(String topic, int from, int to, String op) {
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = from; i < to; i++) {
        SharedKafka.send(p, topic, 0, "{\"id\":" + (i % 10) + "}", ChangelogEndToEndTest.envelope(op, i % 10, "v" + i, 1000 + i));
      }
      p.flush();
    }
  }

  static Set<Long> offsets(List<Map<String, Object>> rows) {
    Set<Long> s = new TreeSet<>();
    rows.forEach(r -> s.add((Long) r.get("__offset")));
    return s;
  }

  @Test
  void changelogToMergeAndBackContinuesFromTheOtherTablesOffsets() {
    String topic = SharedKafka.newTopic("switch", 1);
    produce(topic, 0, 5, "c");
    WorkerHarness changelog = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, primary_key: [id]}");
    assertEquals(Main.OK, changelog.runToEnd());
    assertEquals(Set.of(0L, 1L, 2L, 3L, 4L), offsets(changelog.rows("t")));

    produce(topic, 5, 10, "c");
    WorkerHarness merge = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, mode: merge, primary_key: [id]}");
    assertEquals(Main.OK, merge.runToEnd());
    List<Map<String, Object>> merged = merge.rows("t");
    assertEquals(Set.of("5", "6", "7", "8", "9"), new TreeSet<>(merged.stream().map(r -> (String) r.get("id")).toList()),
        "merge continued after the changelog's last offset (copying older rows needs a SQL warehouse)");
    assertTrue(merge.table("t").location().endsWith("/t"));

    produce(topic, 10, 15, "u");
    assertEquals(Main.OK, changelog.runToEnd());
    assertEquals(Set.of(0L, 1L, 2L, 3L, 4L, 10L, 11L, 12L, 13L, 14L), offsets(changelog.rows("t")),
        "the changelog continued exactly where the merge table stopped");
    assertEquals(5, merge.rows("t").size(), "the merge table is no longer written");
  }

  /**
   * Past what the old whole-table estimate allowed (40 rows of about 3 KB on disk under a 1 MiB
   * limit: it held under 20), a MERGE table once was quarantined; merges now stream the files
   * they read, so it keeps merging, and a switch to the changelog still continues exactly once.
   */
  @Test
  void aMergeTablePastTheOldSizeLimitKeepsMergingAndSwitchingToTheChangelogContinuesExactlyOnce() {
    String topic = SharedKafka.newTopic("too-big", 1);
    java.util.Random random = new java.util.Random(1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 40; i++) {
        byte[] noise = new byte[3072];
        random.nextBytes(noise);
        SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}",
            ChangelogEndToEndTest.envelope("c", i, java.util.HexFormat.of().formatHex(noise), 1000 + i));
      }
      p.flush();
    }
    WorkerHarness merge = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: big, mode: merge, primary_key: [id]}");
    assertEquals(Main.OK, merge.runToEnd());
    produce(topic, 40, 45, "u");
    merge.delivery = "  flush_interval: 1s\n  merge_scan_limit_mb: 1\n";
    WorkerResult merged = merge.runForResult();
    assertTrue(merged.allDelivering(), merged.states().toString());
    List<Map<String, Object>> rows = merge.rows("big");
    assertEquals(40, rows.size(), "five keys updated in place, none added");
    assertTrue(offsets(rows).containsAll(Set.of(40L, 41L, 42L, 43L, 44L)), offsets(rows).toString());

    produce(topic, 45, 50, "u");
    WorkerHarness changelog = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: big, primary_key: [id]}");
    WorkerResult switched = changelog.runForResult();
    assertTrue(switched.allDelivering(), switched.states().toString());
    assertEquals(Set.of(45L, 46L, 47L, 48L, 49L), offsets(changelog.rows("big")),
        "the changelog continued where the merge table stopped, exactly once");
  }
}
