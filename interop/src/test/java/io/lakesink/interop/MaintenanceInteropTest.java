package io.lakesink.interop;

import static io.lakesink.interop.SparkRows.collect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableRewrite;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.maintenance.VacuumResult;
import io.lakesink.storage.TableStorage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Optimized and vacuumed tables of both delivery modes, read by delta-spark: a real broker and
 * worker write a changelog and a MERGE table in 30+ small commits each; lakesink optimizes them
 * (small target files, so several per table), then vacuums. delta-spark must read the same rows
 * before and after, time travel to the version before the optimize while the retention holds, show
 * the OPTIMIZE in DESCRIBE HISTORY, and find nothing left for its own VACUUM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// Generous: Spark in local mode on a busy 2-core machine takes minutes.
@Timeout(900)
class MaintenanceInteropTest {
  static final String LOG_TOPIC = "maint.changelog";
  static final String MERGE_TOPIC = "maint.merge";
  static final MaintenanceSettings SMALL = MaintenanceSettings.DEFAULT.withTargetFileBytes(8 << 10);

  @TempDir static Path dir;
  private LocalKafkaBroker broker;
  private SparkSession spark;
  private TableStorage storage;
  private Subscription changelog;
  private Subscription merged;

  private DeltaTable vectors;
  private DeltaTable copyOnWrite;

