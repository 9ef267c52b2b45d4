package io.lakesink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink on a real Connect cluster (two distributed workers over a KRaft broker, in this JVM)
 * that loads it from the plugin archive {@code mvn package} built, through {@code plugin.path}:
 * Debezium JSON into both modes, restarts and rebalances with every offset exactly once, a poison
 * record quarantining one table only (seen through the plugin's REST extension on every worker),
 * and secrets kept out of REST output and logs.
 */
@Timeout(600)
class ConnectClusterTest {
  private static final String SECRET = "s3cr3t-registry-password-4711";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();
  private static PrintStream originalErr;
  /** Jersey logs through java.util.logging, not slf4j: its warnings about lakesink's classes, caught here. */
  private static final List<String> JERSEY_WARNINGS = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Held: java.util.logging keeps its loggers weakly, and would drop the handler with one. */
  private static final java.util.logging.Logger JERSEY = java.util.logging.Logger.getLogger("org.glassfish.jersey");
  private static EmbeddedConnectCluster connect;
  @TempDir static Path data;
  private static int topics;

  @BeforeAll
  static void startCluster() throws Exception {
    // Every log line (slf4j-simple writes to System.err as it is at each line) is also kept here.
    originalErr = System.err;
    System.setErr(new PrintStream(new TeeStream(originalErr, LOG), true, StandardCharsets.UTF_8));
    JERSEY.addHandler(new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord r) {
        if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue() && String.valueOf(r.getMessage()).contains("io.lakesink")) {
          JERSEY_WARNINGS.add(r.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    Path secrets = data.resolve("secrets.properties");
    Files.writeString(secrets, "registry.password=" + SECRET + "\n");
    Map<String, String> worker = new HashMap<>();
    worker.put("offset.flush.interval.ms", "500");
    worker.put("plugin.path", PluginArchive.unzip(data.resolve("plugins")).toString());
    worker.put("rest.extension.classes", "io.lakesink.connect.LakesinkRestExtension");
    worker.put("config.providers", "file");
    worker.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
    connect = new EmbeddedConnectCluster.Builder().name("lakesink-connect").numWorkers(2).workerProps(worker).build();
    connect.start();
    connect.assertions().assertAtLeastNumWorkersAreUp(2, "workers did not start");
  }

  @AfterAll
  static void stopCluster() {
    try {
      if (connect != null) {
        connect.stop();
      }
    } finally {
      System.setErr(originalErr);
    }
  }

  /** The workers started with the REST extension: Jersey took its resource without "will be ignored". */
  @Test
  void theRestExtensionRegistersWithoutJerseyWarnings() {
    assertEquals(200, connect.requestGet(anyWorker() + "lakesink/status").getStatus());
    assertTrue(JERSEY_WARNINGS.isEmpty(), "Jersey warned: " + JERSEY_WARNINGS);
  }

  @Test
  void thePluginComesFromTheArchiveWithItsOwnDependenciesOnly() throws Exception {
    String plugins = String.valueOf(connect.requestGet(connect.endpointForResource("connector-plugins")).getEntity());
    assertTrue(plugins.contains("io.lakesink.connect.LakesinkSinkConnector"), plugins);
    Path plugin;
    try (var dirs = Files.list(data.resolve("plugins"))) {
      plugin = dirs.filter(Files::isDirectory).findFirst().orElseThrow();
    }
    assertTrue(Files.isRegularFile(plugin.resolve("manifest.json")));
    List<String> lib;
    try (var jars = Files.list(plugin.resolve("lib"))) {
      lib = jars.map(j -> j.getFileName().toString()).toList();
    }
    assertTrue(lib.stream().anyMatch(j -> j.startsWith("lakesink-connect-")), lib.toString());
    assertTrue(lib.stream().noneMatch(j -> j.startsWith("kafka-clients") || j.startsWith("connect-api")
        || j.startsWith("slf4j")), "jars Connect provides: " + lib);
  }

  @Test
  void debeziumJsonIntoChangelogAndMerge() throws Exception {
    String topic = newTopic("orders", 3);
    for (int id = 1; id <= 30; id++) {
      connect.kafka().produce(topic, id % 3, key(id), change("c", id, "new"));
    }
    for (int id = 1; id <= 30; id += 2) {
      connect.kafka().produce(topic, id % 3, key(id), change("u", id, "shipped"));
    }
    connect.kafka().produce(topic, 1, key(10), delete(10));
    int changes = 30 + 15 + 1;

    Map<String, String> changelogConfig = config(topic, "changelog");
    changelogConfig.put("current_state.object", "table"); // and the current-state table kept from it
    connect.configureConnector("cl-" + topic, changelogConfig);
    connect.configureConnector("mg-" + topic, config(topic, "merge"));

    List<Map<String, Object>> changelog = awaitRows(topic + "_APPEND", changes);
    assertEquals(changes, changelog.size());
    assertUniquePositions(changelog);
    awaitCondition(() -> rows(merged(topic)).size() == 29, "the merged table holds the current state");
    Map<Long, String> state = new TreeMap<>();
    rows(merged(topic)).forEach(r -> state.put(Long.valueOf(String.valueOf(r.get("id"))), (String) r.get("status")));
    assertFalse(state.containsKey(10L), "10 was deleted");
    assertEquals("shipped", state.get(1L));
    assertEquals("new", state.get(2L));
    // The kept table (two tasks follow the one changelog) holds the same current state as the MERGE table.
    awaitCondition(() -> {
      Map<Long, String> kept = new TreeMap<>();
      rows(topic).forEach(r -> kept.put(Long.valueOf(String.valueOf(r.get("id"))), (String) r.get("status")));
      return kept.equals(state);
    }, "the kept current-state table equals the merged table");
    awaitCondition(() -> {
      JsonNode t = tableStates("cl-" + topic).get(topic + "_APPEND");
      return t != null && t.has("current_state_table") && topic.equals(t.get("current_state_table").get("table").asText());
    }, "the task's status shows the kept table");
    // Its lag through the task's plugin metrics (JMX), as the worker's /metrics shows it: caught up, not stopped.
    awaitCondition(() -> keptTableMetrics("cl-" + topic, topic + "_APPEND").equals(List.of(0L, 0)),
        "the kept table's lag metrics show it caught up");
    connect.deleteConnector("cl-" + topic);
    connect.deleteConnector("mg-" + topic);
  }

  @Test
  void connectDataFromTheUsualConvertersKeepsItsSchemaTypes() throws Exception {
    // JsonConverter with schemas hands the task Structs (as AvroConverter would): their Connect
    // schema, with Debezium's and Connect's logical types, decides the column types.
    String topic = newTopic("typed", 2);
    for (int id = 1; id <= 20; id++) {
      connect.kafka().produce(topic, id % 2, key(id), typedChange("c", id, "new"));
    }
    connect.kafka().produce(topic, 1, key(7), typedChange("u", 7, "shipped"));
    Map<String, String> changelog = config(topic, "changelog");
    Map<String, String> merge = config(topic, "merge");
    for (Map<String, String> c : List.of(changelog, merge)) {
      c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
      c.put("key.converter.schemas.enable", "false");
      c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      c.put("value.converter.schemas.enable", "true");
    }
    connect.configureConnector("cl-" + topic, changelog);
    connect.configureConnector("mg-" + topic, merge);

    List<Map<String, Object>> appended = awaitRows(topic + "_APPEND", 21);
    assertEquals(21, appended.size());
    assertUniquePositions(appended);
    awaitCondition(() -> rows(merged(topic)).size() == 20 && rows(merged(topic)).stream().anyMatch(r -> "shipped".equals(r.get("status"))),
        "the merged table holds the current state");
    for (Map<String, Object> r : rows(merged(topic))) {
      long id = ((Number) r.get("id")).longValue();
      assertEquals(Instant.ofEpochMilli(1_700_000_000_000L + id), r.get("created_at"), "io.debezium.time.Timestamp → timestamp");
      assertEquals(new BigDecimal(id + ".25"), r.get("amount"), "Connect Decimal (scale 2) → decimal");
      assertEquals(id == 7 ? "shipped" : "new", r.get("status"));
    }
    connect.deleteConnector("cl-" + topic);
    connect.deleteConnector("mg-" + topic);
  }

  @Test
  void confluentAvroIntoChangelogAndMerge() throws Exception {
    Schema value = new Schema.Parser().parse("""
        {"type":"record","name":"Value","namespace":"shop.public.items","fields":[
          {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}]}""");
    Schema envelope = AvroRecords.envelope(value, false);
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      String topic = newTopic("items", 2);
      int id = registry.register(topic + "-value", envelope);
      try (KafkaProducer<byte[], byte[]> producer = connect.kafka().createProducer(Map.of())) {
        for (int i = 0; i < 20; i++) {
          GenericData.Record row = new GenericData.Record(value);
          row.put("id", (long) (i % 10)); // ten keys, each written twice
          row.put("name", "item" + i);
          GenericData.Record e = new GenericData.Record(envelope);
          e.put("after", row);
          e.put("source", AvroRecords.source(envelope, 1000L + i));
          e.put("op", i < 10 ? "c" : "u");
          byte[] key = ("{\"id\":" + (i % 10) + "}").getBytes(StandardCharsets.UTF_8);
          producer.send(new ProducerRecord<>(topic, i % 10 % 2, key, AvroRecords.wire(id, envelope, e)));
        }
        producer.flush();
      }
      for (String mode : List.of("changelog", "merge")) {
        Map<String, String> config = config(topic, mode);
        config.put("format", "avro");
        config.put("schema.registry.url", registry.url());
        connect.configureConnector("av-" + mode, config);
      }
      List<Map<String, Object>> changelog = awaitRows(topic + "_APPEND", 20);
      assertEquals(20, changelog.size());
      assertUniquePositions(changelog);
      awaitCondition(() -> rows(merged(topic)).size() == 10 && rows(merged(topic)).stream().allMatch(r -> {
        long k = (Long) r.get("id");
        return ("item" + (k + 10)).equals(r.get("name"));
      }), "the merged table holds each key's update, typed from the Avro schema");
      connect.deleteConnector("av-changelog");
      connect.deleteConnector("av-merge");
    }
  }

  @Test
  void restartsAndRebalancesMidStreamKeepEveryOffsetExactlyOnce() throws Exception {
    String topic = newTopic("moving", 4);
    Map<String, String> config = config(topic, "changelog");
    config.put("tasks.max", "3");
    config.put("flush.interval.ms", "200");
    String name = "ms-" + topic;
    int produced = produceBatch(topic, 0, 150);
    connect.configureConnector(name, config);
    connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 3, "tasks did not start");
    awaitCondition(() -> rows(topic + "_APPEND").size() > 0, "a first commit");

    produced += produceBatch(topic, produced, 150);
    connect.restartTask(name, 0); // killed mid-stream, its buffers lost
    produced += produceBatch(topic, produced, 150);
    var added = connect.addWorker(); // a rebalance moves partitions between workers
    produced += produceBatch(topic, produced, 150);
    connect.restartConnectorAndTasks(name, false, true, false);
    produced += produceBatch(topic, produced, 150);
    connect.removeWorker(added); // and back
    produced += produceBatch(topic, produced, 150);

    List<Map<String, Object>> rows = awaitRows(topic + "_APPEND", produced);
    assertUniquePositions(rows);
    Set<String> ids = new HashSet<>();
    rows.forEach(r -> ids.add(String.valueOf(r.get("id"))));
    assertEquals(produced, ids.size(), "every change once");
    connect.deleteConnector(name);
  }

  @Test
  void aPoisonRecordQuarantinesItsTableWhileAnotherFlows() throws Exception {
    String good = newTopic("good", 2);
    String bad = newTopic("bad", 2);
    Map<String, String> config = config(good + "," + bad, "changelog");
    config.put("tasks.max", "1");
    String name = "q-" + good;
    connect.kafka().produce(bad, 0, key(1), change("c", 1, "fine"));
    connect.kafka().produce(bad, 0, key(2), "this is not a change event");
    connect.kafka().produce(bad, 0, key(3), change("c", 3, "after the poison"));
    connect.configureConnector(name, config);
    int produced = 0;
    for (int batch = 0; batch < 3; batch++) {
      produced += produceBatch(good, produced, 100);
    }
    awaitRows(good + "_APPEND", produced);
    awaitCondition(() -> quarantinedTables(name) == 1, "the quarantined-tables metric shows the bad table");
    connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, "the task keeps running");
    assertTrue(rows(bad + "_APPEND").stream().noneMatch(r -> "after the poison".equals(r.get("status"))),
        "nothing past the poison record is written");
    String metrics = mbeanText(name);
    assertTrue(metrics.contains("table-state") && metrics.contains("quarantined"), metrics);

    // The REST extension, on whichever worker runs the task: the bad table quarantined with its
    // reason, the good one healthy, the task's partitions listed.
    Set<String> partitions = Set.of(good + "-0", good + "-1", bad + "-0", bad + "-1");
    awaitCondition(() -> ownedPartitions(name).equals(partitions) && tableStates(name).containsKey(bad + "_APPEND")
        && tableStates(name).containsKey(good + "_APPEND"), "the extension lists the task, its partitions and tables");
    Map<String, JsonNode> tables = tableStates(name);
    JsonNode quarantined = tables.get(bad + "_APPEND");
    assertEquals("quarantined", quarantined.get("state").asText(), quarantined.toString());
    String reason = quarantined.get("reason").asText();
    assertTrue(reason.contains("topic " + bad + ", partition 0, offset 1"), "the reason names the record: " + reason);
    assertFalse(reason.contains(SECRET), reason);
    assertFalse(quarantined.get("since").isNull(), quarantined.toString());
    JsonNode healthy = tables.get(good + "_APPEND");
    assertEquals("healthy", healthy.get("state").asText(), healthy.toString());
    assertTrue(healthy.get("reason").isNull(), healthy.toString());
    assertTrue(healthy.get("rows_delivered").isNumber() && healthy.get("buffered_events").isNumber(), healthy.toString());
    assertTrue(lakesinkTasks("lakesink/status").stream().anyMatch(t -> name.equals(t.get("connector").asText())),
        "/lakesink/status lists every connector's tasks");
    var unknown = connect.requestGet(anyWorker() + "lakesink/connectors/no-such-connector/status");
    assertEquals(404, unknown.getStatus());
    assertTrue(String.valueOf(unknown.getEntity()).contains("GET /connectors"), String.valueOf(unknown.getEntity()));
    connect.deleteConnector(name);
    awaitCondition(() -> lakesinkTasks("lakesink/status").stream().noneMatch(t -> name.equals(t.get("connector").asText())),
        "a stopped task leaves the extension's status");
  }

  @Test
  void secretsStayOutOfRestOutputAndLogs() throws Exception {
    String topic = newTopic("secret", 1);
    Map<String, String> config = config(topic, "changelog");
    config.put("schema.registry.url", "http://localhost:1");
    config.put("schema.registry.username", "lakesink");
    config.put("schema.registry.allow.insecure.http", "true");
    config.put("schema.registry.password", "${file:" + data.resolve("secrets.properties") + ":registry.password}");
    config.put("format", "json");
    String name = "s-" + topic;
    connect.kafka().produce(topic, 0, key(1), change("c", 1, "x"));
    connect.configureConnector(name, config);
    awaitRows(topic + "_APPEND", 1); // the task ran with the resolved password

    StringBuilder rest = new StringBuilder();
    for (String path : List.of("connectors/" + name, "connectors/" + name + "/config", "connectors/" + name + "/status",
        "connectors/" + name + "/tasks", "connectors?expand=info&expand=status")) {
      rest.append(connect.requestGet(connect.endpointForResource(path)).getEntity());
    }
    // A password given in plain text is masked where Connect shows a validated configuration.
    Map<String, String> plain = new HashMap<>(config);
    plain.put("schema.registry.password", SECRET);
    rest.append(connect.validateConnectorConfig("LakesinkSinkConnector", plain).toString());
    for (var worker : connect.workers()) {
      rest.append(connect.requestGet(base(worker.url()) + "lakesink/status").getEntity());
    }
    assertFalse(rest.toString().contains(SECRET), rest.toString());
    assertTrue(rest.toString().contains("${file:"), "the REST config shows the reference, not the value");
    assertFalse(LOG.toString(StandardCharsets.UTF_8).contains(SECRET), "the secret is in a log line");
    connect.deleteConnector(name);
  }

  // ---- helpers

  /** Each table the lakesink REST extension shows for the connector, over every worker's tasks. */
  private static Map<String, JsonNode> tableStates(String connector) {
    Map<String, JsonNode> tables = new HashMap<>();
    for (JsonNode task : lakesinkTasks("lakesink/connectors/" + connector + "/status")) {
      assertEquals(connector, task.get("connector").asText());
      task.get("tables").forEach(t -> tables.put(t.get("table").asText(), t));
    }
    return tables;
  }

  private static Set<String> ownedPartitions(String connector) {
    Set<String> owned = new HashSet<>();
    for (JsonNode task : lakesinkTasks("lakesink/connectors/" + connector + "/status")) {
      task.get("partitions").forEach(p -> owned.add(p.asText()));
    }
    return owned;
  }

  /** The tasks a lakesink REST endpoint lists, on all workers combined: tasks run on either. */
  private static List<JsonNode> lakesinkTasks(String path) {
    List<JsonNode> tasks = new java.util.ArrayList<>();
    for (var worker : connect.workers()) {
      var response = connect.requestGet(base(worker.url()) + path);
      String body = String.valueOf(response.getEntity());
      assertEquals(200, response.getStatus(), body);
      try {
        JSON.readTree(body).get("tasks").forEach(tasks::add);
      } catch (java.io.IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }
    return tasks;
  }

  private static String anyWorker() {
    return base(connect.workers().iterator().next().url());
  }

  private static String base(java.net.URI worker) {
    String u = worker.toString();
    return u.endsWith("/") ? u : u + "/";
  }

  private static String newTopic(String prefix, int partitions) {
    String t = prefix + "_" + (++topics);
    connect.kafka().createTopic(t, partitions);
    return t;
  }

  private static Map<String, String> config(String topics, String mode) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.lakesink.connect.LakesinkSinkConnector");
    c.put("tasks.max", "2");
    c.put("topics", topics);
    c.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    c.put("delivery.mode", mode);
    if (mode.equals("merge")) {
      // Beside a changelog connector on the same topic, the merge connector needs its own table
      // name: a table and the other mode's table of the same name share their offsets.
      c.put("table.name.format", "${topic}_merged");
    }
    c.put("primary.key", "id");
    c.put("storage.type", "local");
    c.put("storage.path", data.toString());
    c.put("storage.prefix", "tables");
    c.put("flush.interval.ms", "300");
    return c;
  }

  /** The merge connector's table for a topic (see {@link #config}). */
  private static String merged(String topic) {
    return topic + "_merged";
  }

  private static int produceBatch(String topic, int from, int count) {
    for (int i = from; i < from + count; i++) {
      connect.kafka().produce(topic, i % 4 % partitions(topic), key(i), change("c", i, "n" + i));
    }
    return count;
  }

  private static int partitions(String topic) {
    return topic.startsWith("moving") ? 4 : 2;
  }

  private static String key(long id) {
    return "{\"id\":" + id + "}";
  }

  private static String change(String op, long id, String status) {
    return "{\"before\":null,\"after\":{\"id\":" + id + ",\"status\":\"" + status + "\"},\"op\":\"" + op
        + "\",\"source\":{\"ts_ms\":" + (1_000 + id) + "},\"ts_ms\":" + (1_000 + id) + "}";
  }

  /** A Debezium change with its Connect schema, as Debezium's JsonConverter writes it with schemas.enable. */
  private static String typedChange(String op, long id, String status) {
    String row = "{\"type\":\"struct\",\"optional\":true,\"name\":\"db.public.typed.Value\",\"fields\":["
        + "{\"type\":\"int64\",\"optional\":false,\"field\":\"id\"},"
        + "{\"type\":\"string\",\"optional\":true,\"field\":\"status\"},"
        + "{\"type\":\"int64\",\"optional\":true,\"name\":\"io.debezium.time.Timestamp\",\"version\":1,\"field\":\"created_at\"},"
        + "{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,"
        + "\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"},\"field\":\"amount\"}]";
    String schema = "{\"type\":\"struct\",\"optional\":false,\"name\":\"db.public.typed.Envelope\",\"fields\":["
        + row + ",\"field\":\"before\"}," + row + ",\"field\":\"after\"},"
        + "{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
        + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
    String amount = java.util.Base64.getEncoder().encodeToString(BigInteger.valueOf(id * 100 + 25).toByteArray());
    String after = "{\"id\":" + id + ",\"status\":\"" + status + "\",\"created_at\":" + (1_700_000_000_000L + id)
        + ",\"amount\":\"" + amount + "\"}";
    return "{\"schema\":" + schema + ",\"payload\":{\"before\":null,\"after\":" + after + ",\"op\":\"" + op
        + "\",\"ts_ms\":" + ((op.equals("u") ? 5_000 : 2_000) + id) + "}}";
  }

  private static String delete(long id) {
    return "{\"before\":{\"id\":" + id + ",\"status\":\"x\"},\"after\":null,\"op\":\"d\",\"source\":{\"ts_ms\":9999}}";
  }

  private static List<Map<String, Object>> rows(String table) {
    TableStorage storage = new LocalStorage(data, "tables");
    try {
      return DeltaTableReader.readAll(new DeltaTable(KernelEngine.create(storage), storage.tableLocation(table)));
    } catch (RuntimeException notYetWritten) {
      return List.of();
    }
  }

  private static List<Map<String, Object>> awaitRows(String table, int count) throws InterruptedException {
    awaitCondition(() -> rows(table).size() >= count, table + " reaches " + count + " rows");
    return rows(table);
  }

  /** Polls a condition of the outside world with a generous deadline. */
  private static void awaitCondition(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting: " + what);
      }
      Thread.sleep(200); // polling a condition, with a deadline
    }
  }

  private static void assertUniquePositions(List<Map<String, Object>> rows) {
    Set<String> seen = new HashSet<>();
    for (Map<String, Object> r : rows) {
      assertTrue(seen.add(r.get("__partition") + "/" + r.get("__offset")), "duplicate position " + r);
    }
  }

  private static int quarantinedTables(String connector) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      int total = 0;
      for (ObjectName n : server.queryNames(new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)) {
        try {
          total += ((Number) server.getAttribute(n, "quarantined-tables")).intValue();
        } catch (javax.management.AttributeNotFoundException other) {
          // another metric group of the same plugin
        }
      }
      return total;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The kept table's lag in versions and its stopped flag, summed over the connector's tasks (each
   * task that writes the changelog keeps a view of it); empty until a task registers them.
   */
  private static List<Number> keptTableMetrics(String connector, String changelog) {
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      long lag = 0;
      int stopped = 0;
      boolean found = false;
      for (ObjectName n : server.queryNames(
          new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",table=" + changelog + ",*"), null)) {
        lag += ((Number) server.getAttribute(n, TaskMetrics.KEPT_LAG_VERSIONS)).longValue();
        stopped += ((Number) server.getAttribute(n, TaskMetrics.KEPT_STOPPED)).intValue();
        found = true;
      }
      return found ? List.of(lag, stopped) : List.of();
    } catch (javax.management.AttributeNotFoundException notYet) {
      return List.of();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String mbeanText(String connector) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    StringBuilder sb = new StringBuilder();
    for (ObjectName n : server.queryNames(new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)) {
      sb.append(n).append(' ');
      for (var a : server.getMBeanInfo(n).getAttributes()) {
        sb.append(a.getName()).append('=').append(server.getAttribute(n, a.getName())).append(' ');
      }
    }
    return sb.toString();
  }

  /** Writes to two streams. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int x) throws java.io.IOException {
      a.write(x);
      b.write(x);
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}
