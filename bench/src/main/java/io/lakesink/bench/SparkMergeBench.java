package io.lakesink.bench;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The delta-spark side of {@link MergeBench}: the same batches merged into the copy of the same
 * starting table with delta-spark's MERGE, Spark in local mode with two threads (this machine's
 * cores). Then delta-spark reads both final tables and compares them row for row, on the
 * columns both have (lakesink's merge also keeps {@code __partition} and {@code __offset}, the
 * Kafka position that ranks a change; delta-spark's table has only the batch's columns).
 *
 * <p>{@code optimize --table PATH --file-mb N}: the benchmark's "optimized" layout made by
 * delta-spark's {@code OPTIMIZE … ZORDER BY (id)} into files of about N MB instead of lakesink's
 * optimize ({@code OPTIMIZER=spark bench/run merge}, to compare the two layouts), run once on the
 * starting table that both engines then copy (not timed in the merges).
 *
 * <p>Compiled apart from the rest of the benchmarks ({@code bench/spark-pom.xml}, which the
 * bench module's own build excludes this file from) and run in its own JVM on a classpath of
 * Spark 4.2 and delta-spark 4.4 only: Spark wants Hadoop 3.5 and Parquet 1.17 where lakesink
 * ships 3.4 and 1.16, so neither side runs on the other's libraries. It uses no lakesink class;
 * what both sides share is on disk (the tables, the layout of --dir) and {@link HeapWatch}.
 */
public final class SparkMergeBench {
  /** {@link MergeBench}'s layout under --dir, repeated here: that class needs lakesink on the classpath. */
  private static final String TABLE = "bench_merge";

  private SparkMergeBench() {}

  private static String batchName(int b) {
    return String.format(Locale.ROOT, "batch-%02d", b);
  }

  public static void main(String[] args) throws IOException {
    boolean optimize = args.length > 0 && args[0].equals("optimize");
    Map<String, String> o = new HashMap<>();
    for (int i = optimize ? 1 : 0; i + 1 < args.length; i += 2) {
      o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    if (optimize) {
      optimize(o);
      return;
    }
    Path dir = Path.of(o.get("dir"));
    int batches = Integer.parseInt(o.get("batches"));
    Path resultFile = Path.of(o.get("result"));
    String shufflePartitions = o.getOrDefault("shuffle-partitions", "4");
    HeapWatch heap = new HeapWatch();
    Properties r = new Properties();
    r.setProperty("engine", "delta-spark MERGE");
    r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));

    long sessionStart = System.nanoTime();
    SparkSession spark = session(shufflePartitions, Map.of());
    r.setProperty("session_seconds", String.valueOf((System.nanoTime() - sessionStart) / 1e9));
    r.setProperty("spark_conf", "Spark " + spark.version() + ", local[2], spark.sql.shuffle.partitions=" + shufflePartitions
        + ", AQE " + spark.conf().get("spark.sql.adaptive.enabled") + ", other settings default");

    String target = dir.resolve("spark").resolve(TABLE).toString();
    io.delta.tables.DeltaTable table = io.delta.tables.DeltaTable.forPath(spark, target);
    for (int b = 1; b <= batches; b++) {
      // The changes as a local relation, as lakesink gets them in memory: reading the batch
      // table is not part of the merge.
      Dataset<Row> stored = spark.read().format("delta").load(dir.resolve("batches").resolve(batchName(b)).toString());
      List<Row> changes = stored.collectAsList();
      Dataset<Row> source = spark.createDataFrame(changes, stored.schema());

      heap.reset();
      long start = System.nanoTime();
      // MergeDelivery's semantics: a delete removes the row; any other change replaces it whole
      // or inserts it; every column, __op and __ts_ms included, comes from the change.
      table.as("t")
          .merge(source.as("s"), "t.id = s.id")
          .whenMatched("s.__op = 'd'").delete()
          .whenMatched().updateAll()
          .whenNotMatched("s.__op <> 'd'").insertAll()
          .execute();
      long end = System.nanoTime();
      long peak = heap.peakBytes();
      long peakAfterGc = heap.peakAfterGcBytes();

      Map<String, String> metrics = table.history(1).select("operationMetrics").collectAsList().get(0).getJavaMap(0);
      long rewritten = metric(metrics, "numTargetRowsCopied") + metric(metrics, "numTargetRowsUpdated")
          + metric(metrics, "numTargetRowsDeleted");
      String k = "merge." + b + ".";
      r.setProperty(k + "seconds", String.valueOf((end - start) / 1e9));
      r.setProperty(k + "rows_rewritten", String.valueOf(rewritten));
      r.setProperty(k + "bytes_rewritten", String.valueOf(metric(metrics, "numTargetBytesRemoved")));
      r.setProperty(k + "files_removed", String.valueOf(metric(metrics, "numTargetFilesRemoved")));
      r.setProperty(k + "files_added", String.valueOf(metric(metrics, "numTargetFilesAdded")));
      r.setProperty(k + "files_read", String.valueOf(metric(metrics, "numTargetFilesAfterSkipping")));
      r.setProperty(k + "bytes_read", String.valueOf(metric(metrics, "numTargetBytesAfterSkipping")));
      for (String m : List.of("executionTimeMs", "scanTimeMs", "rewriteTimeMs", "numTargetRowsUpdated", "numTargetRowsInserted",
          "numTargetRowsDeleted", "numTargetRowsCopied", "numTargetDeletionVectorsAdded", "numTargetDeletionVectorsUpdated",
          "numTargetDeletionVectorsRemoved")) {
        r.setProperty(k + m, String.valueOf(metric(metrics, m)));
      }
      long tableRows = table.toDF().count();
      r.setProperty(k + "retained_mb", String.valueOf(HeapWatch.retainedBytes() >> 20));
      r.setProperty(k + "table_rows", String.valueOf(tableRows));
      r.setProperty(k + "peak_heap_mb", String.valueOf(peak >> 20));
      r.setProperty(k + "peak_heap_after_gc_mb", String.valueOf(peakAfterGc >> 20));
      r.setProperty(k + "gcs", String.valueOf(heap.collections()));
      r.setProperty("merges_done", String.valueOf(b));
      r.setProperty("vmhwm_mb", String.valueOf(vmHwmMb()));
      store(r, resultFile);
      System.out.printf(Locale.ROOT, "delta-spark merge %d: %.2f s, rewrote %,d rows (%d files removed, %d added), table %,d rows;"
              + " heap peak %,d MB, after GC %,d MB%n",
          b, (end - start) / 1e9, rewritten, metric(metrics, "numTargetFilesRemoved"), metric(metrics, "numTargetFilesAdded"),
          tableRows, peak >> 20, peakAfterGc >> 20);
    }

    if (!Boolean.parseBoolean(o.getOrDefault("cross-check", "true"))) {
      // CROSS_CHECK=0: at 10 million rows the two exceptAll below take longer than the merges.
      r.setProperty("cross_check", "not run (CROSS_CHECK=0)");
      store(r, resultFile);
      spark.stop();
      return;
    }
    // Both engines applied the same changes to the same table: the results must be equal, row
    // for row, on every column both tables have (lakesink's __op/__ts_ms come from the same
    // changes; its __partition/__offset have no counterpart in delta-spark's table).
    Dataset<Row> lakesinkTable = spark.read().format("delta").load(dir.resolve("lakesink").resolve(TABLE).toString());
    Dataset<Row> sparkTable = spark.read().format("delta").load(target);
    List<String> theirColumns = List.of(sparkTable.columns());
    org.apache.spark.sql.Column[] common = java.util.Arrays.stream(lakesinkTable.columns()).filter(theirColumns::contains)
        .map(org.apache.spark.sql.functions::col).toArray(org.apache.spark.sql.Column[]::new);
    r.setProperty("cross_check_columns", String.valueOf(common.length));
    Dataset<Row> ours = lakesinkTable.select(common);
    Dataset<Row> theirs = sparkTable.select(common);
    long oursRows = ours.count();
    long theirsRows = theirs.count();
    long onlyOurs = ours.exceptAll(theirs).count();
    long onlyTheirs = theirs.exceptAll(ours).count();
    boolean same = oursRows == theirsRows && onlyOurs == 0 && onlyTheirs == 0;
    r.setProperty("cross_check", String.format(Locale.ROOT, "%s on the %d common columns (lakesink %,d rows, delta-spark %,d rows,"
        + " %,d rows only in lakesink's, %,d only in delta-spark's)", same ? "IDENTICAL" : "DIFFERENT", common.length, oursRows, theirsRows,
        onlyOurs, onlyTheirs));
    r.setProperty("vmhwm_mb", String.valueOf(vmHwmMb()));
    store(r, resultFile);
    System.out.println("Cross-check: " + r.getProperty("cross_check"));
    spark.stop();
  }

  /** Spark in local mode on this machine's two cores, Delta's extensions, everything else default. */
  private static SparkSession session(String shufflePartitions, Map<String, String> extra) {
    SparkSession.Builder b = SparkSession.builder()
        .appName("lakesink-merge-bench")
        .master("local[2]")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // Spark's default of 200 shuffle partitions is for clusters; on two cores a handful is
        // what anyone would set. Everything else is Spark's and Delta's defaults.
        .config("spark.sql.shuffle.partitions", shufflePartitions)
        .config("spark.sql.session.timeZone", "UTC");
    extra.forEach(b::config);
    return b.getOrCreate();
  }

  /**
   * Clusters a table on the key the way the benchmark's "optimized" cases start from: delta-spark's
   * Z-order on {@code id} (for one column, a range partitioning sorted within each file), files of
   * about --file-mb MB; the alternative to lakesink's own optimize ({@code MergeBench optimize}).
   */
  private static void optimize(Map<String, String> o) throws IOException {
    String table = o.get("table");
    long fileMb = Long.parseLong(o.get("file-mb"));
    SparkSession spark = session("4", Map.of("spark.databricks.delta.optimize.maxFileSize", String.valueOf(fileMb << 20)));
    io.delta.tables.DeltaTable t = io.delta.tables.DeltaTable.forPath(spark, table);
    long filesBefore = spark.read().format("delta").load(table).inputFiles().length;
    long start = System.nanoTime();
    spark.sql("OPTIMIZE delta.`" + table + "` ZORDER BY (id)").collect();
    double seconds = (System.nanoTime() - start) / 1e9;
    long filesAfter = spark.read().format("delta").load(table).inputFiles().length;
    Properties r = new Properties();
    r.setProperty("how", "delta-spark OPTIMIZE ZORDER BY (id), spark.databricks.delta.optimize.maxFileSize=" + fileMb + " MB");
    r.setProperty("files_before", String.valueOf(filesBefore));
    r.setProperty("files_after", String.valueOf(filesAfter));
    r.setProperty("seconds", String.valueOf(seconds));
    r.setProperty("operation", t.history(1).select("operation").collectAsList().get(0).getString(0));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "Optimized %s: %d files → %d files (ZORDER BY id, about %d MB each) in %.1f s%n",
        table, filesBefore, filesAfter, fileMb, seconds);
    spark.stop();
  }

  private static long metric(Map<String, String> metrics, String name) {
    String v = metrics.get(name);
    return v == null ? -1 : Long.parseLong(v);
  }

  private static long vmHwmMb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.substring(6).replace("kB", "").trim()) / 1024;
      }
    }
    return -1;
  }

  private static void store(Properties p, Path f) throws IOException {
    try (Writer out = Files.newBufferedWriter(f)) {
      p.store(out, null);
    }
  }
}
