package io.lakesink.interop;

import static io.lakesink.interop.SparkRows.BY_ID;
import static io.lakesink.interop.SparkRows.assertRows;
import static io.lakesink.interop.SparkRows.collect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.migration.ChangelogMigration;
import io.lakesink.migration.MigrationHook;
import io.lakesink.migration.MigrationJournal;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentStateDefinition;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.CurrentStateSpec;
import io.delta.kernel.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The statement lakesink runs on a SQL warehouse (issue 12), executed by Spark over the
 * changelog, equals the merge-mode table of the same stream: before and after the stream gains
 * two columns. The same events go to two topics, one delivered as a changelog, one merged.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(900) // Spark's start and two deliveries took 206 s on a busy 2-core machine
class CurrentStateInteropTest {
  private static final String MERGED_TOPIC = EvolvingProducts.TOPIC + ".merge";
  @TempDir static Path dir;

  private LocalKafkaBroker broker;
  private SparkSession spark;
  private WorkerConfig config;
  private TableStorage storage;
  private Engine engine;
  private Subscription changelog;
  private Subscription merged;
  private final EvolvingProducts stream = new EvolvingProducts();
  private final EvolvingProducts mergedStream = new EvolvingProducts();
  private long changelogAfterPhase1;
  private long mergedAfterPhase1;

  @BeforeAll
  void deliverBothModes() {
    broker = LocalKafkaBroker.start();
    String bootstrap = broker.bootstrapServers();
    broker.createTopic(EvolvingProducts.TOPIC, 1);
    broker.createTopic(MERGED_TOPIC, 1);
    stream.producePhase1(bootstrap);
    mergedStream.producePhase1(bootstrap, MERGED_TOPIC);
    config = ConfigLoader.fromSystemEnvironment().parse("""
        kafka: {bootstrap_servers: "%s", group_id: lakesink-current-state-interop}
        storage: {type: local, path: "%s"}
        delivery: {flush_interval: 10m, flush_rows: 2}
        subscriptions:
          - {topic: %s, table: products, primary_key: [id]}
          - {topic: %s, table: products_merged, mode: merge, primary_key: [id]}
        """.formatted(bootstrap, dir.resolve("data"), EvolvingProducts.TOPIC, MERGED_TOPIC), "interop");
    changelog = config.subscriptions().get(0);
    merged = config.subscriptions().get(1);
    storage = Pipeline.storage(config.storage());
    engine = KernelEngine.create(storage);
    deliver();
    changelogAfterPhase1 = table(changelog).version();
    mergedAfterPhase1 = table(merged).version();
    stream.producePhase2(bootstrap);
    mergedStream.producePhase2(bootstrap, MERGED_TOPIC);
    deliver();
    spark = LocalSpark.builder("lakesink-current-state-interop", dir)
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
  }

  private void deliver() {
    try (KafkaWorker worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      WorkerResult result = worker.run(true);
      assertTrue(result.allDelivering(), "every table delivered: " + result.states());
    }
  }

  private DeltaTable table(Subscription s) {
    DeltaTable t = Pipeline.table(storage, engine, s);
    t.refresh();
    return t;
  }

  @Test
  void theWarehouseStatementOverTheChangelogEqualsTheMergedTableBeforeAndAfterAColumnIsAdded() {
    assertViewEqualsMerged(changelogAfterPhase1, mergedAfterPhase1, 3, "before the new columns");
    assertViewEqualsMerged(table(changelog).version(), table(merged).version(), 3, "after price and in_stock were added");
  }

  /**
   * The changelog at one version as the {@code products_APPEND} Spark reads (a temporary view:
   * Delta time travel), the statement lakesink would run on the warehouse for its columns then,
   * and the merged table at the version of the same point of the stream.
   */
  private void assertViewEqualsMerged(long changelogVersion, long mergedVersion, int expectedRows, String when) {
    SparkSession session = spark.newSession();
    String changelogLocation = storage.tableLocation(changelog.targetTable());
    session.read().format("delta").option("versionAsOf", changelogVersion).load(changelogLocation)
        .createOrReplaceTempView(TableNames.changelog("products"));
    List<String> columns = List.of(session.table(TableNames.changelog("products")).schema().fieldNames());
    CurrentStateDefinition definition = new CurrentStateSpec("products", changelog.primaryKey(), true, CurrentStateKind.VIEW,
        CurrentStateOptions.DEFAULT).definition(List.of(), columns, List.of());
    String statement = definition.statement();
    assertTrue(statement.contains("COMMENT 'lakesink-current-state:v1 changelog=`products_APPEND`"), statement);
    // A permanent view may not read a temporary one: the same statement, as a temporary view.
    session.sql(statement.replaceFirst("^CREATE OR REPLACE VIEW ", "CREATE OR REPLACE TEMPORARY VIEW "));
    List<Map<String, Object>> view = collect(session.table("products"));

    List<String> visible = List.of(session.table("products").schema().fieldNames());
    List<Map<String, Object>> mergedRows = new ArrayList<>();
    for (Map<String, Object> row : collect(session.read().format("delta").option("versionAsOf", mergedVersion)
        .load(storage.tableLocation(merged.targetTable())))) {
      row.keySet().retainAll(visible); // the merged table also keeps __partition and __offset
      mergedRows.add(row);
    }
    assertEquals(expectedRows, view.size(), when + ": " + view);
    assertRows(mergedRows, view, BY_ID, "current-state view vs merged table, " + when);
    assertEquals(columns.contains("price"), visible.contains("price"), when + ": the view shows the columns it was built for");
  }

