package io.lakesink.bench;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;

/**
 * The delta-spark side of {@link ChangelogReadBench}: times, on the changelog table of many small
 * commits and on its optimized copy, {@code SELECT count(*)} and the current-state query lakesink
 * generates for the view (read from the files {@code prepare} wrote), Spark in local mode with two
 * threads. Then checks that both tables give the same count and the same current state.
 *
 * <p>Cold: the first query on a table in the session, after {@link DeltaLog#clearCache()} (so
 * Delta replays the table's log and lists its files, as a new reader does); the JVM and Spark are
 * warmed first by one untimed round over both tables. Warm: {@code --repeat} more, Delta's
 * snapshot cached, the median kept.
 *
 * <p>Compiled apart from the rest of the benchmarks ({@code bench/spark-pom.xml}), as
 * {@link SparkMergeBench}: it uses no lakesink class.
 */
public final class SparkChangelogReadBench {
  /**
   * The changelog as written, optimized, and the current-state table lakesink keeps from it, as its
   * follows left it and after the maintenance's optimize.
   */
  private static final List<String> TABLES = List.of("small", "optimized", "kept-asis", "kept");

  private SparkChangelogReadBench() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path dir = Path.of(o.get("dir"));
    Path results = Path.of(o.get("results"));
    int repeat = Integer.parseInt(o.getOrDefault("repeat", "3"));
    Path resultFile = results.resolve("spark.properties");
    Properties r = new Properties();
    r.setProperty("repeat", String.valueOf(repeat));

    SparkSession.Builder builder = SparkSession.builder()
        .appName("lakesink-changelog-read-bench")
        .master("local[2]")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC");
    // --snapshot-partitions: the shuffle partitions Delta replays a table's log into. Its default
    // (50) is sized for a cluster; on two local cores those 50 tasks are most of a cold query on
    // any table, however small, so a run can set it to the machine's cores (every table alike).
    String snapshotPartitions = o.get("snapshot-partitions");
    if (snapshotPartitions != null) {
      builder.config("spark.databricks.delta.snapshotPartitions", snapshotPartitions);
    }
    SparkSession spark = builder.getOrCreate();
    r.setProperty("spark_conf", "Spark " + spark.version() + " + delta-spark (local[2], "
        + (snapshotPartitions == null ? "default settings)" : "spark.databricks.delta.snapshotPartitions=" + snapshotPartitions
        + ", otherwise default settings)"));

    // --tables: some of them only (small, the view's reference, always).
    List<String> tables = o.containsKey("tables")
        ? TABLES.stream().filter(t -> t.equals("small") || List.of(o.get("tables").split(",")).contains(t)).toList() : TABLES;
    Map<String, String> countSql = new HashMap<>();
    Map<String, String> stateSql = new HashMap<>();
    for (String t : tables) {
      countSql.put(t, "SELECT count(*) FROM delta.`" + dir.resolve(t).toAbsolutePath() + "`");
      stateSql.put(t, Files.readString(results.resolve("current-state-" + t + ".sql")).strip());
    }

    // Untimed: class loading, code generation and Spark's first-job costs, on all tables alike.
    // --warmup quick: the view's query over the warm-up changelog prepare wrote (a tenth of the
    // commits, the same query) instead of over each changelog: at 10M changes each of those
    // queries takes minutes on a loaded machine, and the code they warm is the same.
    boolean quick = "quick".equals(o.get("warmup")) && Files.isDirectory(dir.resolve("warmup"));
    if (quick) {
      String warmup = stateSql.get("small").replace(dir.resolve("small").toAbsolutePath().toString(),
          dir.resolve("warmup").toAbsolutePath().toString());
      spark.sql(warmup).collectAsList();
      r.setProperty("warmup", "the view's query over a changelog of a tenth of the commits, count(*) on every table, the"
          + " kept tables' query");
    }
    for (String t : tables) {
      count(spark, countSql.get(t));
      if (!quick || t.startsWith("kept")) {
        spark.sql(stateSql.get(t)).collectAsList();
      }
    }

