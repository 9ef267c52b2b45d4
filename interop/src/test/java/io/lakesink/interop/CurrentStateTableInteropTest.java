package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.currentstate.CurrentStateTableModelTest;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.ChangeEvent;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.CurrentStateView;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kept current-state table against the view, both run by delta-spark: random change streams
 * (updates, deletes, re-inserts, ties on {@code __ts_ms}, keys moving between partitions,
 * truncates) go into a changelog with the table kept beside it, crashes injected between the
 * changelog's commit and the table's. After every step delta-spark runs the view's SQL as lakesink
 * generates it ({@link CurrentStateView}, QUALIFY included) over the changelog, and reads the kept
 * table (deletion vectors included): the same rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(900)
class CurrentStateTableInteropTest {
  @TempDir static Path dir;
  private SparkSession spark;
  static final List<String> KEY = List.of("k1", "k2");
  static final List<String> VIEW_COLUMNS = List.of("k1", "k2", "v", "amount", "__op", "__ts_ms");

  @BeforeAll
  void start() {
    spark = LocalSpark.builder("lakesink-current-state-table", dir).getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 7})
  void theKeptTableIsWhatDeltaSparkComputesFromTheView(int seed) {
    Random random = new Random(seed);
    List<ChangeEvent> events = CurrentStateTableModelTest.stream(random, 120);
    LocalStorage storage = new LocalStorage(dir.resolve("seed-" + seed), "lakesink");
    Engine engine = KernelEngine.create(storage);
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));
    Subscription subscription = new Subscription("t", "t", DeliveryMode.CHANGELOG, KEY, SourceFormat.JSON, true);
    boolean[] crash = {false};
    CurrentStateTable.Hook hook = (table, step) -> {
      if (crash[0]) {
        crash[0] = false;
        throw new IllegalStateException("injected crash");
      }
    };
    ChangelogDelivery delivery = delivery(subscription, storage, engine, context, hook);
    int crashes = 0;
    int checks = 0;
    long taken = 0;
    int i = 0;
    while (i < events.size()) {
      int batch = 1 + random.nextInt(20);
      for (int j = 0; j < batch && i < events.size(); j++, i++) {
        delivery.accept(events.get(i));
      }
      crash[0] = random.nextInt(3) == 0;
      boolean crashing = crash[0];
      delivery.flush(); // the changelog's commit, then the table's on the follower's thread (unless the crash comes first)
      followed(delivery);
      if (crashing) {
        crashes++;
        delivery.settle(java.time.Duration.ofSeconds(1)); // the worker stops
        taken += delivery.keptTable().orElseThrow().rowsTakenOver();
        delivery = delivery(subscription, storage, engine, context, hook); // and restarts
        delivery.maintain(); // and catches the table up at start
        followed(delivery);
      }
      assertEquals("current", delivery.status().currentStateTable().get("state"));
      spark.read().format("delta").load(storage.tableLocation("t_APPEND")).createOrReplaceTempView("t_APPEND");
      Map<String, Map<String, Object>> view =
          byKey(SparkRows.collect(spark.sql(CurrentStateView.query("`t_APPEND`", KEY, true))));
      Map<String, Map<String, Object>> kept = byKey(SparkRows.collect(spark.read().format("delta").load(storage.tableLocation("t"))));
      assertEquals(view, kept, "after " + i + " events (seed " + seed + ")");
      checks++;
    }
    assertTrue(crashes > 0, "crashes injected");
    assertTrue(checks > crashes);
    taken += delivery.keptTable().orElseThrow().rowsTakenOver();
    assertTrue(taken > 0,
        "rows taken over with the changelog's files (read by delta-spark through a deletion vector, without __rank_ts_ms)");
  }

  /** Waits for the follows asked for so far: they run on the follower's thread. */
  private static void followed(ChangelogDelivery d) {
    assertTrue(d.keptFollower().orElseThrow().awaitIdle(java.time.Duration.ofSeconds(120)), "the follows end");
  }

  private static ChangelogDelivery delivery(
      Subscription s, LocalStorage storage, Engine engine, DeliveryContext context, CurrentStateTable.Hook hook) {
    CurrentStateTable kept = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, hook, Clock.systemUTC());
    return new ChangelogDelivery(s, new DeltaTable(engine, storage.tableLocation("t_APPEND")), null, context, kept);
  }

  /** Rows by key, the view's columns only; one row per key. */
  private static Map<String, Map<String, Object>> byKey(List<Map<String, Object>> rows) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      Map<String, Object> viewed = new LinkedHashMap<>();
      VIEW_COLUMNS.forEach(c -> viewed.put(c, r.get(c)));
      assertEquals(null, out.put(r.get("k1") + "/" + r.get("k2"), viewed), "one row per key");
    }
    return out;
  }
}
