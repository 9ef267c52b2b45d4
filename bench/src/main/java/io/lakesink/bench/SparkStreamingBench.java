package io.lakesink.bench;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_date;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.struct;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark Structured Streaming peer of the changelog benchmark: the topic lakesink read, with
 * the Kafka source, {@code from_json} of the envelope with the row images parsed into columns
 * (each column from {@code after}, else {@code before}, as a user's job would, and as lakesink
 * writes them: strings, the records carrying no schema), the same metadata columns ({@code __op}, {@code __deleted}, {@code __ts_ms},
 * {@code __partition}, {@code __offset}), partitioned by {@code __ingest_date}, into a fresh
 * delta-spark table, once ({@code Trigger.AvailableNow}), Spark in local mode on two threads.
 * Then, untimed, the table is read back: every Kafka position exactly once.
 *
 * <p>Compiled by {@code bench/spark-pom.xml} and run on a Spark-only classpath, as
 * {@link SparkMergeBench} (which explains why); it shares nothing with lakesink but the topic and
 * {@link HeapWatch}.
 */
public final class SparkStreamingBench {
  private SparkStreamingBench() {}

  public static void main(String[] args) throws IOException, TimeoutException, StreamingQueryException {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    String topic = o.get("topic");
    long events = Long.parseLong(o.get("events"));
    Path dir = Path.of(o.get("dir"));
    Path resultFile = Path.of(o.get("result"));
    HeapWatch heap = new HeapWatch();
    Properties r = new Properties();
    r.setProperty("engine", "Spark Structured Streaming + delta-spark");
    r.setProperty("topic", topic);
    r.setProperty("events", String.valueOf(events));
    r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));

    long sessionStart = System.nanoTime();
    SparkSession spark = SparkSession.builder()
        .appName("lakesink-changelog-peer")
        .master("local[2]")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // lakesink's ingest date is the UTC day; everything else is Spark's and Delta's defaults.
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate();
    r.setProperty("session_seconds", String.valueOf((System.nanoTime() - sessionStart) / 1e9));
    r.setProperty("spark_conf", "Spark " + spark.version() + ", local[2], Kafka source, from_json, delta-spark sink,"
        + " Trigger.AvailableNow, other settings default");

    // The envelope as lakesink reads it: the images' columns as strings (schemaless records:
    // Spark's JSON reader keeps a number read as a string as its text), each column from after,
    // else before (a delete's); the change time is source.ts_ms, else ts_ms.
    StructType image = new StructType();
    for (String c : COLUMNS) {
      image = image.add(c, DataTypes.StringType);
    }
    StructType envelope = new StructType()
        .add("before", image)
        .add("after", image)
        .add("source", new StructType().add("ts_ms", DataTypes.LongType))
        .add("op", DataTypes.StringType)
        .add("ts_ms", DataTypes.LongType);
    Dataset<Row> changes = spark.readStream()
        .format("kafka")
        .option("kafka.bootstrap.servers", o.get("bootstrap"))
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .select(from_json(col("value").cast("string"), envelope).as("e"), col("partition"), col("offset"))
        .select(columns());
    String table = dir.resolve("table").toString();

    heap.reset();
    long gcBefore = gcMillis();
    long start = System.nanoTime();
    StreamingQuery query = changes.writeStream()
        .format("delta")
        .outputMode("append")
        .option("checkpointLocation", dir.resolve("checkpoint").toString())
        .partitionBy("__ingest_date")
        .trigger(Trigger.AvailableNow())
        .start(table);
    query.awaitTermination();
    long end = System.nanoTime();
    r.setProperty("query_seconds", String.valueOf((end - start) / 1e9));
    r.setProperty("events_per_second", String.valueOf(events / ((end - start) / 1e9)));
    r.setProperty("process_seconds", String.valueOf(ManagementFactory.getRuntimeMXBean().getUptime() / 1e3));
    r.setProperty("cpu_seconds", String.valueOf(processCpuNanos() / 1e9));
    r.setProperty("gc_seconds", String.valueOf((gcMillis() - gcBefore) / 1e3));
    r.setProperty("peak_heap_mb", String.valueOf(heap.peakBytes() >> 20));
    r.setProperty("vmhwm_mb", String.valueOf(vmHwmMb()));
    r.setProperty("batches", String.valueOf(query.recentProgress().length));
    store(r, resultFile);

    // Untimed: what landed. Every (partition, offset) once, and the images as JSON objects.
    Dataset<Row> written = spark.read().format("delta").load(table);
    long rows = written.count();
    long positions = written.select(struct(col("__partition"), col("__offset"))).distinct().count();
    long imageMissing = written.where("id IS NULL OR status IS NULL OR updated_at IS NULL").count();
    boolean ok = rows == events && positions == events && imageMissing == 0;
    r.setProperty("rows", String.valueOf(rows));
    r.setProperty("distinct_positions", String.valueOf(positions));
    r.setProperty("rows_without_image", String.valueOf(imageMissing));
    r.setProperty("verified", String.valueOf(ok));
    r.setProperty("table_mb", String.valueOf(directoryBytes(Path.of(table)) >> 20));
    store(r, resultFile);
    System.out.printf(Locale.ROOT, "Spark Structured Streaming on %s: query %.2f s (%,.0f events/s), process %.1f s, CPU %.1f s;"
            + " verified %s: %,d rows, %,d distinct positions, %,d without their image%n",
        topic, (end - start) / 1e9, events / ((end - start) / 1e9), Double.parseDouble(r.getProperty("process_seconds")),
        Double.parseDouble(r.getProperty("cpu_seconds")), ok ? "OK" : "FAILED", rows, positions, imageMissing);
    spark.stop();
    if (!ok) {
      System.exit(3);
    }
  }

  /** The benchmark's row columns (BenchEvents), in order. */
  static final String[] COLUMNS = {
    "id", "customer_id", "status", "amount", "currency", "sku", "quantity", "note", "created_at", "updated_at"
  };

  /** Each row column from after, else before; then lakesink's metadata columns. */
  private static Column[] columns() {
    List<Column> out = new ArrayList<>();
    for (String c : COLUMNS) {
      out.add(coalesce(col("e.after." + c), col("e.before." + c)).as(c));
    }
    out.add(col("e.op").as("__op"));
    out.add(col("e.op").equalTo("d").as("__deleted"));
    out.add(coalesce(col("e.source.ts_ms"), col("e.ts_ms")).as("__ts_ms"));
    out.add(col("partition").as("__partition"));
    out.add(col("offset").as("__offset"));
    out.add(current_date().as("__ingest_date"));
    return out.toArray(new Column[0]);
  }

  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }

  private static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  private static long vmHwmMb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.substring(6).replace("kB", "").trim()) / 1024;
      }
    }
    return -1;
  }

  private static long directoryBytes(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  private static void store(Properties p, Path f) throws IOException {
    try (Writer out = Files.newBufferedWriter(f)) {
      p.store(out, null);
    }
  }
}
