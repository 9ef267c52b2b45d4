package io.lakesink.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import io.lakesink.sources.MySqlColumns.Col;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentState;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real MariaDB 10.11, Debezium's MySQL connector reading its binlog (embedded engine), the test
 * broker, and the lakesink worker: after the snapshot, after inserts/updates/deletes, after an
 * {@code ALTER TABLE ... ADD COLUMN} and after a {@code TRUNCATE}, every table lakesink wrote (the
 * changelog's current state and the MERGE table, for JSON, JSON with schemas and Avro) equals the
 * database, value by value, as docs/types.md renders each column type.
 *
 * <p>Values Debezium itself changes are kept out (docs/sources.md lists them): {@code FLOAT}
 * values have few significant digits (the snapshot keeps about 6), and no datetime falls between
 * 1582-10-05 and 1582-10-14 (shifted by 10 days). Zero dates are in, as the nulls Debezium sends.
 *
 * <p>One connector run feeds every case: the converter is what differs between JSON, JSON with
 * schemas and Avro, so {@link DebeziumCapture} converts each record three ways. Each phase ends
 * with a row in a marker table; once Debezium hands that row over, everything before it is in Kafka.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // the whole run takes about a minute; a busy machine gets room
class MariaDbEndToEndTest {
  private static final String DB = "shop";
  private static final List<String> FORMATS = List.of("json", "jsonschema", "avro");
  private static final List<String> TABLES = List.of("all_types", "more_types", "orders");

  private static Path work;
  private static MariaDbServer server;
  private static LocalKafkaBroker broker;
  private static TestSchemaRegistry registry;
  private static DebeziumCapture capture;
  private static boolean passed;
  private static final BlockingQueue<String> progress = new LinkedBlockingQueue<>();

  @BeforeAll
  static void start() throws Exception {
    // Readable by all: the server runs as user mysql when the test runs as root.
    work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "mariadb-e2e-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    server = MariaDbServer.start(work.resolve("db"));
    broker = LocalKafkaBroker.start();
    registry = TestSchemaRegistry.start();
    server.execute("mysql", "CREATE DATABASE " + DB + " CHARACTER SET utf8mb4");
    server.execute(DB,
        create("all_types", MySqlColumns.ALL_TYPES.subList(0, MySqlColumns.ALL_TYPES.size() - 1)), // note: ALTER TABLE adds it
        create("more_types", MySqlColumns.MORE_TYPES),
        create("orders", MySqlColumns.ORDERS),
        "CREATE TABLE marker (id INT PRIMARY KEY)");
    server.execute(DB, Rows.SNAPSHOT);
    for (String f : FORMATS) {
      for (String t : TABLES) {
        broker.createTopic(topic(f, t), 1);
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (capture != null) {
      capture.close();
    }
    if (registry != null) {
      registry.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (server != null) {
      server.close();
    }
    if (passed) { // a failed run keeps its data directory, server log and Delta tables to look at
      try (var paths = Files.walk(work)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static String create(String table, List<Col> columns) {
    return "CREATE TABLE " + table + " (" + columns.stream().map(c -> "`" + c.name() + "` " + c.sql()).collect(Collectors.joining(", "))
        + ") CHARACTER SET utf8mb4";
  }

  private static String topic(String format, String table) {
    return format + ".shop." + DB + "." + table;
  }

  @Test
  void lakesinkTablesEqualTheDatabaseThroughSnapshotChangesAlterAndTruncate() throws Exception {
    // A transaction held open across the snapshot: its update began before the snapshot (the
    // binlog stamps it then, whole seconds) and commits after it, so the snapshot reads the row
    // as it was and stamps it later, when it read it; the update follows in the same partition.
    // It must win (docs/sources.md, "A row changed during the snapshot").
    java.sql.Connection open = server.connect(DB);
    open.setAutoCommit(false);
    try (var s = open.createStatement()) {
      s.executeUpdate("UPDATE orders SET name = 'changed during the snapshot', qty = 66 WHERE id = 6");
    }
    Thread.sleep(1_100); // the snapshot's stamp, in milliseconds, then falls at least a second after the update's
    capture = new DebeziumCapture(
        DebeziumCapture.mySqlConnector(server, DB, DB + ".all_types," + DB + ".more_types," + DB + ".orders," + DB + ".marker", work.resolve("history.dat")),
        broker.bootstrapServers(), TABLES.stream().map(t -> "shop." + DB + "." + t).collect(Collectors.toSet()), formats(), MariaDbEndToEndTest::observe);
    await("snapshot-done");
    assertTablesEqualDatabase("snapshot");
    open.commit();
    open.close();
    marker(0);
    assertTablesEqualDatabase("a transaction held open across the snapshot");
    assertEquals("changed during the snapshot", database("orders", MySqlColumns.ORDERS).get("6").get("name"));

    server.execute(DB, Rows.CHANGES);
    marker(1);
    assertTablesEqualDatabase("inserts, updates and deletes");

    server.execute(DB, Rows.ADD_COLUMN);
    marker(2);
    assertTablesEqualDatabase("ALTER TABLE ... ADD COLUMN");

    server.execute(DB, Rows.TRUNCATE);
    marker(3);
    assertTablesEqualDatabase("TRUNCATE");
    assertEquals(Set.of("3", "101", "102"), database("orders", MySqlColumns.ORDERS).keySet(), "the issue's truncate case");

    documentedRenderings();
    passed = true;
  }

  /**
   * A few values spelled out as docs/types.md documents them, beside the comparison with the
   * database's own rendering above: what a reader of the docs would expect to see.
   */
  private static void documentedRenderings() throws Exception {
    Map<String, Map<String, Object>> typed = byId(rows("avro_all_types_merge", true));
    assertEquals("-12:00:00.000001", typed.get("2").get("dur"), "TIME: a negative duration, microseconds written out");
    assertEquals("-838:59:59.000000", typed.get("7").get("dur"), "TIME at its lower bound");
    assertEquals("100:00:00.000000", typed.get("5").get("dur"), "TIME beyond one day");
    assertEquals(new BigDecimal("18446744073709551615"), typed.get("2").get("big_u"), "unsigned BIGINT, precise");
    assertEquals("-99999999999999999999999999999999999.999999999999999999999999999999", typed.get("2").get("money"),
        "DECIMAL(65,30): text, exact, plain notation");
    assertEquals(LocalDate.of(1, 1, 1), typed.get("2").get("d"));
    assertEquals(Instant.parse("1969-12-31T23:59:59.999999Z"), typed.get("4").get("dt"), "DATETIME(6) before 1970, in UTC");
    assertNull(typed.get("7").get("d"), "a zero date arrives as null");
    assertEquals("red", typed.get("2").get("color"));
    assertEquals("later", typed.get("2").get("note"), "the column added by ALTER TABLE");
    Map<String, Map<String, Object>> text = byId(rows("json_all_types", false));
    assertEquals("-43200000001", text.get("2").get("dur"), "without a schema: Debezium's microseconds, as text");
    assertEquals("ünïcödé ✓", text.get("1").get("txt"));
  }

  private static List<Map<String, Object>> rows(String table, boolean merge) {
    WorkerConfig config = config(merge);
    Subscription s = config.subscriptions().stream().filter(x -> x.table().equals(table)).findFirst().orElseThrow();
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      List<Map<String, Object>> rows = DeltaTableReader.readAll(Pipeline.table(storage, KernelEngine.create(storage), s));
      return merge ? rows : CurrentState.collapse(rows, List.of("id"), false);
    }
  }

  private static Map<String, Map<String, Object>> byId(List<Map<String, Object>> rows) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    rows.forEach(r -> out.put(String.valueOf(r.get("id")), r));
    return out;
  }

  /** Notes the end of the snapshot and each marker row, once its batch is in Kafka. */
  private static void observe(SourceRecord r) {
    if (r.value() instanceof Struct v && v.schema().field("source") != null) {
      Struct source = v.getStruct("source");
      if ("last".equals(String.valueOf(source.get("snapshot")))) {
        progress.add("snapshot-done");
      }
      if (r.topic().endsWith(".marker") && v.schema().field("after") != null && v.getStruct("after") != null) {
        progress.add("marker-" + v.getStruct("after").get("id"));
      }
    }
  }

  private static void marker(int n) throws Exception {
    server.execute(DB, "INSERT INTO marker VALUES (" + n + ")");
    await("marker-" + n);
  }

  private static void await(String event) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < deadline) {
      String e = progress.poll(1, TimeUnit.SECONDS);
      if (event.equals(e)) {
        return;
      }
      if (capture.failure() != null) {
        throw new AssertionError("Debezium stopped: " + capture.failure(), capture.failure());
      }
    }
    fail("no " + event + " from Debezium within 180 s");
  }

  private static List<DebeziumCapture.Format> formats() {
    return List.of(json("json", false), json("jsonschema", true), avro());
  }

  private static DebeziumCapture.Format json(String name, boolean schemas) {
    JsonConverter keys = new JsonConverter();
    JsonConverter values = new JsonConverter();
    // Without schemas a decimal must be a JSON number: the converter's default (base64 of the
    // unscaled bytes) cannot be read back without the scale. docs/sources.md says so.
    Map<String, String> common = Map.of("schemas.enable", Boolean.toString(schemas), "decimal.format", schemas ? "BASE64" : "NUMERIC");
    keys.configure(common, true);
    values.configure(common, false);
    return new DebeziumCapture.Format() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public byte[] key(String topic, SourceRecord r) {
        return keys.fromConnectData(topic, r.keySchema(), r.key());
      }

      @Override
      public byte[] value(String topic, SourceRecord r) {
        return values.fromConnectData(topic, r.valueSchema(), r.value());
      }
    };
  }

  private static DebeziumCapture.Format avro() {
    ConnectAvro converter = new ConnectAvro(registry);
    return new DebeziumCapture.Format() {
      @Override
      public String name() {
        return "avro";
      }

      @Override
      public byte[] key(String topic, SourceRecord r) {
        return converter.serialize(topic, true, r.keySchema(), r.key());
      }

      @Override
      public byte[] value(String topic, SourceRecord r) {
        return converter.serialize(topic, false, r.valueSchema(), r.value());
      }
    };
  }

  // --- lakesink ---

  private static String table(String format, String source, boolean merge) {
    return format + "_" + source + (merge ? "_merge" : "");
  }

  /** A topic feeds one subscription: one worker (and group) per mode, both reading every topic. */
  private static WorkerConfig config(boolean merge) {
    StringBuilder y = new StringBuilder()
        .append("kafka:\n  bootstrap_servers: ").append(broker.bootstrapServers())
        .append("\n  group_id: mariadb-e2e-").append(merge ? "merge" : "changelog").append('\n')
        .append("storage:\n  type: local\n  path: ").append(work.resolve("lake")).append('\n')
        .append("delivery:\n  flush_interval: 1s\n")
        .append("status:\n  host: 127.0.0.1\n  port: 0\n")
        .append("schema_registry:\n  url: ").append(registry.url()).append('\n')
        .append("subscriptions:\n");
    for (String f : FORMATS) {
      for (String t : TABLES) {
        // The changelog names its key; a MERGE table takes the fields of Debezium's record key, as
        // each converter wrote it (the default), so that path meets the real connector's keys too.
        String common = "topic: " + topic(f, t) + ", format: " + (f.equals("avro") ? "avro" : "json");
        y.append("  - {").append(common).append(", table: ").append(table(f, t, merge))
            .append(merge ? ", mode: merge}\n" : ", primary_key: [id]}\n");
      }
    }
    return new ConfigLoader(name -> null).parse(y.toString(), "test");
  }

  private static void assertTablesEqualDatabase(String after) throws Exception {
    for (boolean merge : new boolean[] {false, true}) {
      WorkerConfig config = config(merge);
      WorkerResult result;
      try (TableStorage storage = Pipeline.storage(config.storage());
          var worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
        result = worker.run(true);
      }
      assertTrue(result.allDelivering(), "after " + after + ": " + result.states());
    }
    List<String> problems = new ArrayList<>();
    try (TableStorage storage = Pipeline.storage(config(false).storage())) {
      for (String source : TABLES) {
        List<Col> columns = columnsNow(source);
        Map<String, Map<String, String>> db = database(source, columns);
        for (String f : FORMATS) {
          boolean typed = !f.equals("json");
          for (boolean merge : new boolean[] {false, true}) {
            String name = table(f, source, merge);
            Subscription s = config(merge).subscriptions().stream().filter(x -> x.table().equals(name)).findFirst().orElseThrow();
            var delta = Pipeline.table(storage, KernelEngine.create(storage), s);
            List<Map<String, Object>> rows = DeltaTableReader.readAll(delta);
            if (!merge) {
              rows = CurrentState.collapse(rows, List.of("id"), false);
            }
            compare(name, typed, columns, db, rows, problems);
            if (typed) {
              Map<String, String> types = new TreeMap<>();
              delta.columns().orElseThrow().forEach(c -> types.put(c.name(), c.type().toString()));
              for (Col c : columns) {
                if (!c.deltaType().equals(types.get(c.name()))) {
                  problems.add(name + "." + c.name() + ": Delta type " + types.get(c.name()) + ", expected " + c.deltaType());
                }
              }
            }
          }
        }
      }
    }
    assertEquals(List.of(), problems, "after " + after + ", lakesink's tables differ from the database");
  }

  private static void compare(String table, boolean typed, List<Col> columns, Map<String, Map<String, String>> db,
      List<Map<String, Object>> rows, List<String> problems) {
    Set<String> seen = new HashSet<>();
    for (Map<String, Object> row : rows) {
      String id = String.valueOf(row.get("id"));
      seen.add(id);
      Map<String, String> expected = db.get(id);
      if (expected == null) {
        problems.add(table + ": row id " + id + " is not in the database");
        continue;
      }
      for (Col c : columns) {
        Object lake = row.get(c.name());
        if (!MySqlColumns.matches(c, typed, expected.get(c.name()), lake)) {
          problems.add(table + " id " + id + " " + c.name() + ": database " + expected.get(c.name()) + ", lakesink " + lake
              + (lake == null ? "" : " (" + lake.getClass().getSimpleName() + ")"));
        }
      }
    }
    for (String id : db.keySet()) {
      if (!seen.contains(id)) {
        problems.add(table + ": database row id " + id + " is missing");
      }
    }
  }

  /** The table's columns the test knows, as the database has them now (ALTER TABLE adds one). */
  private static List<Col> columnsNow(String table) throws SQLException {
    Set<String> present = new HashSet<>();
    try (Connection c = server.connect(DB); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW COLUMNS FROM " + table)) {
      while (rs.next()) {
        present.add(rs.getString(1));
      }
    }
    List<Col> all = switch (table) {
      case "orders" -> MySqlColumns.ORDERS;
      case "more_types" -> MySqlColumns.MORE_TYPES;
      default -> MySqlColumns.ALL_TYPES;
    };
    return all.stream().filter(col -> present.contains(col.name())).toList();
  }

  /** Each row's columns rendered by the database: id → column → text (null for SQL NULL). */
  private static Map<String, Map<String, String>> database(String table, List<Col> columns) throws SQLException {
    String select = "SELECT " + columns.stream().map(Col::select).collect(Collectors.joining(", ")) + " FROM " + table;
    Map<String, Map<String, String>> rows = new TreeMap<>();
    try (Connection c = server.connect(DB); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(select)) {
      while (rs.next()) {
        Map<String, String> row = new java.util.HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          row.put(columns.get(i).name(), rs.getString(i + 1));
        }
        rows.put(row.get("id"), row);
      }
    }
    return rows;
  }
}