  /**
   * The MERGE → changelog migration's copy of the merged table, read through the statement
   * lakesink runs on the warehouse, shows the merged table it replaces: every key, every value,
   * each at its own {@code __ts_ms}; only {@code __op} reads {@code r}, a snapshot row.
   */
  @Test
  void theMigratedChangelogsViewEqualsTheMergeTableItReplaced() {
    String name = merged.targetTable();
    String migrated = TableNames.changelog(name);
    new ChangelogMigration(name, table(merged), new DeltaTable(engine, storage.tableLocation(migrated)),
        new MigrationJournal(storage), MigrationHook.NONE, Clock.systemUTC()).copy();

    SparkSession session = spark.newSession();
    session.read().format("delta").load(storage.tableLocation(migrated)).createOrReplaceTempView(migrated);
    List<String> columns = List.of(session.table(migrated).schema().fieldNames());
    String statement = new CurrentStateSpec(name, merged.primaryKey(), true, CurrentStateKind.VIEW, CurrentStateOptions.DEFAULT)
        .definition(List.of(), columns, List.of()).statement();
    session.sql(statement.replaceFirst("^CREATE OR REPLACE VIEW ", "CREATE OR REPLACE TEMPORARY VIEW "));
    List<Map<String, Object>> view = collect(session.table(name));
    for (Map<String, Object> row : view) {
      assertEquals("r", row.remove("__op"), "a copied row reads as a snapshot row: " + row);
    }

    List<String> visible = new ArrayList<>(List.of(session.table(name).schema().fieldNames()));
    visible.remove("__op");
    List<Map<String, Object>> mergedRows = new ArrayList<>();
    for (Map<String, Object> row : collect(session.read().format("delta").load(storage.tableLocation(name)))) {
      row.keySet().retainAll(visible);
      mergedRows.add(row);
    }
    assertEquals(3, view.size(), view.toString());
    assertTrue(visible.contains("__ts_ms") && visible.contains("price"), visible.toString());
    assertRows(mergedRows, view, BY_ID, "current-state view over the migrated changelog vs the MERGE table");

    // A later change of one key at the very same __ts_ms as its copied row: the statement's
    // ORDER BY (Kafka position DESC NULLS LAST) must rank it above the copy, which has none.
    DeltaTable migratedTable = new DeltaTable(engine, storage.tableLocation(migrated));
    List<Column> layout = migratedTable.columns().orElseThrow();
    Map<String, Object> copied = DeltaTableReader.readAll(migratedTable).get(0);
    Object[] later = new Object[layout.size()];
    for (int i = 0; i < later.length; i++) {
      later[i] = copied.get(layout.get(i).name());
    }
    later[layout.indexOf(new Column("name", ColumnType.STRING))] = "renamed at the same instant";
    later[layout.indexOf(new Column("__op", ColumnType.STRING))] = "u";
    later[layout.indexOf(new Column("__partition", ColumnType.INT))] = 0;
    later[layout.indexOf(new Column("__offset", ColumnType.BIGINT))] = 0L;
    migratedTable.commit(migratedTable.prepareAppend(new AppendRequest(layout, List.of("__ingest_date"),
        Map.of("__ingest_date", copied.get("__ingest_date")), List.<Object[]>of(later), CommitOffsets.NONE, Map.of())));
    session.read().format("delta").load(storage.tableLocation(migrated)).createOrReplaceTempView(migrated);
    session.sql(statement.replaceFirst("^CREATE OR REPLACE VIEW ", "CREATE OR REPLACE TEMPORARY VIEW "));
    List<Map<String, Object>> after = collect(session.table(name));
    assertEquals(3, after.size(), after.toString());
    Map<String, Object> changed = after.stream().filter(r -> r.get("id").equals(copied.get("id"))).findFirst().orElseThrow();
    assertEquals("renamed at the same instant", changed.get("name"), "the later change outranks the copy: " + after);
    assertEquals(copied.get("__ts_ms"), changed.get("__ts_ms"));
  }
}
