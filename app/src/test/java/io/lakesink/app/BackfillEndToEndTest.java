package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.backfill.BackfillSources;
import io.lakesink.backfill.Backfill;
import io.lakesink.backfill.BackfillProgress;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentState;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.lakesink.error.ConfigurationException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code lakesink backfill} on a real broker and real Delta tables, beside a live worker. */
@Timeout(300)
class BackfillEndToEndTest {
  @TempDir Path data;
  @TempDir Path files;

  /** Reference time of the demo stream (DemoChangeStream.T0) as the text a CSV holds. */
  private static final Instant T0 = Instant.ofEpochMilli(1_760_000_000_000L);

  private static void produce(KafkaProducer<byte[], byte[]> p, String topic, String op, long id, String name, long ts) {
    SharedKafka.send(p, topic, 0, "{\"id\":" + id + "}", ChangelogEndToEndTest.envelope(op, id, name, ts));
  }

  /** id,name,qty rows as the schemaless stream renders them (qty = id * 3). */
  private Path csv(String name, int from, int to) throws Exception {
    StringBuilder s = new StringBuilder("id,name,qty\n");
    for (int i = from; i < to; i++) {
      s.append(i).append(",v").append(i).append(',').append(i * 3).append('\n');
    }
    return write(name, s.toString());
  }

  private Path write(String name, String text) throws Exception {
    Path f = files.resolve(name);
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  private Path configFile(WorkerHarness w) throws Exception {
    return write("lakesink-" + w.groupId + ".yaml", w.yaml());
  }

  private static BackfillCommand.Request request(Path config, String table, BackfillSources.Kind kind, Path file, String id, int batchRows) {
    return new BackfillCommand.Request(config, table,
        new BackfillSources.Spec(kind, null, null, null, List.of(file.toString())), id, batchRows, false, false);
  }

  private static Map<Long, String> names(List<Map<String, Object>> rows) {
    Map<Long, String> out = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      assertEquals(null, out.put(Long.parseLong((String) r.get("id")), (String) r.get("name")), "one row per key: " + r.get("id"));
    }
    return out;
  }

  private static long backfillPosition(WorkerHarness w, String table, String id) {
    String app = Backfill.APP_ID_PREFIX + id;
    w.table(table).refresh();
    return w.table(table).transactionVersions(List.of(app)).getOrDefault(app, -1L);
  }

