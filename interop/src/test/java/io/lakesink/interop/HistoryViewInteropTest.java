package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.view.History;
import io.lakesink.view.HistoryView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history view's SQL ({@link HistoryView}) run by Spark: the versions of a hand-made
 * changelog are the ones written out here, and those of random changelogs (ties, null times,
 * keys across partitions, deletes, truncates) are what the in-memory rules ({@link History})
 * give. A temporary view of rows, no Delta table: the SQL is what is tested.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(600)
class HistoryViewInteropTest {
  @TempDir static Path dir;
  private SparkSession spark;

  private static final StructType CHANGELOG = new StructType()
      .add("id", DataTypes.LongType).add("v", DataTypes.StringType)
      .add("__op", DataTypes.StringType).add("__deleted", DataTypes.BooleanType).add("__ts_ms", DataTypes.LongType)
      .add("__partition", DataTypes.IntegerType).add("__offset", DataTypes.LongType).add("__ingest_date", DataTypes.DateType);

  @BeforeAll
  void start() {
    spark = LocalSpark.builder("lakesink-history-view", dir).getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static Object[] change(Long id, String v, String op, Long ts, int partition, long offset) {
    return new Object[] {id, v, op, op.equals("d") || op.equals("t"), ts, partition, offset, null};
  }

  private List<Map<String, Object>> run(List<Object[]> log) {
    List<Row> rows = log.stream().map(RowFactory::create).toList();
    spark.createDataFrame(rows, CHANGELOG).createOrReplaceTempView("orders_APPEND");
    return SparkRows.collect(spark.sql(HistoryView.query("`orders_APPEND`", List.of("id"), true)));
  }

  private static String versionOf(Map<String, Object> r) {
    return r.get("id") + ":" + r.get("v") + " [" + r.get(HistoryView.VALID_FROM) + ", " + r.get(HistoryView.VALID_TO) + ")"
        + (Boolean.TRUE.equals(r.get(HistoryView.IS_CURRENT)) ? " current" : "");
  }

  @Test
  void theVersionsOfAHandMadeChangelog() {
    List<Object[]> log = List.of(
        change(1L, "a", "c", 10L, 0, 0),
        change(1L, "b", "u", 20L, 0, 1),
        change(2L, "x", "c", 15L, 0, 2),
        change(2L, "x", "d", 25L, 1, 0),
        change(2L, "y", "c", 30L, 1, 1),
        change(3L, "p", "c", 12L, 0, 3),
        change(null, null, "t", 28L, 0, 4),
        change(1L, "c", "c", 40L, 0, 5),
        change(3L, "older", "u", 11L, 1, 2),
        change(4L, "same time, lower partition", "c", 50L, 0, 6),
        change(4L, "same time, higher partition", "u", 50L, 1, 3),
        change(5L, "no time", "c", null, 0, 7),
        change(5L, "timed", "u", 5L, 0, 8),
        // A snapshot row stamped when it was read, then a change of its partition stamped earlier.
        change(6L, "snapshot", "r", 60L, 2, 0),
        change(6L, "changed", "u", 55L, 2, 1));
    List<String> versions = run(log).stream().map(HistoryViewInteropTest::versionOf).sorted().toList();
    assertEquals(List.of(
        "1:a [10, 20)", "1:b [20, 28)", "1:c [40, null) current",
        "2:x [15, 25)", "2:y [30, null) current",
        "3:older [11, 12)", "3:p [12, 28)",
        "4:same time, higher partition [50, null) current", "4:same time, lower partition [50, 50)",
        "5:no time [null, 5)", "5:timed [5, 28)",
        "6:changed [60, null) current", "6:snapshot [60, 60)"), versions);
  }

  @Test
  void randomChangelogsGiveWhatTheRulesSay() {
    for (int seed = 1; seed <= 4; seed++) {
      Random random = new Random(seed);
      List<Object[]> log = new ArrayList<>();
      long[] offsets = new long[3];
      for (int i = 0; i < 150; i++) {
        int p = random.nextInt(3);
        Long ts = random.nextInt(15) == 0 ? null : (long) (i / 4 + random.nextInt(8));
        String op = random.nextInt(40) == 0 ? "t" : new String[] {"c", "u", "u", "d", "r"}[random.nextInt(5)];
        Long id = op.equals("t") ? null : (long) random.nextInt(12);
        if (op.equals("r") && ts != null && random.nextBoolean()) {
          ts += 12; // a snapshot row stamped when it was read: later than the changes after it
        }
        log.add(change(id, op.equals("t") ? null : "v" + i, op, ts, p, offsets[p]++));
      }
      List<Map<String, Object>> asMaps = new ArrayList<>();
      for (Object[] r : log) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < r.length; i++) {
          m.put(CHANGELOG.fieldNames()[i], r[i]);
        }
        asMaps.add(m);
      }
      List<String> expected = History.versions(asMaps, List.of("id"), true).stream()
          .map(HistoryViewInteropTest::versionOf).sorted().toList();
      assertEquals(expected, run(log).stream().map(HistoryViewInteropTest::versionOf).sorted().toList(), "seed " + seed);
    }
  }
}
