package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default heap of a small deployment, 512 MiB, holds 50 streaming subscriptions: a real
 * worker process with {@code -Xmx512m} delivers 50 topics to 50 tables and ends cleanly.
 */
@Timeout(600)
class ManySubscriptionsProcessTest {
  static final int SUBSCRIPTIONS = 50;
  static final int EVENTS = 200;
  @TempDir Path data;

  @Test
  void fiftySubscriptionsFitInHalfAGigabyte() throws Exception {
    List<String> topics = new ArrayList<>();
    WorkerHarness w = new WorkerHarness(data);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int t = 0; t < SUBSCRIPTIONS; t++) {
        String topic = SharedKafka.newTopic("many", 1);
        topics.add(topic);
        w.subscribe("- {topic: " + topic + ", table: t" + t + "}");
        for (int i = 0; i < EVENTS; i++) {
          SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}",
              ChangelogEndToEndTest.envelope("c", i, "a name of some length, number " + i, i));
        }
      }
      p.flush();
    }
    Path config = data.resolve("lakesink.yaml");
    Files.writeString(config, w.yaml());
    Path log = data.resolve("worker.log");
    Process worker = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
            "-cp", System.getProperty("java.class.path"),
            "io.lakesink.app.Main", "run", "--config", config.toString(), "--stop-at-end")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertTrue(worker.waitFor(480, TimeUnit.SECONDS), "the worker ended by itself");
    } finally {
      worker.destroyForcibly();
    }
    String output = Files.readString(log);
    assertEquals(0, worker.exitValue(), output.length() > 4000 ? output.substring(output.length() - 4000) : output);
    for (int t = 0; t < SUBSCRIPTIONS; t += 7) {
      assertEquals(EVENTS, w.rows("t" + t).size(), "table t" + t);
    }
    assertEquals(EVENTS, w.rows("t" + (SUBSCRIPTIONS - 1)).size());
  }
}