  @Test
  void bothModesBackfillDuringStreamingWithoutTouchingStreamedRowsAndTheViewEqualsTheMerge() throws Exception {
    String mergeTopic = SharedKafka.newTopic("bf-merge", 1);
    String changelogTopic = SharedKafka.newTopic("bf-log", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (String topic : List.of(mergeTopic, changelogTopic)) {
        for (int i = 0; i < 10; i++) produce(p, topic, "c", i, "v" + i, 1000 + i);
      }
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + mergeTopic + ", table: m, mode: merge, primary_key: [id]}")
        .subscribe("- {topic: " + changelogTopic + ", table: c, primary_key: [id]}");
    w.delivery = "  flush_interval: 200ms\n";
    assertEquals(Main.OK, w.runToEnd());
    Path config = configFile(w);
    Path history = csv("history.csv", 0, 30);

    // The worker keeps streaming while both backfills run. After a backfill's first batch, the
    // stream sends updates of keys the backfill also holds (5..9), keys inside the backfill's
    // range (20..24) and new keys, and the backfill goes on only once the worker committed
    // some of them: its later batches and the worker's commits race on the same table.
    int produced = 10 + 15;
    Map<String, CountDownLatch> workerCommitted = Map.of("m", new CountDownLatch(1), "c", new CountDownLatch(1));
    Set<String> streaming = java.util.concurrent.ConcurrentHashMap.newKeySet();
    FlushHook afterStreamed = (table, step) -> {
      if (step == FlushStep.AFTER_COMMIT && streaming.contains(table)) {
        workerCommitted.get(table.replace("_APPEND", "")).countDown();
      }
    };
    try (TableStorage storage = Pipeline.storage(w.config().storage());
        KafkaWorker live = Pipeline.worker(w.config(), storage, afterStreamed, Clock.systemUTC())) {
      CompletableFuture<?> worker = CompletableFuture.runAsync(() -> live.run(false));
      for (String table : List.of("m", "c")) {
        String topic = table.equals("m") ? mergeTopic : changelogTopic;
        BackfillProgress streamAfterFirstBatch = new BackfillProgress() {
          @Override
          public void committed(long position, long written, long version) {
            if (position > 3) {
              return;
            }
            streaming.add(table.equals("m") ? "m" : "c_APPEND");
            try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
              for (int i = 5; i < 10; i++) produce(p, topic, "u", i, "u" + i, 2000 + i);
              for (int i = 20; i < 25; i++) produce(p, topic, "c", i, "s" + i, 2000 + i);
              for (int i = 100; i < 105; i++) produce(p, topic, "c", i, "s" + i, 2000 + i);
              p.flush();
            }
            try {
              assertTrue(workerCommitted.get(table).await(120, TimeUnit.SECONDS), "the live worker committed streamed changes");
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          }
        };
        assertEquals(Main.OK, BackfillCommand.run(request(config, table, BackfillSources.Kind.CSV, history, "hist", 3), name -> null,
            streamAfterFirstBatch));
      }
      live.stop();
      worker.join();
    }
    assertEquals(Main.OK, w.runToEnd()); // whatever the live worker had not committed yet

    Map<Long, String> expected = new TreeMap<>();
    for (long i = 0; i < 30; i++) expected.put(i, "v" + i);
    for (long i = 5; i < 10; i++) expected.put(i, "u" + i);
    for (long i = 20; i < 25; i++) expected.put(i, "s" + i);
    for (long i = 100; i < 105; i++) expected.put(i, "s" + i);

    List<Map<String, Object>> merged = w.rows("m");
    assertEquals(expected, names(merged), "the stream's rows win; the backfill filled only the keys it lacked");
    for (Map<String, Object> r : merged) {
      boolean backfilled = "r".equals(r.get("__op"));
      long id = Long.parseLong((String) r.get("id"));
      assertEquals(id >= 10 && id < 30 && !(id >= 20 && id < 25), backfilled, "row " + r);
      if (backfilled) {
        assertEquals(null, r.get("__ts_ms"), "a merged backfill row ranks below every change");
        assertEquals(null, r.get("__offset"));
      }
    }

    List<Map<String, Object>> changelog = w.rows("c");
    assertEquals(30, changelog.stream().filter(r -> "r".equals(r.get("__op")) && Long.valueOf(0).equals(r.get("__ts_ms"))).count(),
        "every source row appended once, at __ts_ms = 0");
    List<Map<String, Object>> view = CurrentState.collapse(changelog, List.of("id"), true);
    assertEquals(expected, names(view), "every streamed change ranks above the backfilled rows");
    assertEquals(project(merged), project(view), "the view over the changelog equals the merged table");

    // The worker's offsets are its own: the backfill's identifier sits beside them.
    for (String table : List.of("m", "c")) {
      String topic = table.equals("m") ? mergeTopic : changelogTopic;
      assertEquals(Map.of(new SourcePartition(topic, 0), (long) produced), w.storedOffsets(table, topic, 1));
      assertEquals(Map.of(0, (long) produced), w.groupOffsets(topic));
      assertEquals(30L, backfillPosition(w, table, "hist"));
    }

    // Running the same backfill again writes nothing; a new id on the MERGE table changes no row.
    long mergeVersion = w.table("m").version();
    long changelogVersion = w.table("c").version();
    assertEquals(Main.OK, BackfillCommand.run(request(config, "m", BackfillSources.Kind.CSV, history, "hist", 3), name -> null, BackfillProgress.NONE));
    assertEquals(Main.OK, BackfillCommand.run(request(config, "c", BackfillSources.Kind.CSV, history, "hist", 3), name -> null, BackfillProgress.NONE));
    assertEquals(mergeVersion, w.table("m").version());
    assertEquals(changelogVersion, w.table("c").version());
    assertEquals(changelog.size(), w.rows("c").size());
    // Keys 5..9 changed at the source since this history: the render check refuses the sample
    // that holds them (the stream delivered other values), and --skip-check says "I know".
    String err = captureErr(() -> assertEquals(ExitCode.CHECK_FAILED.code,
        BackfillCommand.run(request(config, "m", BackfillSources.Kind.CSV, history, "again", 100), name -> null, BackfillProgress.NONE)));
    assertTrue(err.contains("column name (string) of key [5]: the backfill renders 'v5', the stream delivered 'u5'"), err);
    BackfillCommand.Request skipCheck = new BackfillCommand.Request(config, "m",
        new BackfillSources.Spec(BackfillSources.Kind.CSV, null, null, null, List.of(history.toString())), "again", 100, false, true);
    assertEquals(Main.OK, BackfillCommand.run(skipCheck, name -> null, BackfillProgress.NONE));
    assertEquals(project(merged), project(w.rows("m")), "a MERGE table only takes keys it lacks");
  }

