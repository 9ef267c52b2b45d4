package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakesink run} in its own JVM, stopped with a real SIGTERM while it holds unflushed
 * events: it writes them, commits the offsets, leaves the group and exits 0.
 */
@Timeout(300)
class ShutdownSignalTest {
  static final int RECORDS = 20;
  @TempDir Path data;

  @Test
  void sigtermFlushesCommitsLeavesTheGroupAndExitsZero() throws Exception {
    String topic = SharedKafka.newTopic("sigterm", 2);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < RECORDS; i++) SharedKafka.send(p, topic, i % 2, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      p.flush();
    }
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    w.delivery = "  flush_interval: 1h\n"; // everything stays buffered until the shutdown's flush
    Path config = data.resolve("lakesink.yaml");
    Files.writeString(config, w.yaml().replace("  port: 0\n", "  port: " + port + "\n"));

    Path log = data.resolve("worker.log");
    ProcessBuilder pb = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run", "--config", config.toString());
    pb.environment().put(GracefulShutdown.TIMEOUT_ENV, "60s");
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    Process worker = pb.start();
    try {
      awaitBuffered(worker, port, log);
      assertTrue(w.groupOffsets(topic).isEmpty(), "nothing committed before the signal");

      worker.destroy(); // SIGTERM
      assertTrue(worker.waitFor(120, TimeUnit.SECONDS), "the worker exits within the shutdown timeout");
      assertEquals(ExitCode.OK.code, worker.exitValue(), Files.readString(log));
    } finally {
      worker.destroyForcibly();
    }

    assertEquals(RECORDS, w.rows("t").size(), Files.readString(log));
    assertEquals(Map.of(0, (long) RECORDS / 2, 1, (long) RECORDS / 2), w.groupOffsets(topic));
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrap());
    try (Admin admin = Admin.create(p)) {
      ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(w.groupId)).all().get().get(w.groupId);
      assertTrue(group.members().isEmpty(), "the worker left the group: " + group);
      assertEquals(GroupState.EMPTY, group.groupState());
    }
  }

  /** Polls the child's /status until it has read every record (and holds them unflushed). */
  static void awaitBuffered(Process worker, int port, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      assertTrue(worker.isAlive(), () -> "the worker died: " + read(log));
      try {
        JsonNode t = new ObjectMapper().readTree(StatusEndpointTest.get(port, "/status").body()).path("subscriptions").get(0);
        if (t != null && t.path("buffered_events").asInt() == RECORDS) {
          return;
        }
      } catch (java.io.IOException notListeningYet) {
        // the child JVM is still starting
      }
      assertTrue(System.nanoTime() < deadline, () -> "the worker did not read the records: " + read(log));
      Thread.sleep(100); // polling interval, not a synchronization
    }
  }

  static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
