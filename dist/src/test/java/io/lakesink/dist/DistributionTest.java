package io.lakesink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive {@code mvn package} built, as an operator gets it: unpacked into an empty
 * directory and run with a PATH that holds no Maven (only bash, the few tools the launcher uses,
 * and Java through JAVA_HOME).
 */
@Timeout(300)
class DistributionTest {
  @TempDir static Path root;
  static Path home;
  static Path path;

  @BeforeAll
  static void unpack() throws Exception {
    Path tarball = Path.of(System.getProperty("lakesink.tarball"));
    assertTrue(Files.isRegularFile(tarball), tarball + " was not built");
    Path into = Files.createDirectories(root.resolve("opt"));
    Process tar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", into.toString()).inheritIO().start();
    assertEquals(0, tar.waitFor());
    home = into.resolve("lakesink-" + System.getProperty("lakesink.version"));
    path = Files.createDirectories(root.resolve("path"));
    for (String tool : List.of("bash", "readlink", "dirname")) {
      Files.createSymbolicLink(path.resolve(tool), which(tool));
    }
  }

  @Test
  void theProductionClassPathHoldsNoDemoBrokerScalaOrLog4j() throws IOException {
    List<String> lib = names(home.resolve("lib"));
    assertTrue(lib.stream().anyMatch(n -> n.startsWith("lakesink-app-")), lib.toString());
    assertTrue(lib.stream().anyMatch(n -> n.startsWith("kafka-clients-")), lib.toString());
    for (String n : lib) {
      assertFalse(n.startsWith("scala-") || n.startsWith("kafka_2.13") || n.startsWith("kafka-server")
          || n.startsWith("log4j-core") || n.startsWith("kafka-test-common"), "in lib/: " + n);
    }
    List<String> demo = names(home.resolve("lib/demo"));
    assertTrue(demo.stream().anyMatch(n -> n.startsWith("kafka_2.13-")), demo.toString());
    assertTrue(demo.stream().noneMatch(lib::contains), "lib/demo repeats a jar of lib/");
    assertTrue(Files.isExecutable(home.resolve("bin/lakesink")));
    assertTrue(Files.isRegularFile(home.resolve("config/lakesink.example.yaml")));
    assertTrue(Files.isRegularFile(home.resolve("contrib/prometheus/lakesink-alerts.yml")));
    assertTrue(Files.isRegularFile(home.resolve("contrib/grafana/lakesink-dashboard.json")));
    assertTrue(Files.isRegularFile(home.resolve("docs/configuration.md")), "the documentation README.md links to");
  }

  @Test
  void versionNamesTheBuild() throws Exception {
    Result r = lakesink("--version");
    assertEquals(0, r.exit, r.output + r.log);
    assertTrue(r.output.startsWith("lakesink " + System.getProperty("lakesink.version") + " (built 20"), r.output);
    assertEquals("", r.log);
    assertFalse(r.output.contains("\u001b["), "no terminal escape codes");
  }

  @Test
  void runStopAtEndAgainstABrokerWithoutMaven() throws Exception {
    try (KafkaClusterTestKit kafka = broker()) {
      Path data = root.resolve("data");
      Path config = ordersTopicAndConfig(kafka, "dbserver1.public.orders", data, "dist-test");

      Result r = lakesink("run", "--config", config.toString(), "--stop-at-end");

      assertEquals(0, r.exit, r.output + r.log);
      LocalStorage storage = new LocalStorage(data, "lakesink");
      var rows = DeltaTableReader.readAll(new DeltaTable(KernelEngine.create(storage), storage.tableLocation("orders_APPEND")));
      assertEquals(50, rows.size());
      assertFalse(Files.exists(home.resolve("var/cds")), "without cksum and ls on the PATH the launcher keeps no archive");
    }
  }

