package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record whose number would take gigabytes to render, read by a real worker process with a
 * small heap: its table is quarantined with the record's position named (never its value), the
 * other table is delivered in full, and the process ends on its own. Before numbers were
 * bounded the process died of OutOfMemoryError (or spun), and the record was read again after
 * every restart.
 */
@Timeout(300)
class HostileRecordProcessTest {
  @TempDir Path data;

  @Test
  void aHostileNumberQuarantinesOnlyItsTableInARealProcess() throws Exception {
    String bad = SharedKafka.newTopic("hostile", 1);
    String good = SharedKafka.newTopic("wholesome", 1);
    String hostile = "{\"before\":null,\"after\":{\"id\":10,\"amount\":1e999999999},"
        + "\"source\":{\"ts_ms\":10},\"op\":\"c\",\"ts_ms\":15}";
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 20; i++) {
        SharedKafka.send(p, bad, 0, "{\"id\":" + i + "}", i == 10 ? hostile : ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
        SharedKafka.send(p, good, 0, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + bad + ", table: payments}")
        .subscribe("- {topic: " + good + ", table: orders}");
    Path config = data.resolve("lakesink.yaml");
    Files.writeString(config, w.yaml());
    Path log = data.resolve("worker.log");
    Process worker = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
            "-cp", System.getProperty("java.class.path"),
            "io.lakesink.app.Main", "run", "--config", config.toString(), "--stop-at-end")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertTrue(worker.waitFor(240, TimeUnit.SECONDS), "the worker ended by itself");
    } finally {
      worker.destroyForcibly();
    }
    String output = Files.readString(log);
    assertFalse(output.contains("OutOfMemoryError"), output);
    assertEquals(3, worker.exitValue(), "the run ended with a table quarantined:\n" + output);

    assertEquals(20, w.rows("orders").size(), "the other table was delivered in full");
    QuarantineRecord q = new QuarantineStore(Pipeline.storage(w.config().storage())).load("payments_APPEND").orElseThrow();
    assertTrue(q.reason().contains(bad) && q.reason().contains("offset 10"), q.reason());
    assertTrue(q.reason().contains("amount"), "the column is named: " + q.reason());
    assertFalse(q.reason().contains("1e999999999"), "the value is not shown: " + q.reason());
    List<?> delivered = w.table("payments").exists() ? w.rows("payments") : List.of();
    assertTrue(delivered.size() <= 10, "nothing at or after the hostile record was delivered");
  }
}