  /**
   * Rows as the view shows them: source columns and __op, by key, and __ts_ms of streamed rows
   * (a backfilled row has 0 in a changelog, none in a MERGE table: both rank below every change).
   */
  private static Map<Object, Map<String, Object>> project(List<Map<String, Object>> rows) {
    Map<Object, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      Map<String, Object> m = new TreeMap<>();
      for (String c : List.of("id", "name", "qty", "__op")) m.put(c, r.get(c));
      Object ts = r.get("__ts_ms");
      m.put("__ts_ms", ts == null || ts.equals(0L) ? "backfilled" : ts);
      out.put(Long.parseLong((String) r.get("id")), m);
    }
    return out;
  }

  /** Stops the backfill after some commits, as a crash would. */
  private static final class CrashAfter implements BackfillProgress {
    final int commits;
    int seen;
    long resumedAt = -1;
    long finishedAt = -1;

    CrashAfter(int commits) {
      this.commits = commits;
    }

    @Override
    public void started(String id, long resumed, OptionalLong total) {
      resumedAt = resumed;
    }

    @Override
    public void committed(long position, long written, long version) {
      if (++seen == commits) {
        throw new IllegalStateException("injected crash after " + commits + " batches");
      }
    }

    @Override
    public void finished(long position, long written) {
      finishedAt = position;
    }
  }

  @Test
  void aBackfillStoppedAfterThreeBatchesResumesWhereTheLogSaysAndLoadsEveryRowOnce() throws Exception {
    String topic = SharedKafka.newTopic("bf-crash", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 3; i++) produce(p, topic, "c", i, "v" + i, 1000 + i);
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, primary_key: [id]}");
    assertEquals(Main.OK, w.runToEnd());
    Path config = configFile(w);
    BackfillCommand.Request request = request(config, "t", BackfillSources.Kind.CSV, csv("history.csv", 0, 50), null, 5);

    CrashAfter crash = new CrashAfter(3);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> BackfillCommand.run(request, name -> null, crash));
    assertTrue(e.getMessage().contains("injected crash"));
    assertEquals(0, crash.resumedAt);
    assertEquals(15, w.rows("t").stream().filter(r -> "r".equals(r.get("__op"))).count(), "three batches committed");

    CrashAfter resumed = new CrashAfter(Integer.MAX_VALUE);
    assertEquals(Main.OK, BackfillCommand.run(request, name -> null, resumed));
    assertEquals(15, resumed.resumedAt, "the default id found the first run's progress in the log");
    assertEquals(50, resumed.finishedAt);
    List<Map<String, Object>> backfilled = w.rows("t").stream().filter(r -> "r".equals(r.get("__op"))).toList();
    assertEquals(50, backfilled.size());
    assertEquals(50, backfilled.stream().map(r -> r.get("id")).collect(Collectors.toSet()).size(), "each source row once");
  }

  /** The demo orders (typed: bigint, decimal(10,2), date, timestamp) delivered to {@code orders}. */
  private WorkerHarness demoOrders(String mode) {
    String topic = SharedKafka.newTopic("bf-orders", DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(SharedKafka.bootstrap(), topic);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: orders, mode: " + mode + ", primary_key: [id]}");
    assertEquals(Main.OK, w.runToEnd());
    return w;
  }

  private static final String ORDERS_HEADER = "id,customer,status,amount,order_date,updated_at\n";
  /** Order 5 exactly as the stream delivered it. */
  private static final String ORDER_5 = "5,ken,pending,50.50,2026-11-02,2025-10-09 08:53:20\n";

  private static String captureErr(Runnable r) {
    PrintStream before = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(before);
    }
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aRenderMismatchIsRefusedWithTheColumnAndBothValuesBeforeAnythingIsWritten() throws Exception {
    WorkerHarness w = demoOrders("merge");
    Path config = configFile(w);
    long version = w.table("orders").version();
    // A dump that wrote the timestamp in Paris wall-clock time: two hours off.
    Path shifted = write("shifted.csv", ORDERS_HEADER + "5,ken,pending,50.50,2026-11-02,2025-10-09 10:53:20\n"
        + "8,alan,pending,80.00,2026-11-04,2025-10-09 10:00:00\n");
    int[] exit = new int[1];
    String err = captureErr(() -> exit[0] = Main.run("backfill", "--config", config.toString(), "--table", "orders",
        "--from", "csv", "--file", shifted.toString()));
    assertEquals(ExitCode.CHECK_FAILED.code, exit[0], err);
    assertTrue(err.contains("column updated_at (timestamp) of key [5]"), err);
    assertTrue(err.contains("2025-10-09T10:53:20Z") && err.contains("2025-10-09T08:53:20Z"), "both values: " + err);
    assertEquals(version, w.table("orders").version(), "nothing written");

    Path right = write("right.csv", ORDERS_HEADER + ORDER_5 + "8,alan,pending,80.00,2026-11-04,2025-10-09 10:00:00\n");
    assertEquals(Main.OK, Main.run("backfill", "--config", config.toString(), "--table", "orders", "--from", "csv",
        "--file", right.toString(), "--check-only"));
    assertEquals(version, w.table("orders").version(), "--check-only writes nothing");

    assertEquals(Main.OK, Main.run("backfill", "--config", config.toString(), "--table", "orders", "--from", "csv",
        "--file", files.resolve("r*.csv").toString()));
    Map<Object, Map<String, Object>> rows = byId(w.rows("orders"));
    assertEquals(new BigDecimal("80.00"), rows.get(8L).get("amount"));
    assertEquals(LocalDate.of(2026, 11, 4), rows.get(8L).get("order_date"));
    assertEquals(Instant.parse("2025-10-09T10:00:00Z"), rows.get(8L).get("updated_at"));
    assertEquals("r", rows.get(8L).get("__op"));
    assertEquals("pending", rows.get(5L).get("status"));
    assertTrue(rows.get(5L).get("__offset") != null, "order 5 is still the streamed row");
  }

  @Test
  void aTableAnotherCatalogEntryOwnsIsNotBackfilled() throws Exception {
    WorkerHarness w = demoOrders("merge");
    Path config = configFile(w);
    // The harness's configuration has no catalog; the table now records another entry as owner.
    w.table("orders").commitProperties(p -> TableOwner.registering("lake", "main.sales.orders", 1).registered().properties());
    long version = w.table("orders").version();
    Path rows = write("owned.csv", ORDERS_HEADER + ORDER_5 + "8,alan,pending,80.00,2026-11-04,2025-10-09 10:00:00\n");
    int[] exit = new int[1];
    String err = captureErr(() -> exit[0] = Main.run("backfill", "--config", config.toString(), "--table", "orders",
        "--from", "csv", "--file", rows.toString()));
    assertEquals(ExitCode.CONFIGURATION.code, exit[0], err);
    assertTrue(err.contains("lakesink backfill refuses to write table orders: it is owned by catalog entry lake:main.sales.orders"),
        err);
    assertTrue(err.contains("Nothing was written."), err);
    assertEquals(version, w.table("orders").version(), "nothing written");
  }

  private static Map<Object, Map<String, Object>> byId(List<Map<String, Object>> rows) {
    Map<Object, Map<String, Object>> out = new HashMap<>();
    rows.forEach(r -> assertEquals(null, out.put(r.get("id"), r), "one row per key"));
    return out;
  }

  private static int backfillQuietly(BackfillCommand.Request request, Map<String, String> env, StringBuilder printed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream before = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      return BackfillCommand.run(request, env::get, BackfillProgress.NONE);
    } finally {
      System.setOut(before);
      printed.append(out.toString(StandardCharsets.UTF_8));
    }
  }

  @Test
  void jdbcFromARealPostgresqlWithCredentialsFromTheEnvironment() throws Exception {
    WorkerHarness w = demoOrders("changelog");
    Path config = configFile(w);
    try (EmbeddedPostgres pg = EmbeddedPostgres.start()) {
      try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE public.orders (id bigint PRIMARY KEY, customer text, status varchar(20), amount numeric(10,2),"
            + " order_date date, updated_at timestamp)");
        // Orders 4 and 6 as the stream delivered them (the render check compares them), 8..10 never streamed.
        s.execute("INSERT INTO public.orders VALUES (6, 'margaret', 'pending', 60.00, DATE '2026-11-03', TIMESTAMP '2025-10-09 08:53:30')");
        s.execute("INSERT INTO public.orders VALUES (4, 'barbara', 'pending', 99.99, DATE '2026-11-02', TIMESTAMP '2025-10-09 08:54:40')");
        for (int i = 8; i <= 10; i++) {
          s.execute("INSERT INTO public.orders VALUES (" + i + ", 'c" + i + "', 'paid', " + i + ".25, DATE '2026-01-" + (10 + i)
              + "', TIMESTAMP '2025-01-01 12:00:00.123456')");
        }
        s.execute("CREATE ROLE backfiller LOGIN PASSWORD 's3cret-pw'");
        s.execute("GRANT SELECT ON public.orders TO backfiller");
      }
      // No user in the URL: without the environment's user the driver would log in as the OS user.
      String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
      Map<String, String> env = Map.of(BackfillSources.JDBC_USER_ENV, "backfiller", BackfillSources.JDBC_PASSWORD_ENV, "s3cret-pw");
      StringBuilder printed = new StringBuilder();
      assertEquals(Main.OK, backfillQuietly(new BackfillCommand.Request(config, "orders",
          new BackfillSources.Spec(BackfillSources.Kind.JDBC, url, null, "public.orders", List.of()), "pg", 2, false, false), env, printed),
          printed.toString());
      assertTrue(printed.toString().contains("2 of them compared"), printed.toString());
      assertFalse(printed.toString().contains("s3cret-pw"), printed.toString());

      List<Map<String, Object>> changelog = w.rows("orders");
      Map<Object, Map<String, Object>> state = byId(CurrentState.collapse(changelog, List.of("id"), true));
      assertEquals(Set.of(1L, 2L, 4L, 5L, 6L, 8L, 9L, 10L), state.keySet());
      assertEquals(new BigDecimal("99.99"), state.get(4L).get("amount"));
      assertTrue((Long) state.get(4L).get("__ts_ms") > 0, "order 4 is the streamed change");
      Map<String, Object> nine = state.get(9L);
      assertEquals(new BigDecimal("9.25"), nine.get("amount"));
      assertEquals(LocalDate.of(2026, 1, 19), nine.get("order_date"));
      assertEquals(Instant.parse("2025-01-01T12:00:00.123456Z"), nine.get("updated_at"), "a timestamp without zone reads as UTC, as Debezium sends it");
      assertEquals(5, changelog.stream().filter(r -> "r".equals(r.get("__op")) && Long.valueOf(0).equals(r.get("__ts_ms"))).count());
      assertEquals(5L, backfillPosition(w, "orders", "pg"));

      // A timestamptz renders as the same instant: the check passes and the view does not change.
      String zoned = "SELECT id, customer, status, amount, order_date, updated_at AT TIME ZONE 'UTC' AS updated_at"
          + " FROM public.orders ORDER BY id";
      assertEquals(Main.OK, backfillQuietly(new BackfillCommand.Request(config, "orders",
          new BackfillSources.Spec(BackfillSources.Kind.JDBC, url, zoned, null, List.of()), "pg-zoned", 100, false, false), env, printed),
          printed.toString());
      assertEquals(state, byId(CurrentState.collapse(w.rows("orders"), List.of("id"), true)));

      // A column the table does not have is refused by name before anything is written.
      long version = w.table("orders").version();
      ConfigurationException extra = assertThrows(ConfigurationException.class, () -> backfillQuietly(
          new BackfillCommand.Request(config, "orders", new BackfillSources.Spec(BackfillSources.Kind.JDBC, url,
              "SELECT o.*, 1 AS discount FROM public.orders o ORDER BY id", null, List.of()), "pg-extra", 100, false, false), env,
          new StringBuilder()));
      assertTrue(extra.getMessage().contains("column(s) discount"), extra.getMessage());
      assertEquals(version, w.table("orders").version());
    }
  }

  @Test
  void jsonLinesAndParquetFilesRenderTheirTypesAsTheStreamDoes() throws Exception {
    WorkerHarness w = demoOrders("merge");
    Path config = configFile(w);
    Path jsonl = write("orders.jsonl",
        "{\"id\":5,\"customer\":\"ken\",\"status\":\"pending\",\"amount\":50.50,\"order_date\":\"2026-11-02\",\"updated_at\":\"2025-10-09T08:53:20Z\"}\n"
            + "\n"
            + "{\"id\":8,\"customer\":\"alan\",\"status\":\"paid\",\"amount\":\"8.10\",\"order_date\":\"2026-11-08\",\"updated_at\":\"2025-10-09T09:00:00.5Z\"}\n");
    assertEquals(Main.OK, BackfillCommand.run(request(config, "orders", BackfillSources.Kind.JSONL, jsonl, null, 10), name -> null, BackfillProgress.NONE));

    MessageType schema = MessageTypeParser.parseMessageType("message orders { required int64 id; optional binary customer (STRING);"
        + " optional binary status (STRING); optional int64 amount (DECIMAL(10,2)); optional int32 order_date (DATE);"
        + " optional int64 updated_at (TIMESTAMP(MICROS,true)); }");
    Path parquet = files.resolve("orders.parquet");
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(parquet.toUri())).withType(schema).build()) {
      writer.write(groups.newGroup().append("id", 6L).append("customer", "margaret").append("status", "pending").append("amount", 6000L)
          .append("order_date", (int) LocalDate.of(2026, 11, 3).toEpochDay()).append("updated_at", (T0.toEpochMilli() + 10_000) * 1000));
      writer.write(groups.newGroup().append("id", 9L).append("customer", "edsger").append("status", "paid").append("amount", -125L)
          .append("order_date", (int) LocalDate.of(2026, 11, 9).toEpochDay()).append("updated_at", T0.toEpochMilli() * 1000 + 7));
    }
    assertEquals(Main.OK, BackfillCommand.run(request(config, "orders", BackfillSources.Kind.PARQUET, parquet, null, 10), name -> null, BackfillProgress.NONE));

    Map<Object, Map<String, Object>> rows = byId(w.rows("orders"));
    assertEquals(Set.of(1L, 2L, 4L, 5L, 6L, 8L, 9L), rows.keySet());
    assertEquals(new BigDecimal("8.10"), rows.get(8L).get("amount"));
    assertEquals(Instant.parse("2025-10-09T09:00:00.500Z"), rows.get(8L).get("updated_at"));
    assertEquals(new BigDecimal("-1.25"), rows.get(9L).get("amount"));
    assertEquals(LocalDate.of(2026, 11, 9), rows.get(9L).get("order_date"));
    assertEquals(T0.plusNanos(7000), rows.get(9L).get("updated_at"));
    assertEquals("r", rows.get(9L).get("__op"));
    assertTrue(rows.get(6L).get("__offset") != null && rows.get(5L).get("__offset") != null, "streamed rows untouched");
    Set<Object> backfilled = new HashSet<>();
    rows.values().stream().filter(r -> "r".equals(r.get("__op")) && r.get("__offset") == null).forEach(r -> backfilled.add(r.get("id")));
    assertEquals(Set.of(8L, 9L), backfilled);
  }
}