    Map<String, List<Row>> states = new HashMap<>();
    for (String t : tables) {
      // What cold adds to warm, alone: Delta's snapshot of the table (its log replayed from the last
      // checkpoint, the files listed), without a query.
      DeltaLog.clearCache();
      long start = System.nanoTime();
      long files = DeltaLog.forTable(spark, dir.resolve(t).toAbsolutePath().toString()).unsafeVolatileSnapshot().numOfFiles();
      r.setProperty(t + ".snapshot.cold_seconds", String.valueOf(seconds(start)));
      r.setProperty(t + ".snapshot.files", String.valueOf(files));
      DeltaLog.clearCache();
      start = System.nanoTime();
      long rows = count(spark, countSql.get(t));
      r.setProperty(t + ".count.cold_seconds", String.valueOf(seconds(start)));
      r.setProperty(t + ".count.rows", String.valueOf(rows));
      DeltaLog.clearCache();
      start = System.nanoTime();
      List<Row> state = spark.sql(stateSql.get(t)).collectAsList();
      r.setProperty(t + ".state.cold_seconds", String.valueOf(seconds(start)));
      r.setProperty(t + ".state.rows", String.valueOf(state.size()));
      states.put(t, state);
      store(r, resultFile);
    }
    for (String t : tables) {
      List<Double> counts = new ArrayList<>();
      List<Double> stateTimes = new ArrayList<>();
      for (int i = 0; i < repeat; i++) {
        long start = System.nanoTime();
        count(spark, countSql.get(t));
        counts.add(seconds(start));
        start = System.nanoTime();
        spark.sql(stateSql.get(t)).collectAsList();
        stateTimes.add(seconds(start));
      }
      r.setProperty(t + ".count.warm_seconds", String.valueOf(median(counts)));
      if (t.startsWith("kept")) {
        // The same query without collecting its rows to the driver: how much of a plain read of the
        // kept table is the collect, which the view's queries pay alike (one row per live key).
        // Its plan's rows counted where they are made (every column read: the plan is fixed);
        // Spark's noop sink refuses a table with deletion vectors read through delta.`path`.
        try {
          long start = System.nanoTime();
          spark.sql(stateSql.get(t)).queryExecution().toRdd().count();
          r.setProperty(t + ".state.noop_warm_seconds", String.valueOf(seconds(start)));
        } catch (RuntimeException e) {
          // A breakdown only: the figures and the cross-check go on without it.
          System.err.println("The " + t + " query without the collect failed: " + e);
        }
      }
      r.setProperty(t + ".state.warm_seconds", String.valueOf(median(stateTimes)));
      store(r, resultFile);
      System.out.printf(Locale.ROOT, "%-9s count(*) %s rows: cold %s s, warm %s s; current state %s rows: cold %s s, warm %s s%n", t,
          r.getProperty(t + ".count.rows"), r.getProperty(t + ".count.cold_seconds"), r.getProperty(t + ".count.warm_seconds"),
          r.getProperty(t + ".state.rows"), r.getProperty(t + ".state.cold_seconds"), r.getProperty(t + ".state.warm_seconds"));
    }

    // Optimize must not change what a reader sees, and the kept table must be the view's result,
    // row for row: every table's current state equals the view's over the changelog as written.
    Dataset<Row> view = spark.createDataFrame(states.get("small"), spark.sql(stateSql.get("small")).schema());
    boolean same = true;
    StringBuilder check = new StringBuilder();
    for (String t : tables) {
      if (t.equals("small")) {
        continue;
      }
      Dataset<Row> other = spark.createDataFrame(states.get(t), spark.sql(stateSql.get(t)).schema());
      long onlyView = view.exceptAll(other).count();
      long onlyOther = other.exceptAll(view).count();
      same &= onlyView == 0 && onlyOther == 0;
      check.append(String.format(Locale.ROOT, "; %s %,d rows, %,d of the view's rows not in it, %,d of its rows not in the view",
          t, states.get(t).size(), onlyView, onlyOther));
    }
    if (r.getProperty("optimized.count.rows") != null) {
      same &= r.getProperty("small.count.rows").equals(r.getProperty("optimized.count.rows"));
    }
    r.setProperty("cross_check", String.format(Locale.ROOT, "%s (count(*) %s on the changelog, %s optimized; the view over it %,d"
        + " rows%s)", same ? "IDENTICAL" : "DIFFERENT", r.getProperty("small.count.rows"),
        r.getProperty("optimized.count.rows", "-"), states.get("small").size(), check));
    store(r, resultFile);
    System.out.println("Cross-check: " + r.getProperty("cross_check"));
    spark.stop();
    if (!same) {
      System.exit(2);
    }
  }

  private static long count(SparkSession spark, String sql) {
    return spark.sql(sql).first().getLong(0);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  private static void store(Properties p, Path f) throws IOException {
    try (Writer out = Files.newBufferedWriter(f)) {
      p.store(out, null);
    }
  }
}
