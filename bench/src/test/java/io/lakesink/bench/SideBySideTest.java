package io.lakesink.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's comparison puts the three figures side by side and computes the ratios. */
class SideBySideTest {
  @Test
  void ratiosAgainstTheFloorAndSpark(@TempDir Path dir) throws Exception {
    Properties run = props("events", "1000000", "events_per_second", "40000", "seconds", "25", "process_seconds", "26",
        "main_thread_cpu_seconds", "14", "decoder_threads_cpu_seconds", "2", "writer_threads_cpu_seconds", "6", "cpu_seconds", "30", "process_cpu_seconds", "31.5", "gc_seconds", "1", "peak_heap_mb", "700", "vmhwm_mb", "900",
        "rows", "1000000", "verified", "true");
    ChangelogThroughputBench.store(props("events", "1000000", "events_per_second", "100000", "seconds", "10",
        "thread_cpu_seconds", "8", "cpu_seconds", "9", "gc_seconds", "0.5", "peak_heap_mb", "1200", "rows", "1000000",
        "verified", "true", "event_mb", "640", "decode_seconds", "3", "write_seconds", "7", "files", "5", "flush_rows", "200000",
        "table_mb", "40"), dir.resolve("floor.properties"));
    ChangelogThroughputBench.store(props("events", "1000000", "events_per_second", "10000", "query_seconds", "100",
        "process_seconds", "115", "cpu_seconds", "180", "gc_seconds", "3", "peak_heap_mb", "1500", "vmhwm_mb", "1800",
        "rows", "999999", "verified", "false"), dir.resolve("spark-p4.properties"));

    String report = capture(() -> SideBySide.print(dir, Map.of("4", List.of(run))));

    // 30 CPU-s per million events (14 on the poll thread, 2 on the decoders, 6 on the writers)
    // against the floor's 9; 40k events/s against the floor's 100k and Spark's 10k.
    assertTrue(report.contains("process CPU 30.0 s per million events (poll 14.0 + decoders 2.0 + writers 6.0)"
        + " = 3.33× the floor's 9.0 (target ≤ 1.3×: not met)"), report);
    assertTrue(report.contains("events/s 0.40× the floor's (target ≥ 1.2×: not met)"), report);
    assertTrue(report.contains("14.0+2.0+6.0"), "the thread groups' CPU side by side: " + report);
    assertTrue(report.contains("events/s 4.00× Spark's (target ≥ 5×: not met)"), report);
    assertTrue(report.contains("999,999 !"), "Spark's failed check is marked: " + report);
    assertTrue(report.contains("lakesink, 4 partition(s)") && report.contains("floor: 1 thread"), report);
    assertTrue(report.contains("31.50"), "lakesink's process CPU since JVM start, as Spark's: " + report);
  }

  @Test
  void theMachineBoundFromTheWorkersAndTheBrokersCpuPerEvent(@TempDir Path dir) throws Exception {
    // 10 µs per event in the worker and 2 in the broker on 2 cores: at most 166,667 events/s. The
    // floor does 200,000 at 8 µs (1.60 cores); 1.2× that, 240,000 events/s, leaves 8.3 µs for both.
    Properties run = props("events", "1000000", "events_per_second", "120000", "seconds", "8.3", "process_seconds", "9",
        "main_thread_cpu_seconds", "2", "decoder_threads_cpu_seconds", "2", "writer_threads_cpu_seconds", "2", "cpu_seconds", "10",
        "process_cpu_seconds", "11", "gc_seconds", "1", "rows", "1000000", "verified", "true",
        "broker_cpu_seconds", "2", "machine_cores", "2");
    ChangelogThroughputBench.store(props("events", "1000000", "events_per_second", "200000", "seconds", "5",
        "thread_cpu_seconds", "4", "cpu_seconds", "8", "gc_seconds", "0.5", "rows", "1000000", "verified", "true"),
        dir.resolve("floor.properties"));

    String report = capture(() -> SideBySide.print(dir, Map.of("4", List.of(run))));

    assertTrue(report.contains("machine bound: 2 cores / (lakesink 10.0 + broker 2.0 µs of CPU per event) = 166,667 events/s"
        + " (0.83× the floor's); 240,000 events/s would leave 8.3 µs per event for both, the floor's own process takes 8.0"
        + " (1.60 cores at its 200,000 events/s)"), report);

    // A result from before the broker's CPU was recorded has no bound line.
    run.remove("broker_cpu_seconds");
    assertFalse(capture(() -> SideBySide.print(dir, Map.of("4", List.of(run)))).contains("machine bound"));
  }

  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  private static String capture(Runnable r) {
    PrintStream out = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setOut(out);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