  /** Delivers the MERGE topic into its own directory with {@code delivery.merge_deletion_vectors}. */
  private DeltaTable mergeOnly(String deletionVectors, String name) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse("""
        kafka: {bootstrap_servers: %s, group_id: maint-interop-%s, properties: {max.poll.records: 40}}
        storage: {type: local, path: %s}
        delivery: {flush_interval: 10m, flush_rows: 40, merge_deletion_vectors: %s}
        maintenance: {enabled: false}
        subscriptions:
          - {topic: %s, table: accounts, mode: merge, primary_key: [id]}
        """.formatted(broker.bootstrapServers(), name, dir.resolve("tables-" + name), deletionVectors, MERGE_TOPIC), name);
    TableStorage s = Pipeline.storage(config.storage());
    try (KafkaWorker worker = Pipeline.worker(config, s, FlushHook.NONE, Clock.systemUTC())) {
      assertTrue(worker.run(true).allDelivering());
    }
    return Pipeline.table(s, KernelEngine.create(s), config.subscriptions().get(0));
  }

  @BeforeAll
  void deliver() {
    broker = LocalKafkaBroker.start();
    broker.createTopic(LOG_TOPIC, 2);
    broker.createTopic(MERGE_TOPIC, 2);
    produce(broker.bootstrapServers(), LOG_TOPIC, false);
    produce(broker.bootstrapServers(), MERGE_TOPIC, true);
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse("""
        kafka: {bootstrap_servers: %s, group_id: maint-interop, properties: {max.poll.records: 40}}
        storage: {type: local, path: %s}
        delivery: {flush_interval: 10m, flush_rows: 40}
        subscriptions:
          - {topic: %s, table: people, mode: changelog, primary_key: [id]}
          - {topic: %s, table: accounts, mode: merge, primary_key: [id]}
        """.formatted(broker.bootstrapServers(), dir.resolve("tables"), LOG_TOPIC, MERGE_TOPIC), "maintenance interop");
    changelog = config.subscriptions().get(0);
    merged = config.subscriptions().get(1);
    storage = Pipeline.storage(config.storage());
    try (KafkaWorker worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      assertTrue(worker.run(true).allDelivering());
    }
    // The same MERGE topic twice more, each table kept as written: with deletion vectors (the
    // default for a new table) and copy-on-write, to compare what delta-spark reads.
    vectors = mergeOnly("new_tables", "vectors");
    copyOnWrite = mergeOnly("none", "cow");
    spark = LocalSpark.builder("lakesink-maintenance-interop", dir)
        // VACUUM ... RETAIN 0 HOURS: the strictest look delta-spark can take at what is left
        .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
        .getOrCreate();
  }

  /**
   * 1,200 changes keyed on id: inserts, updates and deletes. With {@code recent}, new keys with
   * updates and deletes of the last few keys (as a MERGE table sees them: most merges only add a
   * file, so the table has many); else 300 keys then changes all over them.
   */
  static void produce(String bootstrap, String topic, boolean recent) {
    Random random = new Random(topic.hashCode());
    long nextId = 0;
    try (TopicWriter w = new TopicWriter(bootstrap, topic)) {
      for (int i = 0; i < 1_200; i++) {
        boolean insert = recent ? nextId < 5 || random.nextInt(5) > 0 : i < 300;
        long id = insert ? nextId++ : recent ? nextId - 1 - random.nextInt(5) : random.nextInt(300);
        String op = insert ? "c" : random.nextInt(10) == 0 ? "d" : "u";
        String image = "{\"id\":" + id + ",\"name\":\"name-" + id + "-" + i + "\",\"balance\":" + (i * 7 % 1000) + "}";
        String value = "{\"before\":" + (op.equals("d") ? image : "null") + ",\"after\":" + (op.equals("d") ? "null" : image)
            + ",\"source\":{\"ts_ms\":" + (1_770_000_000_000L + i) + "},\"op\":\"" + op + "\",\"ts_ms\":" + (1_770_000_000_000L + i) + "}";
        w.send((int) (id % 2), ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (broker != null) {
      broker.close();
    }
  }

  DeltaTable table(Subscription s) {
    return Pipeline.table(storage, KernelEngine.create(storage), s);
  }

  /** The table's rows as delta-spark reads them, as sorted text (every column compared). */
  List<String> sparkRows(DeltaTable t, String... versionAsOf) {
    var reader = spark.read().format("delta");
    if (versionAsOf.length > 0) {
      reader = reader.option("versionAsOf", versionAsOf[0]);
    }
    return collect(reader.load(t.location())).stream().map(r -> new java.util.TreeMap<>(r).toString()).sorted().toList();
  }

  @Test
  void changelogReadsTheSameAfterOptimizeAndVacuum() {
    check(changelog, List.of());
  }

  @Test
  void mergeTableReadsTheSameAfterOptimizeAndVacuum() {
    check(merged, List.of("id"));
  }

  @Test
  void aMergeTableWithDeletionVectorsReadsAsTheCopyOnWriteOneAndVacuumsClean() {
    assertTrue(vectors.files().stream().anyMatch(f -> f.deletedRows() > 0), "merges deleted rows with deletion vectors");
    assertTrue(copyOnWrite.files().stream().allMatch(f -> f.deletedRows() == 0));
    List<String> expected = sparkRows(copyOnWrite);
    assertEquals(expected, sparkRows(vectors), "delta-spark reads the same rows from both tables");

    Row detail = spark.sql("DESCRIBE DETAIL delta.`" + vectors.location() + "`").collectAsList().get(0);
    assertEquals(3, detail.getInt(detail.fieldIndex("minReaderVersion")));
    assertEquals(7, detail.getInt(detail.fieldIndex("minWriterVersion")));
    assertTrue(scala.jdk.javaapi.CollectionConverters.asJava(detail.<String>getSeq(detail.fieldIndex("tableFeatures")))
        .contains("deletionVectors"), detail.toString());
    Row cowDetail = spark.sql("DESCRIBE DETAIL delta.`" + copyOnWrite.location() + "`").collectAsList().get(0);
    assertEquals(1, cowDetail.getInt(cowDetail.fieldIndex("minReaderVersion")), "copy-on-write keeps the old protocol");
    List<Row> history = spark.sql("DESCRIBE HISTORY delta.`" + vectors.location() + "`").collectAsList();
    assertEquals(vectors.version() + 1, history.size());

    // Our vacuum past the retention, then delta-spark's strictest look: nothing left to remove,
    // and the vector files the live files name are still there (the rows read the same).
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC);
    // (Merges with vectors remove no data file; a vector file goes only once no live file names it.)
    new TableMaintenance("accounts", vectors, List.of("id"), SMALL, later, line -> {}).vacuum(Optional.empty(), false, false);
    assertEquals(expected, sparkRows(vectors), "delta-spark reads the vacuumed table identically");
    List<Row> left = spark.sql("VACUUM delta.`" + vectors.location() + "` RETAIN 0 HOURS DRY RUN").collectAsList();
    assertEquals(List.of(), left, "delta-spark's own vacuum finds files lakesink should have removed");

    // Optimize purges the deleted rows: no vector left, the same rows.
    OptimizeResult optimized = new TableMaintenance("accounts", vectors, List.of("id"), SMALL, Clock.systemUTC(), line -> {})
        .optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    assertTrue(vectors.files().stream().allMatch(f -> f.deletedRows() == 0));
    assertEquals(expected, sparkRows(vectors), "delta-spark reads the optimized table identically");
  }

  private void check(Subscription s, List<String> key) {
    DeltaTable t = table(s);
    List<String> before = sparkRows(t);
    long beforeVersion = t.version();
    int filesBefore = t.files().size();
    assertTrue(filesBefore >= 10, s.targetTable() + " files: " + filesBefore);

    OptimizeResult optimized = new TableMaintenance(s.targetTable(), t, key, SMALL, Clock.systemUTC(), line -> {}).optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    assertTrue(optimized.after().files() >= 2 && optimized.after().files() < filesBefore / 2, optimized.toString());
    assertEquals(before, sparkRows(t), "delta-spark reads the optimized " + s.targetTable() + " identically");

    List<Row> history = spark.sql("DESCRIBE HISTORY delta.`" + t.location() + "` LIMIT 1").collectAsList();
    Row last = history.get(0);
    assertEquals(optimized.version().getAsLong(), last.getLong(last.fieldIndex("version")));
    assertEquals("OPTIMIZE", last.getString(last.fieldIndex("operation")));
    Map<String, String> metrics = scala.jdk.javaapi.CollectionConverters.asJava(last.<String, String>getMap(last.fieldIndex("operationMetrics")));
    assertEquals(String.valueOf(optimized.filesRewritten()), metrics.get("numRemovedFiles"), metrics.toString());

    // a crashed optimize leaves an orphan behind
    TableRewrite crashed = TableRewrite.begin(t, Map.of());
    crashed.copy(List.of(crashed.files().get(0)));

    // inside the retention: nothing a retained version needs goes, time travel still reads
    VacuumResult soon = new TableMaintenance(s.targetTable(), t, key, SMALL, Clock.systemUTC(), line -> {})
        .vacuum(Optional.empty(), false, false);
    assertEquals(0, soon.filesDeleted(), soon.toString());
    assertEquals(before, sparkRows(t, String.valueOf(beforeVersion)), "time travel to the version before the optimize");

    // past it: the replaced files and the orphan go, and delta-spark finds nothing more to vacuum
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC);
    VacuumResult vacuumed = new TableMaintenance(s.targetTable(), t, key, SMALL, later, line -> {}).vacuum(Optional.empty(), false, false);
    // every file the latest version does not hold: those the optimize replaced, the orphan, and
    // (MERGE) those earlier merges rewrote
    assertEquals(vacuumed.before().files() - vacuumed.live().files(), vacuumed.filesDeleted(), vacuumed.toString());
    assertTrue(vacuumed.filesDeleted() >= optimized.filesRewritten() + 1, vacuumed.toString());
    assertEquals(before, sparkRows(t), "delta-spark reads the vacuumed " + s.targetTable() + " identically");
    List<Row> left = spark.sql("VACUUM delta.`" + t.location() + "` RETAIN 0 HOURS DRY RUN").collectAsList();
    assertEquals(List.of(), left, "delta-spark's own vacuum finds files lakesink should have removed");
  }
}
