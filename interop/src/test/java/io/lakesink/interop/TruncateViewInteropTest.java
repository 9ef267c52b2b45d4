package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.view.CurrentState;
import io.lakesink.view.CurrentStateView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The current-state view's truncate rule run by Spark: the generated query over a changelog holding
 * truncates returns what the in-memory rules ({@link CurrentState}) return, which the core tests
 * pin down. No Kafka and no Delta table: a temporary view of a few rows, so it stays short.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class TruncateViewInteropTest {
  @TempDir static Path dir;
  private SparkSession spark;

  private static final StructType CHANGELOG = new StructType()
      .add("id", DataTypes.LongType).add("status", DataTypes.StringType)
      .add("__op", DataTypes.StringType).add("__deleted", DataTypes.BooleanType).add("__ts_ms", DataTypes.LongType)
      .add("__partition", DataTypes.IntegerType).add("__offset", DataTypes.LongType).add("__ingest_date", DataTypes.DateType);

  @BeforeAll
  void start() {
    spark = LocalSpark.builder("lakesink-truncate-view", dir).getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  /** Inserts, a truncate, inserts; changes of another partition around the truncate's rank; a null time. */
  private static List<Object[]> changelog() {
    List<Object[]> log = new ArrayList<>();
    for (long id = 1; id <= 8; id++) {
      log.add(change(id, "before", "c", 1000L + id, 0, id));
    }
    log.add(change(3L, "updated", "u", 1010L, 0, 9));
    log.add(change(null, null, "t", 2000L, 0, 10));
    log.add(change(3L, "again", "c", 2001L, 0, 11));
    log.add(change(101L, "new", "c", 2002L, 0, 12));
    log.add(change(102L, "new", "c", 2003L, 0, 13));
    log.add(change(101L, "new", "d", 2004L, 0, 14));
    log.add(change(101L, "back", "c", 2005L, 0, 15));
    log.add(change(201L, "p1 earlier, read after", "c", 1999L, 1, 0));
    log.add(change(202L, "p1 same time, higher partition", "c", 2000L, 1, 1));
    log.add(change(203L, "p0 same time, lower offset", "c", 2000L, 0, 9));
    log.add(change(204L, "no time", "c", null, 1, 2));
    log.add(change(null, "a row without a key, after", "c", 2006L, 1, 3));
    return log;
  }

  private static Object[] change(Long id, String status, String op, Long ts, int partition, long offset) {
    return new Object[] {id, status, op, op.equals("d") || op.equals("t"), ts, partition, offset, null};
  }

  @Test
  void theViewsQueryReturnsWhatTheRulesSay() {
    List<Row> rows = changelog().stream().map(RowFactory::create).toList();
    spark.createDataFrame(rows, CHANGELOG).createOrReplaceTempView("orders_APPEND");
    List<Map<String, Object>> asMaps = new ArrayList<>();
    for (Object[] r : changelog()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < r.length; i++) {
        m.put(CHANGELOG.fieldNames()[i], r[i]);
      }
      asMaps.add(m);
    }
    for (List<String> key : List.of(List.of("id"), List.<String>of())) {
      List<Map<String, Object>> expected = sorted(CurrentState.collapse(asMaps, key, true));
      List<Map<String, Object>> actual = sorted(SparkRows.collect(spark.sql(CurrentStateView.query("`orders_APPEND`", key, true))));
      assertEquals(expected, actual, "key " + key);
    }
    assertEquals(List.of(101L, 102L, 202L, 3L), sorted(CurrentState.collapse(asMaps, List.of("id"), true)).stream()
        .filter(r -> r.get("id") != null).map(r -> r.get("id")).toList(), "the rules themselves");
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> out = new ArrayList<>(rows);
    out.sort(Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("id"))).thenComparing(r -> String.valueOf(r.get("status"))));
    return out;
  }
}
