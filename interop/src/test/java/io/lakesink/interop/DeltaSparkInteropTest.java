package io.lakesink.interop;

import static io.lakesink.interop.SparkRows.BY_ID;
import static io.lakesink.interop.SparkRows.BY_POSITION;
import static io.lakesink.interop.SparkRows.assertRows;
import static io.lakesink.interop.SparkRows.assertSchema;
import static io.lakesink.interop.SparkRows.collect;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.DemoChangeStream;
import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.storage.TableStorage;
import io.delta.kernel.engine.Engine;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.Snapshot;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * lakesink's tables read by Delta's reference implementation: a real Kafka broker, the real
 * worker (stop at end), then delta-spark 4.4 on Spark 4.2 in local mode reading the tables lakesink
 * wrote with Delta Kernel. Every row is compared, not only counts.
 *
 * <p>Three streams: the demo's typed {@code orders} (decimal, date, timestamp, deletes with
 * tombstones, a same-millisecond tie); a schemaless flattened {@code customers} stream of a few
 * hundred records (every column a string), delivered in 20+ small commits so Kernel writes
 * checkpoints that Spark must use; and a typed {@code products} stream whose schema gains two
 * columns between two worker runs (the second run is also a restart from the offsets in the logs).
 *
 * <p>Besides rows and types: partitioning, (partition, offset) uniqueness, the Kafka offsets in the
 * Delta log as Spark reads them, the generated current-state view SQL, data skipping over Kernel's
 * statistics, time travel, and the version checksums ({@code N.crc}) against the log.
 *
 * <p>Runs the worker through the public {@link Pipeline} API, the same calls {@code Commands.run}
 * makes for {@code lakesink run --stop-at-end} (minus the shutdown hook and exit code).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class DeltaSparkInteropTest {
  @TempDir static Path dir;

  private LocalKafkaBroker broker;
  private SparkSession spark;
  private WorkerConfig config;
  private TableStorage storage;
  private Engine engine;
  private Subscription orders;
  private Subscription customersSub;
  private Subscription productsSub;
  private Subscription mergedOrders;
  private Subscription avroItems;
  private io.lakesink.kafka.avro.TestSchemaRegistry registry;
  static final String AVRO_TOPIC = "shop.public.items";
  static final org.apache.avro.Schema ITEMS_V1 = new org.apache.avro.Schema.Parser().parse("""
      {"type":"record","name":"Value","namespace":"shop.public.items","fields":[
        {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}]}""");
  static final org.apache.avro.Schema ITEMS_V2 = new org.apache.avro.Schema.Parser().parse("""
      {"type":"record","name":"Value","namespace":"shop.public.items","fields":[
        {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null},
        {"name":"qty","type":["null","int"],"default":null},
        {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null}]}""");
  static final String MERGE_TOPIC = "demo.public.orders.merge";
  private FlattenedCustomers customers;
  private final EvolvingProducts products = new EvolvingProducts();
  private long productsVersionAfterPhase1;
  private long ordersVersionAfterFirstRun;
  private long ordersVersionAfterSecondRun;
  private final Set<LocalDate> ingestDays = new TreeSet<>();

  @BeforeAll
  void deliverThenStartSpark() {
    LocalDate firstDay = LocalDate.now(ZoneOffset.UTC);
    broker = LocalKafkaBroker.start();
    String bootstrap = broker.bootstrapServers();
    broker.createTopic(DemoChangeStream.TOPIC, DemoChangeStream.PARTITIONS);
    broker.createTopic(FlattenedCustomers.TOPIC, FlattenedCustomers.PARTITIONS);
    broker.createTopic(EvolvingProducts.TOPIC, 1);
    broker.createTopic(MERGE_TOPIC, DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(bootstrap);
    DemoChangeStream.produce(bootstrap, MERGE_TOPIC);
    broker.createTopic(AVRO_TOPIC, 1);
    registry = startRegistry();
    produceAvro(bootstrap, 0, 5, false);
    customers = FlattenedCustomers.produce(bootstrap);
    products.producePhase1(bootstrap);

    config = ConfigLoader.fromSystemEnvironment().parse(configYaml(bootstrap), "interop test configuration");
    orders = subscription("orders");
    customersSub = subscription("customers");
    productsSub = subscription("products");
    mergedOrders = subscription("orders_merged");
    avroItems = subscription("items");
    storage = Pipeline.storage(config.storage());
    engine = KernelEngine.create(storage);

    deliver();
    productsVersionAfterPhase1 = kernelTable(productsSub).version();
    ordersVersionAfterFirstRun = kernelTable(orders).version();
    products.producePhase2(bootstrap);
    produceAvro(bootstrap, 5, 10, true); // the Avro schema gains qty and price halfway
    deliver(); // a restart: resumes from the offsets in the Delta logs
    ordersVersionAfterSecondRun = kernelTable(orders).version();

    for (LocalDate d = firstDay; !d.isAfter(LocalDate.now(ZoneOffset.UTC)); d = d.plusDays(1)) {
      ingestDays.add(d);
    }

    spark =
        LocalSpark.builder("lakesink-interop", dir)
            .config("spark.databricks.delta.snapshotPartitions", "1")
            .config("spark.sql.datetime.java8API.enabled", "true")
            .getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (broker != null) {
      broker.close();
    }
    if (registry != null) {
      registry.close();
    }
  }

  private String configYaml(String bootstrap) {
    // Small polls and flushes: the customers table gets 20+ commits, so Kernel writes checkpoints.
    return """
        kafka:
          bootstrap_servers: %s
          group_id: lakesink-interop
          properties:
            max.poll.records: 10
        storage:
          type: local
          path: %s
        delivery:
          flush_interval: 10m
          flush_rows: 10
        subscriptions:
          - topic: %s
            table: orders
            primary_key: [id]
          - topic: %s
            table: customers
            primary_key: [id]
          - topic: %s
            table: products
            primary_key: [id]
          - topic: %s
            table: orders_merged
            mode: merge
            primary_key: [id]
          - topic: %s
            table: items
            format: avro
            primary_key: [id]
        schema_registry:
          url: %s
        """.formatted(bootstrap, dir.resolve("data"), DemoChangeStream.TOPIC, FlattenedCustomers.TOPIC, EvolvingProducts.TOPIC,
            MERGE_TOPIC, AVRO_TOPIC, registry.url());
  }

  /** The worker as {@code lakesink run --stop-at-end} runs it (Commands.run minus exit codes). */
  private void deliver() {
    try (KafkaWorker worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      WorkerResult result = worker.run(true);
      assertTrue(result.allDelivering(), "every table delivered: " + result.states());
    }
  }

  private Subscription subscription(String table) {
    return config.subscriptions().stream().filter(s -> s.table().equals(table)).findFirst().orElseThrow();
  }

  private DeltaTable kernelTable(Subscription s) {
    DeltaTable t = Pipeline.table(storage, engine, s);
    t.refresh();
    return t;
  }

  private String location(Subscription s) {
    return storage.tableLocation(s.targetTable());
  }

  private Dataset<Row> read(Subscription s) {
    return spark.read().format("delta").load(location(s));
  }

  private static final List<Map.Entry<String, DataType>> METADATA_COLUMNS =
      List.of(
          Map.entry("__op", DataTypes.StringType),
          Map.entry("__deleted", DataTypes.BooleanType),
          Map.entry("__ts_ms", DataTypes.LongType),
          Map.entry("__partition", DataTypes.IntegerType),
          Map.entry("__offset", DataTypes.LongType),
          Map.entry("__ingest_date", DataTypes.DateType));

  /** Changelog rows without {@code __ingest_date}, after checking it is a day the worker ran. */
  private List<Map<String, Object>> changelogRows(Subscription s) {
    List<Map<String, Object>> rows = collect(read(s));
    for (Map<String, Object> r : rows) {
      Object day = r.remove("__ingest_date");
      assertTrue(ingestDays.contains(day), "__ingest_date " + day + " is a UTC day the worker ran on, " + ingestDays);
    }
    return rows;
  }

  // ---------------------------------------------------------------- orders (the demo stream)

  /** The changelog rows of the demo stream, positioned as {@link DemoChangeStream#produce} sends them. */
  private static List<Map<String, Object>> expectedOrdersChangelog(Map<Integer, long[]> bounds) {
    List<Map<String, Object>> rows = new ArrayList<>();
    Map<Integer, Long> next = new HashMap<>();
    for (DemoChangeStream.Change c : DemoChangeStream.changes()) {
      int partition = (int) (c.id() % DemoChangeStream.PARTITIONS);
      long offset = next.merge(partition, 1L, Long::sum) - 1;
      boolean delete = c.op().equals("d");
      DemoChangeStream.Order o = delete ? c.before() : c.after();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("id", o.id());
      r.put("customer", o.customer());
      r.put("status", o.status());
      r.put("amount", new BigDecimal(o.amount()));
      r.put("order_date", o.orderDate());
      r.put("updated_at", Instant.EPOCH.plusNanos(o.updatedAtMicros() * 1000));
      r.put("__op", c.op());
      r.put("__deleted", delete);
      r.put("__ts_ms", c.tsMs());
      r.put("__partition", partition);
      r.put("__offset", offset);
      rows.add(r);
      bounds.put(partition, new long[] {offset + 1, offset + 1});
      if (delete) {
        next.merge(partition, 1L, Long::sum); // the tombstone
        bounds.get(partition)[1] = offset + 2;
      }
    }
    return rows;
  }

  @Test
  void ordersChangelogHoldsEveryChangeExactlyOnceWithItsTypes() {
    Dataset<Row> df = read(orders);
    List<Map.Entry<String, DataType>> schema = new ArrayList<>(
        List.of(
            Map.entry("id", DataTypes.LongType),
            Map.entry("customer", DataTypes.StringType),
            Map.entry("status", DataTypes.StringType),
            Map.entry("amount", DataTypes.createDecimalType(10, 2)),
            Map.entry("order_date", DataTypes.DateType),
            Map.entry("updated_at", DataTypes.TimestampType)));
    schema.addAll(METADATA_COLUMNS);
    assertSchema(schema, df.schema(), "orders_APPEND as Spark reads it");

    assertRows(expectedOrdersChangelog(new HashMap<>()), changelogRows(orders), BY_POSITION, "orders_APPEND");
    assertEquals(ordersVersionAfterFirstRun, ordersVersionAfterSecondRun, "the second run found nothing new to commit for orders");
  }

  /** The current state of the demo, as DemoChangeStream documents it (ids 1, 2, 4, 5, 6). */
  private static List<Map<String, Object>> expectedOrdersCurrentState() {
    long t0 = 1_760_000_000_000L;
    LocalDate day = LocalDate.of(2026, 11, 2);
    List<Map<String, Object>> rows = new ArrayList<>();
    rows.add(order(1, "ada", "shipped", "10.50", day, t0 + 30_000, "u"));
    rows.add(order(2, "grace", "cancelled", "20.50", day, t0 + 50_000, "u")); // the later of two same-ms updates
    rows.add(order(4, "barbara", "pending", "99.99", day, t0 + 80_000, "u"));
    rows.add(order(5, "ken", "pending", "50.50", day, t0, "r"));
    rows.add(order(6, "margaret", "pending", "60.00", day.plusDays(1), t0 + 10_000, "c"));
    return rows;
  }

  private static Map<String, Object> order(long id, String customer, String status, String amount, LocalDate date, long tsMs, String op) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", id);
    r.put("customer", customer);
    r.put("status", status);
    r.put("amount", new BigDecimal(amount));
    r.put("order_date", date);
    r.put("updated_at", Instant.ofEpochMilli(tsMs));
    r.put("__op", op);
    r.put("__ts_ms", tsMs);
    return r;
  }

  /**
   * The view SQL exactly as lakesink prints it ({@code CREATE OR REPLACE VIEW `orders` AS SELECT *
   * EXCEPT (…) … QUALIFY …}), run unchanged: Spark 4.2 parses both. A permanent view may not
   * reference a temporary one, so the changelog is registered as an external Delta table named
   * {@code orders_APPEND}, as a catalog would hold it.
   */
  private static io.lakesink.kafka.avro.TestSchemaRegistry startRegistry() {
    try {
      return io.lakesink.kafka.avro.TestSchemaRegistry.start();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Debezium envelopes in Confluent Avro; {@code evolved} uses the schema with two more columns. */
  private void produceAvro(String bootstrap, int from, int to, boolean evolved) {
    org.apache.avro.Schema value = evolved ? ITEMS_V2 : ITEMS_V1;
    org.apache.avro.Schema envelope = io.lakesink.kafka.avro.AvroRecords.envelope(value, false);
    try {
      int id = registry.register(AVRO_TOPIC + "-value", envelope);
      java.util.Properties p = new java.util.Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
      p.put("value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
      try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(p)) {
        for (int i = from; i < to; i++) {
          org.apache.avro.generic.GenericData.Record row = new org.apache.avro.generic.GenericData.Record(value);
          row.put("id", (long) i);
          row.put("name", "item" + i);
          if (evolved) {
            row.put("qty", i * 10);
            row.put("price", io.lakesink.kafka.avro.AvroRecords.unscaled("-" + i + ".25"));
          }
          org.apache.avro.generic.GenericData.Record e = new org.apache.avro.generic.GenericData.Record(envelope);
          e.put("after", row);
          e.put("source", io.lakesink.kafka.avro.AvroRecords.source(envelope, 5000L + i));
          e.put("op", "c");
          producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(AVRO_TOPIC, 0, null,
              io.lakesink.kafka.avro.AvroRecords.wire(id, envelope, e)));
        }
        producer.flush();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void avroTableWhoseSchemaGainedTwoColumnsReadsRightInSpark() {
    Dataset<Row> items = read(avroItems);
    assertEquals(DataTypes.IntegerType, items.schema().apply("qty").dataType());
    assertEquals(DataTypes.createDecimalType(10, 2), items.schema().apply("price").dataType());
    List<String> names = List.of(items.schema().fieldNames());
    assertEquals(List.of("qty", "price"), names.subList(names.size() - 2, names.size()), "added at the end");
    Map<Long, Map<String, Object>> byId = new java.util.TreeMap<>();
    for (Map<String, Object> r : collect(items)) {
      byId.put((Long) r.get("id"), r);
    }
    assertEquals(10, byId.size());
    for (long i = 0; i < 10; i++) {
      Map<String, Object> r = byId.get(i);
      assertEquals("item" + i, r.get("name"));
      assertEquals(5000L + i, r.get("__ts_ms"));
      assertEquals(i < 5 ? null : (int) i * 10, r.get("qty"));
      assertEquals(i < 5 ? null : new BigDecimal("-" + i + ".25"), r.get("price"));
    }
  }

  @Test
  void mergedTableHoldsExactlyTheCurrentStateAsDeltaSparkReadsIt() {
    Dataset<Row> merged = read(mergedOrders);
    assertEquals(DataTypes.LongType, merged.schema().apply("id").dataType());
    assertEquals(DataTypes.createDecimalType(10, 2), merged.schema().apply("amount").dataType());
    assertEquals(DataTypes.StringType, merged.schema().apply("__op").dataType());
    assertEquals(DataTypes.LongType, merged.schema().apply("__ts_ms").dataType());
    assertEquals(List.of("id", "customer", "status", "amount", "order_date", "updated_at", "__op", "__ts_ms", "__partition", "__offset",
        "__rank_ts_ms"),
        List.of(merged.schema().fieldNames()));
    Map<Long, String> status = new java.util.TreeMap<>();
    Map<Long, BigDecimal> amount = new java.util.TreeMap<>();
    for (Map<String, Object> r : collect(merged)) {
      assertEquals(null, status.put((Long) r.get("id"), (String) r.get("status")), "one row per key");
      amount.put((Long) r.get("id"), (BigDecimal) r.get("amount"));
    }
    // 3 and 7 were deleted; 2's two updates share a timestamp and the one read last wins.
    assertEquals(Map.of(1L, "shipped", 2L, "cancelled", 4L, "pending", 5L, "pending", 6L, "pending"), status);
    assertEquals(new BigDecimal("99.99"), amount.get(4L));
    List<?> partitionColumns = spark.sql("DESCRIBE DETAIL delta.`" + location(mergedOrders) + "`").first().getList(
        spark.sql("DESCRIBE DETAIL delta.`" + location(mergedOrders) + "`").first().fieldIndex("partitionColumns"));
    assertEquals(List.of(), partitionColumns);
  }

  @Test
  void generatedViewSqlRunsUnchangedOverTheChangelogTable() {
    spark.sql("CREATE TABLE IF NOT EXISTS `orders_APPEND` USING delta LOCATION '" + location(orders) + "'");
    spark.sql(Pipeline.viewSql(config, orders));
    Dataset<Row> view = spark.table("orders");
    assertEquals(
        List.of("id", "customer", "status", "amount", "order_date", "updated_at", "__op", "__ts_ms"),
        List.of(view.schema().fieldNames()),
        "the view hides __deleted, __partition, __offset and __ingest_date");
    assertRows(expectedOrdersCurrentState(), collect(view), BY_ID, "view orders");
  }

  /**
   * The same SQL over a temporary view named {@code orders_APPEND} (what a reader without a
   * catalog does). The only change: {@code VIEW} becomes {@code TEMPORARY VIEW}, since Spark
   * refuses a permanent view over a temporary one.
   */
  @Test
  void generatedViewSqlOverTemporaryViews() {
    SparkSession session = spark.newSession(); // own temporary views, same catalog
    for (Subscription s : List.of(orders, customersSub)) {
      session.read().format("delta").load(location(s)).createOrReplaceTempView(s.targetTable());
      String sql = Pipeline.viewSql(config, s);
      assertTrue(sql.startsWith("CREATE OR REPLACE VIEW "), sql);
      session.sql(sql.replaceFirst("^CREATE OR REPLACE VIEW ", "CREATE OR REPLACE TEMPORARY VIEW "));
    }
    assertRows(expectedOrdersCurrentState(), collect(session.table("orders")), BY_ID, "temporary view orders");
    assertRows(new ArrayList<>(customers.current.values()), collect(session.table("customers")), BY_ID, "temporary view customers");
  }

  // ---------------------------------------------------------------- every table

  @Test
  void partitionedByIngestDateAsDeltaSparkSeesIt() {
    assertPartitionedByIngestDate(orders);
    assertPartitionedByIngestDate(customersSub);
  }

  @Test
  void noSourcePositionIsStoredTwice() {
    assertNoPositionTwice(orders);
    assertNoPositionTwice(customersSub);
  }

  /**
   * The Kafka offsets lakesink commits with its data (one transaction identifier per partition,
   * most of them written with Kernel internals) read back by Delta's reference implementation.
   */
  @Test
  void storedOffsetsReadTheSameInSpark() {
    Map<Integer, long[]> ordersBounds = new HashMap<>();
    expectedOrdersChangelog(ordersBounds);
    assertStoredOffsets(orders, ordersBounds);
    Map<Integer, long[]> customersBounds = new HashMap<>();
    customers.endOffsets.forEach((p, end) -> customersBounds.put(p, new long[] {customers.afterLastData.get(p), end}));
    assertStoredOffsets(customersSub, customersBounds);
  }

  /**
   * Every {@code N.crc} Kernel wrote must describe the table at version N as the log says it is:
   * readers (Delta Spark, and Kernel itself when lakesink restarts) take the schema from the
   * latest checksum instead of replaying the log. Each commit's checksum follows from the one
   * before, so the latest version has one, the MERGE table's (deletion vectors) and the widened
   * products' too, and Delta Spark's own validation against the state it rebuilds accepts it.
   */
  @Test
  void checksumFilesAgreeWithTheLog() throws Exception {
    for (Subscription s : List.of(orders, customersSub, productsSub, mergedOrders)) {
      LogReplay.assertChecksumsMatchLog(Path.of(URI.create(location(s))).resolve("_delta_log"));
      DeltaSparkChecks.assertLatestChecksumValid(spark, location(s), s.targetTable());
    }
  }

  private void assertPartitionedByIngestDate(Subscription s) {
    Row detail = spark.sql("DESCRIBE DETAIL delta.`" + location(s) + "`").first();
    assertEquals("delta", detail.getAs("format"), s.targetTable());
    assertEquals(List.of("__ingest_date"), detail.getList(detail.fieldIndex("partitionColumns")), s.targetTable() + " partitionColumns");
    Snapshot snapshot = snapshot(s);
    assertEquals(List.of("__ingest_date"), CollectionConverters.asJava(snapshot.metadata().partitionColumns()), s.targetTable() + " DeltaLog metadata");
    assertEquals("true", CollectionConverters.asJava(snapshot.metadata().configuration()).get("delta.appendOnly"), s.targetTable() + " delta.appendOnly");
    String[] files = read(s).inputFiles();
    assertTrue(files.length > 0, s.targetTable() + " has files");
    for (String file : files) {
      assertTrue(ingestDays.stream().anyMatch(d -> file.contains("/__ingest_date=" + d + "/")), s.targetTable() + " file " + file);
    }
  }

  private void assertNoPositionTwice(Subscription s) {
    long duplicates = read(s).groupBy("__partition", "__offset").count().where(col("count").gt(1)).count();
    assertEquals(0, duplicates, s.targetTable() + ": (__partition, __offset) pairs stored more than once");
    assertEquals(0, read(s).where(col("__partition").isNull().or(col("__offset").isNull())).count(), s.targetTable() + " positions present");
  }

  /**
   * Same versions as Kernel reads, one per partition, each between the last row's offset + 1 and
   * the partition's end (a trailing tombstone is only covered by a later commit).
   */
  private void assertStoredOffsets(Subscription s, Map<Integer, long[]> bounds) {
    Map<String, Long> inSpark = new HashMap<>();
    CollectionConverters.asJava(snapshot(s).transactions()).forEach((id, v) -> inSpark.put(id, ((Number) v).longValue()));
    Map<String, Long> inKernel = kernelTable(s).transactionVersions(inSpark.keySet());
    assertEquals(inKernel, inSpark, s.targetTable() + ": transaction versions, Kernel vs Spark");
    assertEquals(bounds.size(), inSpark.size(), s.targetTable() + ": one transaction id per partition, " + inSpark);
    bounds.forEach((p, b) -> {
      Long v = inSpark.get("lakesink/" + s.topic() + "/" + p);
      assertTrue(v != null && v >= b[0] && v <= b[1], s.targetTable() + " partition " + p + ": stored " + v + ", expected " + b[0] + ".." + b[1]);
    });
  }

  private Snapshot snapshot(Subscription s) {
    return DeltaSparkChecks.snapshot(spark, location(s));
  }

  // ---------------------------------------------------------------- customers (schemaless)

  @Test
  void schemalessFlattenedStreamReadsAsStringsRowForRow() {
    Dataset<Row> df = read(customersSub);
    List<Map.Entry<String, DataType>> schema = new ArrayList<>();
    FlattenedCustomers.COLUMNS.forEach(c -> schema.add(Map.entry(c, DataTypes.StringType)));
    schema.addAll(METADATA_COLUMNS);
    assertSchema(schema, df.schema(), "customers_APPEND as Spark reads it");
    assertTrue(customers.changelog.size() > 300, "a few hundred records");
    assertTrue(customers.changelog.stream().anyMatch(r -> Boolean.TRUE.equals(r.get("__deleted"))), "the stream has deletes");
    assertRows(customers.changelog, changelogRows(customersSub), BY_POSITION, "customers_APPEND");
  }

  /** 20+ commits with checkpointInterval 10: Spark starts from a checkpoint Kernel wrote. */
  @Test
  void sparkReadsTheCheckpointsKernelWrote() throws Exception {
    Path log = Path.of(URI.create(location(customersSub))).resolve("_delta_log");
    try (Stream<Path> files = Files.list(log)) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().equals("00000000000000000010.checkpoint.parquet")), "Kernel wrote the version 10 checkpoint");
    }
    Snapshot snapshot = snapshot(customersSub);
    assertTrue(snapshot.version() >= 20, "customers has 20+ commits: " + snapshot.version());
    long checkpoint = snapshot.checkpointProvider().version();
    assertTrue(checkpoint >= 10 && checkpoint % 10 == 0, "Spark's snapshot starts from a Kernel checkpoint, version " + checkpoint);
    assertEquals(customers.changelog.size(), read(customersSub).count());
  }

  @Test
  void currentStateViewOfSchemalessStream() {
    spark.sql("CREATE TABLE IF NOT EXISTS `customers_APPEND` USING delta LOCATION '" + location(customersSub) + "'");
    spark.sql(Pipeline.viewSql(config, customersSub));
    assertRows(new ArrayList<>(customers.current.values()), collect(spark.table("customers")), BY_ID, "view customers");
  }

  // ---------------------------------------------------------------- products (schema evolution)

  @Test
  void evolvedTableReadsOldRowsAsNullInNewColumns() {
    Dataset<Row> df = read(productsSub);
    List<Map.Entry<String, DataType>> narrow = new ArrayList<>(
        List.of(
            Map.entry("id", DataTypes.LongType),
            Map.entry("name", DataTypes.StringType),
            Map.entry("updated_at", DataTypes.TimestampType)));
    narrow.addAll(METADATA_COLUMNS);
    List<Map.Entry<String, DataType>> wide = new ArrayList<>(narrow);
    wide.add(Map.entry("price", DataTypes.createDecimalType(10, 2)));
    wide.add(Map.entry("in_stock", DataTypes.BooleanType));
    assertSchema(wide, df.schema(), "products_APPEND after the source gained two columns");

    List<Map<String, Object>> rows = changelogRows(productsSub);
    assertRows(products.changelog, rows, BY_POSITION, "products_APPEND");
    long oldRows = rows.stream().filter(r -> ((Number) r.get("__offset")).longValue() < 4).count();
    assertEquals(4, oldRows);
    assertEquals(4, df.where(col("price").isNull().and(col("in_stock").isNull()).and(col("__offset").lt(4))).count(), "rows written before the columns existed read null");

    assertPartitionedByIngestDate(productsSub);
    assertNoPositionTwice(productsSub);
    assertStoredOffsets(productsSub, Map.of(0, new long[] {products.endOffset, products.endOffset}));

    // Time travel to the version before the new columns: Spark shows the narrow schema.
    Dataset<Row> before = spark.read().format("delta").option("versionAsOf", productsVersionAfterPhase1).load(location(productsSub));
    assertSchema(narrow, before.schema(), "products_APPEND as of version " + productsVersionAfterPhase1);
    assertEquals(4, before.count());
  }

  /**
   * Kernel truncates timestamp statistics to milliseconds; Spark's data skipping must not skip
   * the file holding a value with microseconds above its recorded max.
   */
  @Test
  void dataSkippingFindsMicrosecondTimestampsAndNegativeOnes() {
    assertEquals(List.of(4L), ids(read(productsSub).where(col("updated_at").equalTo(lit(EvolvingProducts.NEWEST)))));
    assertEquals(List.of(4L), ids(read(productsSub).where(col("updated_at").gt(lit(EvolvingProducts.NEWEST.minusNanos(1000))))));
    assertEquals(List.of(), ids(read(productsSub).where(col("updated_at").gt(lit(EvolvingProducts.NEWEST)))));
    assertEquals(List.of(2L), ids(read(productsSub).where(col("updated_at").equalTo(lit(EvolvingProducts.BEFORE_EPOCH)))));
    assertEquals(List.of(4L), ids(read(productsSub).where(col("price").equalTo(lit(new BigDecimal("-1234567.89"))))));
  }

  private static List<Long> ids(Dataset<Row> df) {
    return df.select("id").collectAsList().stream().map(r -> r.getLong(0)).sorted().toList();
  }

  /** After a restart lakesink reads its own table through Kernel: it must see the new columns too. */
  @Test
  void lakesinkItselfSeesTheNewColumnsAfterARestart() {
    List<String> names = kernelTable(productsSub).columns().orElseThrow().stream().map(io.lakesink.event.Column::name).toList();
    assertEquals(
        List.of("id", "name", "updated_at", "__op", "__deleted", "__ts_ms", "__partition", "__offset", "__ingest_date", "price", "in_stock"),
        names,
        "products_APPEND columns as Kernel loads the table");
  }

  @Test
  void currentStateViewOfEvolvedTable() {
    spark.sql("CREATE TABLE IF NOT EXISTS `products_APPEND` USING delta LOCATION '" + location(productsSub) + "'");
    spark.sql(Pipeline.viewSql(config, productsSub));
    assertRows(new ArrayList<>(products.current.values()), collect(spark.table("products")), BY_ID, "view products");
  }
}