  /**
   * The worker's class-data sharing archive (the launcher's cds_options, {@code ClassDataArchive}):
   * a run that fails at start writes none, the first clean run writes it whole under its final
   * name, and later runs load lakesink's classes from it. A part left by a worker killed while
   * writing it is deleted, never mapped (mapping one cut short crashes the JVM); another
   * installation's archive in the same directory is kept while it is in use, deleted once unused
   * for a week.
   */
  @Test
  void theWorkerKeepsAClassDataSharingArchiveAfterACleanRun(@TempDir Path cds) throws Exception {
    Path tools = cdsTools();
    try (KafkaClusterTestKit kafka = broker()) {
      Path config = ordersTopicAndConfig(kafka, "dbserver1.public.customers", root.resolve("data-cds"), "dist-cds-test");
      Map<String, String> env = Map.of("PATH", tools.toString(), "LAKESINK_CDS_DIR", cds.toString());

      Path broken = root.resolve("broken.yaml");
      Files.writeString(broken, Files.readString(config) + "no_such_key: 1\n");
      Result failed = lakesink(env, "run", "--config", broken.toString(), "--stop-at-end");
      assertEquals(4, failed.exit, failed.output + failed.log);
      assertEquals(List.of(), names(cds), "a run that failed at start writes no archive");

      Result first = lakesink(env, "run", "--config", config.toString(), "--stop-at-end");
      assertEquals(0, first.exit, first.output + first.log);
      List<String> written = assertOneArchiveWritten(cds, first);
      assertFalse((first.output + first.log).contains("[cds"), "the JVM's notes while writing it are not shown:\n" + first.output);

      // What a worker killed while the JVM wrote its part leaves behind.
      Path archive = cds.resolve(written.get(0));
      Path cutShort = cds.resolve(written.get(0) + ".2147483646.part");
      Files.write(cutShort, java.util.Arrays.copyOf(Files.readAllBytes(archive), (int) (Files.size(archive) / 2)));
      // Other installations' archives in the same directory: one started from an hour ago, one a
      // week and a day ago (an upgraded installation's). Ours was last used three days ago.
      long now = System.currentTimeMillis();
      Path shared = cds.resolve("lakesink-1.jsa");
      Path stale = cds.resolve("lakesink-2.jsa");
      Files.writeString(shared, "another installation's archive");
      Files.writeString(stale, "an upgraded installation's archive");
      Files.setLastModifiedTime(shared, java.nio.file.attribute.FileTime.fromMillis(now - TimeUnit.HOURS.toMillis(1)));
      Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.fromMillis(now - TimeUnit.DAYS.toMillis(8)));
      Files.setLastModifiedTime(archive, java.nio.file.attribute.FileTime.fromMillis(now - TimeUnit.DAYS.toMillis(3)));

      Path classes = root.resolve("class-load.log");
      Map<String, String> logged = new java.util.HashMap<>(env);
      logged.put("LAKESINK_JAVA_OPTS", "-Xmx512m -Xlog:class+load=info:file=" + classes);
      Result second = lakesink(logged, "run", "--config", config.toString(), "--stop-at-end");
      assertEquals(0, second.exit, second.output + second.log);
      List<String> kept = new java.util.ArrayList<>(written);
      kept.add(shared.getFileName().toString());
      java.util.Collections.sort(kept);
      assertEquals(kept, names(cds),
          "the part cut short and the archive unused for a week are deleted; ours and the one in use elsewhere are kept");
      assertTrue(Files.getLastModifiedTime(archive).toMillis() > now - TimeUnit.HOURS.toMillis(1),
          "the archive started from is marked in use");
      assertTrue(Files.readAllLines(classes).stream()
              .anyMatch(l -> l.contains("io.lakesink.app.Main ") && l.contains("shared objects file")),
          "lakesink's classes are mapped from the archive");
      assertFalse((second.output + second.log).contains("[cds"), "no CDS warning:\n" + second.output);
    }
  }

  /** The usual way a worker stops, SIGTERM, is a clean stop too: the archive is written before the JVM halts. */
  @Test
  void aWorkerStoppedBySigtermWritesTheArchive(@TempDir Path cds) throws Exception {
    try (KafkaClusterTestKit kafka = broker()) {
      Path data = root.resolve("data-sigterm");
      Path config = ordersTopicAndConfig(kafka, "dbserver1.public.items", data, "dist-sigterm-test");
      Running worker = start(Map.of("PATH", cdsTools().toString(), "LAKESINK_CDS_DIR", cds.toString()),
          "run", "--config", config.toString());
      LocalStorage storage = new LocalStorage(data, "lakesink");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (delivered(storage) < 50) { // the flush interval's commit: polled, not slept for
        assertTrue(worker.process().isAlive(), "the worker ended early:\n" + Files.readString(worker.err()));
        assertTrue(System.nanoTime() < deadline, "the 50 events were not delivered within 120 s");
        Thread.sleep(200);
      }

      worker.process().destroy(); // SIGTERM
      Result r = worker.end();

      assertEquals(0, r.exit, r.output + r.log);
      assertOneArchiveWritten(cds, r);
    }
  }

  /** The one file in {@code cds} is a whole archive (no part), and the run's log says it wrote it. */
  private static List<String> assertOneArchiveWritten(Path cds, Result run) throws IOException {
    List<String> written = names(cds);
    assertEquals(1, written.size(), written.toString());
    assertTrue(written.get(0).matches("lakesink-\\d+\\.jsa"), written.toString());
    assertTrue(run.log.contains("Wrote the class-data sharing archive"), run.log);
    return written;
  }

  private static long delivered(LocalStorage storage) {
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("orders_APPEND"));
    return table.exists() ? DeltaTableReader.readAll(table).size() : 0;
  }

  /** A PATH with the tools the launcher's class-data sharing needs, beside those of {@link #path}. */
  private static synchronized Path cdsTools() throws IOException {
    Path tools = root.resolve("path-cds");
    if (!Files.isDirectory(tools)) {
      Files.createDirectories(tools);
      for (String tool : List.of("bash", "readlink", "dirname", "cksum", "ls", "mkdir", "rm", "touch")) {
        Files.createSymbolicLink(tools.resolve(tool), which(tool));
      }
    }
    return tools;
  }

  /** The launcher's JIT setting (C2 later), and none of it once LAKESINK_JAVA_OPTS sets the JIT itself. */
  @Test
  void theLauncherDelaysC2UnlessTheUserSetsTheJit() throws Exception {
    Result ours = lakesink(Map.of("LAKESINK_JAVA_OPTS", "-Xmx512m -XX:+PrintFlagsFinal"), "--version");
    assertEquals(0, ours.exit, ours.output + ours.log);
    assertEquals("20000", flag(ours.output, "Tier4InvocationThreshold"));
    assertEquals("40000", flag(ours.output, "Tier4CompileThreshold"));
    assertEquals("120000", flag(ours.output, "Tier4BackEdgeThreshold"));

    Result theirs = lakesink(Map.of("LAKESINK_JAVA_OPTS", "-Xmx512m -XX:Tier4InvocationThreshold=7000 -XX:+PrintFlagsFinal"),
        "--version");
    assertEquals(0, theirs.exit, theirs.output + theirs.log);
    assertEquals("7000", flag(theirs.output, "Tier4InvocationThreshold"));
    assertEquals("15000", flag(theirs.output, "Tier4CompileThreshold"), "the JVM's default: the launcher added nothing");
  }

  /** A flag's value as {@code -XX:+PrintFlagsFinal} prints it. */
  private static String flag(String printed, String name) {
    return printed.lines().map(l -> l.trim().split("\\s+")).filter(f -> f.length > 3 && f[1].equals(name))
        .map(f -> f[3]).findFirst().orElseThrow(() -> new AssertionError(name + " not printed"));
  }

  @Test
  void theDemoRunsFromTheArchiveAndPrintsOnlyItsOwnOutput() throws Exception {
    Result r = lakesink("demo", "--data", root.resolve("demo-data").toString());
    assertEquals(0, r.exit, r.output + r.log);
    assertTrue(r.output.startsWith("Starting a local Kafka broker"), r.output);
    assertTrue(r.output.contains("Changelog table:"), r.output);
    assertFalse(r.output.contains("metadata.version") || r.output.contains("Formatting"),
        "the broker's bootstrap metadata is not the user's output:\n" + r.output);
    assertFalse((r.output + r.log).contains("\u001b["), "no terminal escape codes");
  }

  /** What a run printed: its standard output and, apart, its log (standard error). */
  private record Result(int exit, String output, String log) {}

  /**
   * A topic of 50 changes in 2 partitions, and a configuration that delivers it into a local
   * directory as the table {@code orders}.
   */
  private static Path ordersTopicAndConfig(KafkaClusterTestKit kafka, String topic, Path data, String group) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int id = 1; id <= 50; id++) {
        producer.send(new ProducerRecord<>(topic, id % 2, "{\"id\":" + id + "}",
            "{\"before\":null,\"after\":{\"id\":" + id + ",\"status\":\"new\"},\"op\":\"c\",\"source\":{\"ts_ms\":1}}"));
      }
      producer.flush();
    }
    Path config = root.resolve(group + ".yaml");
    Files.writeString(config, String.join("\n",
        "kafka:",
        "  bootstrap_servers: " + kafka.bootstrapServers(),
        "  group_id: " + group,
        "storage:",
        "  type: local",
        "  path: " + data,
        "status:",
        "  enabled: false",
        "subscriptions:",
        "  - {topic: " + topic + ", table: orders, primary_key: [id]}",
        ""));
    return config;
  }

  private static Result lakesink(String... args) throws Exception {
    return lakesink(Map.of(), args);
  }

  /** @param overrides environment variables set beside (or instead of) the launcher's usual ones */
  private static Result lakesink(Map<String, String> overrides, String... args) throws Exception {
    return start(overrides, args).end();
  }

  /** A launched {@code bin/lakesink}, its standard output and error going to files. */
  private record Running(Process process, Path out, Path err, String command) {
    /** Waits for the process to exit (240 s at most) and returns what it printed. */
    Result end() throws Exception {
      if (!process.waitFor(240, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(command + " did not end:\n" + Files.readString(out) + Files.readString(err));
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
  }

  private static Running start(Map<String, String> overrides, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/lakesink").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", path.toString()); // no Maven, no java: JAVA_HOME names it
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("HOME", root.toString());
    env.putAll(overrides);
    Path out = Files.createTempFile(root, "out", ".txt");
    Path err = Files.createTempFile(root, "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    return new Running(pb.start(), out, err, "bin/lakesink " + String.join(" ", args));
  }

  private static KafkaClusterTestKit broker() throws Exception {
    KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(
            new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("offsets.topic.num.partitions", "2")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .build();
    kit.format();
    kit.startup();
    kit.waitForReadyBrokers();
    return kit;
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  private static Path which(String tool) {
    for (String d : System.getenv("PATH").split(":")) {
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException(tool + " is not on the PATH");
  }
}
