package io.lakesink.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Two settings of the worker compared in one run of the changelog benchmark ({@code B_WORKER_OPTS},
 * {@code B_KAFKA_PROPERTIES} of {@code bench/run}): every worker run is made twice back to back,
 * with the usual settings (A) and with B's, the order swapped at every repeat. This machine's
 * speed drifts by a third within an hour with no load average to show for it, and a setting
 * once looked 30–40 % faster than it was because its runs came an hour after the others
 * (docs/performance.md): only runs minutes apart compare. So each B run ({@code b-<run>.properties})
 * is set beside the A run next to it ({@code <run>.properties}), and the report gives B's ratio to A
 * per pair and their median.
 */
final class AbFigures {
  private AbFigures() {}

  static void report(Path dir) throws IOException {
    List<Path> bRuns = ChangelogThroughputBench.results(dir, "b-(run|kept)-.*\\.properties");
    if (bRuns.isEmpty()) {
      return;
    }
    System.out.println();
    System.out.println("A/B: each worker run with the usual settings (A) and B's, back to back, the order swapped at every repeat:");
    System.out.println(String.format(Locale.ROOT, "%-14s %11s %11s %7s %9s %9s %7s %13s %13s %13s",
        "run", "A ev/s", "B ev/s", "B/A", "A µs/ev", "B µs/ev", "B/A", "GC s A/B", "JIT s A/B", "waited A/B"));
    List<Double> rates = new ArrayList<>();
    List<Double> costs = new ArrayList<>();
    for (Path f : bRuns) {
      Properties b = ChangelogThroughputBench.load(f);
      Properties a = ChangelogThroughputBench.load(f.resolveSibling(f.getFileName().toString().substring(2)));
      if (a.isEmpty()) {
        continue; // the A run of the pair failed or was cut short
      }
      double rateRatio = rate(b) / rate(a);
      double costRatio = cpuPerEvent(b) / cpuPerEvent(a);
      rates.add(rateRatio);
      costs.add(costRatio);
      System.out.println(String.format(Locale.ROOT, "%-14s %,11.0f %,11.0f %6.2f× %9.1f %9.1f %6.2f× %13s %13s %13s",
          f.getFileName().toString().replaceAll("^b-|\\.properties$", ""), rate(a), rate(b), rateRatio,
          cpuPerEvent(a), cpuPerEvent(b), costRatio, pair(a, b, "jvm_cpu.gc"), pair(a, b, "jvm_cpu.jit"),
          pair(a, b, "buffers_full_seconds")));
    }
    System.out.println(String.format(Locale.ROOT, "median of %d pairs: events/s B/A %.2f×, CPU per event B/A %.2f×",
        rates.size(), median(rates), median(costs)));
    System.out.println("ev/s = events / time to the changelog's last commit; µs/ev = the worker process's CPU per event (with a kept");
    System.out.println("table, its follows' CPU after the last commit included); waited = seconds reading waited for the buffer budget.");
  }

  private static double rate(Properties run) {
    return ChangelogThroughputBench.d(run, "events") / ChangelogThroughputBench.d(run, "changelog_done_seconds");
  }

  private static double cpuPerEvent(Properties run) {
    double cpu = ChangelogThroughputBench.d(run, "cpu_seconds") + ChangelogThroughputBench.d(run, "kept_after_exit_cpu_seconds");
    return cpu * 1e6 / ChangelogThroughputBench.d(run, "events");
  }

  private static String pair(Properties a, Properties b, String key) {
    return String.format(Locale.ROOT, "%.1f/%.1f", ChangelogThroughputBench.d(a, key), ChangelogThroughputBench.d(b, key));
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
