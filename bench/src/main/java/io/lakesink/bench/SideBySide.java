package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.d;
import static io.lakesink.bench.ChangelogThroughputBench.median;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The changelog report's comparison: lakesink (the median of its runs per partition count), the
 * floor ({@code floor.properties}) and Spark Structured Streaming ({@code spark-p<P>.properties})
 * in one table, then the two ratios with their targets.
 */
final class SideBySide {
  /** Issue 29's targets: process CPU per event against the floor's, events/s against the floor's and Spark's. */
  static final double FLOOR_TARGET = 1.3;
  static final double SPARK_TARGET = 5.0;
  static final double FLOOR_RATE_TARGET_ONE = 1.0;
  static final double FLOOR_RATE_TARGET_MANY = 1.2;
  private static final String ROW = "%-44s %,10.0f %8.2f %9.2f %9s %8.2f %7.2f %10s %8s %11s  %s";

  private SideBySide() {}

  static void print(Path dir, Map<String, List<Properties>> lakesink) {
    Properties floor = props(dir.resolve("floor.properties"));
    boolean hasFloor = !floor.isEmpty();
    boolean hasSpark = lakesink.keySet().stream().anyMatch(p -> Files.exists(spark(dir, p)));
    if (!hasFloor && !hasSpark) {
      return;
    }
    System.out.println();
    System.out.println("Side by side, the same events (targets: process CPU per event ≤ " + FLOOR_TARGET
        + "× the floor's; events/s ≥ " + FLOOR_RATE_TARGET_ONE + "× the floor's with 1 partition, ≥ " + FLOOR_RATE_TARGET_MANY
        + "× with 4 and 8, ≥ " + SPARK_TARGET + "× Spark's)");
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "%-44s %10s %8s %9s %9s %8s %7s %10s %8s %11s  %s",
        "", "events/s", "wall s", "process s", "thread s", "CPU s", "GC s", "peak heap", "peak RSS", "rows", "").stripTrailing());
    lakesink.forEach((partitions, runs) -> {
      System.out.println(String.format(Locale.ROOT, ROW, "lakesink, " + ChangelogThroughputBench.describe(partitions) + (runs.size() > 1 ? ", median" : ""),
          median(runs, "events_per_second"), median(runs, "seconds"), median(runs, "process_seconds"),
          String.format(Locale.ROOT, "%.1f+%.1f+%.1f", median(runs, "main_thread_cpu_seconds"),
              median(runs, "decoder_threads_cpu_seconds"), median(runs, "writer_threads_cpu_seconds")),
          median(runs, "process_cpu_seconds"),
          median(runs, "gc_seconds"), mb(median(runs, "peak_heap_mb")), mb(median(runs, "vmhwm_mb")),
          rows(runs.get(0)), "").stripTrailing());
    });
    for (String partitions : lakesink.keySet()) {
      Properties s = props(spark(dir, partitions));
      if (s.isEmpty()) {
        continue;
      }
      System.out.println(String.format(Locale.ROOT, ROW, "Spark Structured Streaming, " + ChangelogThroughputBench.describe(partitions),
          d(s, "events_per_second"), d(s, "query_seconds"), d(s, "process_seconds"), "-", d(s, "cpu_seconds"), d(s, "gc_seconds"),
          mb(d(s, "peak_heap_mb")), mb(d(s, "vmhwm_mb")), rows(s), s.getProperty("failed", "")).stripTrailing());
    }
    if (hasFloor) {
      System.out.println(String.format(Locale.ROOT, ROW, "floor: 1 thread, from memory, Parquet only", d(floor, "events_per_second"),
          d(floor, "seconds"), Double.NaN, String.format(Locale.ROOT, "%.2f", d(floor, "thread_cpu_seconds")), d(floor, "cpu_seconds"),
          d(floor, "gc_seconds"), mb(d(floor, "peak_heap_mb")), "-", rows(floor), "").replace("NaN", "-").stripTrailing());
    }
    System.out.println();
    System.out.println("wall s: lakesink from building the worker to its exit; Spark its streaming query (start() to the end of");
    System.out.println("Trigger.AvailableNow); the floor its decode + write loop. events/s = events / wall s.");
    System.out.println("process s: from JVM start to that end (Spark's includes starting its session). CPU s: the whole process's CPU");
    System.out.println("seconds until then (the floor: during its loop). thread s: CPU seconds of the threads that decode and write");
    System.out.println("(lakesink: poll + decoder + writer threads; the floor's only thread). rows: read back, every Kafka position exactly once");
    System.out.println("(lakesink, Spark), or counted by the Parquet writer's statistics (floor); '!' marks a failed check.");
    if (hasFloor) {
      System.out.println(String.format(Locale.ROOT, "floor: %,d events (%s MB of JSON), decode ", (long) d(floor, "events"), floor.getProperty("event_mb"))
          + fmt(d(floor, "decode_seconds")) + " s + Parquet " + fmt(d(floor, "write_seconds")) + " s, " + floor.getProperty("files")
          + " file(s) of up to " + floor.getProperty("flush_rows") + " rows, " + floor.getProperty("table_mb") + " MB on disk.");
    }
    String spark = lakesink.keySet().stream().map(p -> props(spark(dir, p)).getProperty("spark_conf"))
        .filter(c -> c != null).findFirst().orElse(null);
    if (spark != null) {
      System.out.println("Spark: " + spark);
    }
    System.out.println();
    System.out.println("Ratios:");
    lakesink.forEach((partitions, runs) -> {
      StringBuilder line = new StringBuilder("  " + ChangelogThroughputBench.describe(partitions) + ": ");
      if (hasFloor) {
        double events = d(runs.get(0), "events");
        double perEvent = median(runs, "cpu_seconds") / events;
        double floorPerEvent = d(floor, "cpu_seconds") / d(floor, "events");
        double ratio = perEvent / floorPerEvent;
        line.append(String.format(Locale.ROOT,
            "process CPU %.1f s per million events (poll %.1f + decoders %.1f + writers %.1f) = %.2f× the floor's %.1f (target ≤ %.1f×: %s)",
            perEvent * 1e6, median(runs, "main_thread_cpu_seconds") / events * 1e6,
            median(runs, "decoder_threads_cpu_seconds") / events * 1e6, median(runs, "writer_threads_cpu_seconds") / events * 1e6,
            ratio, floorPerEvent * 1e6, FLOOR_TARGET, ratio <= FLOOR_TARGET ? "met" : "not met"));
        double rate = median(runs, "events_per_second") / d(floor, "events_per_second");
        boolean one = ChangelogThroughputBench.partitionCount(partitions) == 1;
        boolean hot = ChangelogThroughputBench.hot(partitions);
        double target = one || hot ? FLOOR_RATE_TARGET_ONE : FLOOR_RATE_TARGET_MANY;
        line.append(String.format(Locale.ROOT, "; events/s %.2f× the floor's (target ≥ %.1f×%s: %s)", rate, target,
            hot ? ", as one partition" : "", rate >= target ? "met" : "not met"));
      }
      Properties s = props(spark(dir, partitions));
      if (d(s, "events_per_second") > 0) {
        double ratio = median(runs, "events_per_second") / d(s, "events_per_second");
        line.append(hasFloor ? "; " : "").append(String.format(Locale.ROOT, "events/s %.2f× Spark's (target ≥ %.0f×: %s)",
            ratio, SPARK_TARGET, ratio >= SPARK_TARGET ? "met" : "not met"));
      }
      System.out.println(line);
      if (hasFloor) {
        String bound = machineBound(runs, floor, partitions);
        if (bound != null) {
          System.out.println(bound);
        }
      }
    });
  }

  /**
   * What this machine's cores allow at the CPU per event the run measured: the worker and the broker
   * share them, so events/s cannot pass cores / (worker's + broker's CPU per event). Set beside the
   * floor's events/s target: the CPU per event that target leaves for both, against the floor's own
   * process CPU per event (the worker does the floor's decoding and writing, and more). Null when the
   * run did not record the broker's CPU (an older result).
   */
  static String machineBound(List<Properties> runs, Properties floor, String partitions) {
    if (runs.stream().anyMatch(r -> r.getProperty("broker_cpu_seconds") == null || r.getProperty("machine_cores") == null)) {
      return null;
    }
    double events = d(runs.get(0), "events");
    double cores = d(runs.get(0), "machine_cores");
    double worker = median(runs, "cpu_seconds") / events;
    double broker = median(runs, "broker_cpu_seconds") / events;
    double bound = cores / (worker + broker);
    boolean many = ChangelogThroughputBench.partitionCount(partitions) > 1 && !ChangelogThroughputBench.hot(partitions);
    double target = (many ? FLOOR_RATE_TARGET_MANY : FLOOR_RATE_TARGET_ONE) * d(floor, "events_per_second");
    double floorPerEvent = d(floor, "cpu_seconds") / d(floor, "events");
    return String.format(Locale.ROOT,
        "    machine bound: %.0f cores / (lakesink %.1f + broker %.1f µs of CPU per event) = %,.0f events/s (%.2f× the floor's);"
            + " %,.0f events/s would leave %.1f µs per event for both, the floor's own process takes %.1f (%.2f cores at its %,.0f events/s)",
        cores, worker * 1e6, broker * 1e6, bound, bound / d(floor, "events_per_second"), target, cores / target * 1e6,
        floorPerEvent * 1e6, d(floor, "cpu_seconds") / d(floor, "seconds"), d(floor, "events_per_second"));
  }

  private static Properties props(Path file) {
    try {
      return ChangelogThroughputBench.load(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path spark(Path dir, String partitions) {
    return dir.resolve("spark-p" + partitions + ".properties");
  }

  private static String mb(double mb) {
    return mb > 0 ? String.format(Locale.ROOT, "%,.0f MB", mb) : "-";
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String rows(Properties r) {
    String rows = r.getProperty("rows");
    if (rows == null) {
      return "-";
    }
    return String.format(Locale.ROOT, "%,d", Long.parseLong(rows)) + (Boolean.parseBoolean(r.getProperty("verified")) ? "" : " !");
  }
}
