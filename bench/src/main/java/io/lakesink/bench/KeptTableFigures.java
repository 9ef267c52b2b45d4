package io.lakesink.bench;

import io.lakesink.app.Pipeline;
import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.LoggedCommits;
import io.lakesink.storage.TableStorage;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The throughput benchmark's figures and check of the current-state table the worker keeps
 * ({@code current_state: {object: table}}, {@code bench/run} with {@code KEPT}).
 *
 * <p>The worker's stop waits (up to 30 s) for the follows its last commits asked for, so the
 * table is caught up when the worker exits, unless a follow was abandoned: then {@link #afterRun}
 * waits for that follow and catches up the rest, timed, as the worker's next start would. The
 * figures: the changelog versions the table was behind at the worker's exit, the time and CPU
 * after the exit until it caught up, the follows (commits of the table carrying {@value
 * CurrentStateTable#APP_ID}) and the optimize commits.
 */
final class KeptTableFigures {
  private KeptTableFigures() {}

  /**
   * Adds {@code kept_*} figures to {@code r}; fails when the table does not reflect the
   * changelog's last version in the end. Called right after the worker's exit.
   */
  static void afterRun(TableStorage storage, Subscription s, Properties r) {
    Engine engine = KernelEngine.create(storage);
    DeltaTable changelog = Pipeline.table(storage, engine, s);
    DeltaTable kept = Pipeline.keptTable(storage, engine, s)
        .orElseThrow(() -> new IllegalStateException("the kept table was not created"));
    long latest = changelog.version();
    long lag = latest - reflected(kept);
    r.setProperty("kept_lag_versions_at_exit", String.valueOf(lag));
    long cpu = ChangelogThroughputBench.processCpuNanos();
    long start = System.nanoTime();
    if (lag > 0) {
      // The worker's stop abandoned a follow after 30 s: it goes on on its thread and commits
      // (fenced) what it started with. Then catch up the rest, as the worker's next start would.
      awaitFollowThreadsIdle();
      if (reflected(kept) < latest) {
        CurrentStateTable table = new CurrentStateTable(s.table(), changelog, kept, s.primaryKey(), CurrentStateTable.Hook.NONE,
            Clock.systemUTC());
        if (!table.follow()) {
          throw new IllegalStateException("the kept table could not catch up: " + table.progress());
        }
      }
    }
    double afterExit = (System.nanoTime() - start) / 1e9;
    if (reflected(kept) != latest) {
      throw new IllegalStateException("the kept table reflects version " + reflected(kept) + " of the changelog, not " + latest);
    }
    List<LoggedCommits.LoggedCommit> commits = LoggedCommits.since(kept, -1);
    long follows = commits.stream().filter(c -> c.appIds().contains(CurrentStateTable.APP_ID)).count();
    r.setProperty("kept_after_exit_seconds", String.valueOf(afterExit));
    r.setProperty("kept_after_exit_cpu_seconds", String.valueOf(lag > 0 ? (ChangelogThroughputBench.processCpuNanos() - cpu) / 1e9 : 0));
    r.setProperty("kept_caught_up_seconds", String.valueOf(Double.parseDouble(r.getProperty("seconds")) + afterExit));
    r.setProperty("kept_follow_commits", String.valueOf(follows));
    r.setProperty("kept_other_commits", String.valueOf(commits.size() - follows));
    r.setProperty("changelog_version", String.valueOf(latest));
  }

  /**
   * Waits until no follower thread runs a follow: each is back in its pool waiting for work (or
   * gone). A benchmark's measurement, from outside the worker: it exposes no follower after exit.
   */
  private static void awaitFollowThreadsIdle() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    while (true) {
      boolean busy = false;
      for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds(), 64)) {
        if (t != null && t.getThreadName().startsWith("lakesink-follow-")
            && Arrays.stream(t.getStackTrace()).noneMatch(f -> f.getMethodName().equals("getTask"))) {
          busy = true;
        }
      }
      if (!busy) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static long reflected(DeltaTable kept) {
    kept.refresh();
    return kept.transactionVersions(List.of(CurrentStateTable.APP_ID)).getOrDefault(CurrentStateTable.APP_ID, -1L);
  }

  /** What the current state of a key must be: its last event. */
  private record Latest(int partition, long offset, String op, String amount) {}

  /**
   * Checks the kept table against the current state computed from the generated events: one row
   * per live key, none for a deleted one, and every row is its key's last event (its Kafka
   * position, operation and {@code amount}). Adds {@code kept_rows}, {@code kept_live_keys},
   * {@code kept_wrong_rows} and {@code kept_verified} to {@code r}.
   */
  static boolean verify(TableStorage storage, Subscription s, String benchCase, long events, long keys, Properties r) {
    long start = System.nanoTime();
    int partitions = ChangelogThroughputBench.partitionCount(benchCase);
    Map<Long, Latest> expected = new HashMap<>();
    long[] nextOffset = new long[partitions];
    BenchEvents.generate(events, partitions, ChangelogThroughputBench.hot(benchCase), keys, (partition, op, id, key, value) -> {
      long offset = nextOffset[partition]++; // one producer, in order: a partition's offsets count its events
      if (op.equals("d")) {
        expected.remove(id);
      } else {
        expected.put(id, new Latest(partition, offset, op, amount(value)));
      }
    });
    Engine engine = KernelEngine.create(storage);
    DeltaTable kept = Pipeline.keptTable(storage, engine, s).orElseThrow();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(kept);
    long wrong = 0;
    Map<Long, Boolean> seen = new HashMap<>();
    for (Map<String, Object> row : rows) {
      long id = Long.parseLong(String.valueOf(row.get("id"))); // typed as the decoder inferred it
      Latest want = expected.get(id);
      boolean right = want != null && seen.put(id, true) == null
          && want.partition() == ((Number) row.get("__partition")).intValue()
          && want.offset() == ((Number) row.get("__offset")).longValue()
          && want.op().equals(row.get("__op"))
          && want.amount().equals(String.valueOf(row.get("amount")));
      if (!right) {
        if (wrong < 5) {
          System.err.println("Kept table row not the current state: " + row + ", expected " + want);
        }
        wrong++;
      }
    }
    boolean ok = wrong == 0 && rows.size() == expected.size();
    r.setProperty("kept_rows", String.valueOf(rows.size()));
    r.setProperty("kept_live_keys", String.valueOf(expected.size()));
    r.setProperty("kept_wrong_rows", String.valueOf(wrong));
    r.setProperty("kept_verified", String.valueOf(ok));
    System.out.printf(Locale.ROOT, "Kept table %s: %,d rows for %,d live keys, %,d rows not their key's last event (checked in %.1f s)%n",
        ok ? "OK" : "FAILED", rows.size(), expected.size(), wrong, (System.nanoTime() - start) / 1e9);
    return ok;
  }

  /** The {@code amount} of an event's {@code after} image (a JSON string value). */
  static String amount(byte[] value) {
    String json = new String(value, StandardCharsets.UTF_8);
    int at = json.indexOf("\"amount\":\"", json.indexOf("\"after\":"));
    if (at < 0) {
      throw new IllegalArgumentException("no amount after the after image: " + json);
    }
    int from = at + "\"amount\":\"".length();
    return json.substring(from, json.indexOf('"', from));
  }

  /**
   * The kept table's side of the report: each run with the table on ({@code kept-p<case>-<r>})
   * beside the run without it ({@code run-p<case>-<r>}) of the same run of bench/run.
   */
  static void report(Path dir) throws IOException {
    List<Path> keptRuns = ChangelogThroughputBench.results(dir, "kept-.*\\.properties");
    if (keptRuns.isEmpty()) {
      return;
    }
    System.out.println();
    System.out.println("The worker with the kept current-state table (current_state: {object: table}) on vs off, same topic:");
    System.out.println(String.format(Locale.ROOT, "%-8s %9s %11s %11s %7s %11s %7s %9s %9s %13s %8s %9s %8s %10s %9s",
        "case", "keys", "off ev/s", "on ev/s", "ratio", "caught ev/s", "ratio", "off µs/ev", "on µs/ev", "waited off/on",
        "follows", "follow s", "lag s", "lag at exit", "verified"));
    for (Path f : keptRuns) {
      Properties on = ChangelogThroughputBench.load(f);
      Properties off = ChangelogThroughputBench.load(f.resolveSibling(f.getFileName().toString().replaceFirst("^kept-", "run-")));
      long events = Long.parseLong(on.getProperty("events"));
      double offRate = events / ChangelogThroughputBench.d(off, "changelog_done_seconds");
      double onRate = events / ChangelogThroughputBench.d(on, "changelog_done_seconds");
      double caughtRate = events / ChangelogThroughputBench.d(on, "kept_caught_up_seconds");
      double onCpu = ChangelogThroughputBench.d(on, "cpu_seconds") + ChangelogThroughputBench.d(on, "kept_after_exit_cpu_seconds");
      System.out.println(String.format(Locale.ROOT, "%-8s %,9d %,11.0f %,11.0f %6.2f× %,11.0f %6.2f× %9.1f %9.1f %13s %8s %9.2f %8.2f %10s %9s",
          f.getFileName().toString().replaceAll("^kept-p|\\.properties$", ""), Long.parseLong(on.getProperty("keys", "0")),
          offRate, onRate, onRate / offRate, caughtRate, caughtRate / offRate,
          ChangelogThroughputBench.d(off, "cpu_seconds") * 1e6 / events, onCpu * 1e6 / events,
          String.format(Locale.ROOT, "%.1f/%.1f", waited(off), waited(on)),
          on.getProperty("kept_follow_commits"), followCpu(on),
          ChangelogThroughputBench.d(on, "kept_caught_up_seconds") - ChangelogThroughputBench.d(on, "changelog_done_seconds"),
          on.getProperty("kept_lag_versions_at_exit"),
          off.getProperty("verified", "not run") + "/" + on.getProperty("verified", "not run") + "+" + on.getProperty("kept_verified", "not run")));
    }
    System.out.println("ev/s = events / time from building the worker to the changelog's last commit (the worker's changelog events/s);");
    System.out.println("caught ev/s = events / time until the kept table reflects that commit (the worker's exit waits for its follows);");
    System.out.println("µs/ev = the worker process's CPU per event (the follows' included with the table on); follow s = CPU of the");
    System.out.println("follower thread (its merges' helper lanes not counted); lag s = caught up − changelog done;");
    System.out.println("waited = seconds reading waited for delivery.max_buffer_bytes (flushes being written, follows holding changes);");
    System.out.println("lag at exit = changelog versions the table did not reflect when the worker exited (0: no catch-up needed);");
    System.out.println("verified = changelog off / changelog on + kept table equal to the current state computed from the events.");
  }

  /** Seconds reading waited for the buffer budget; NaN for a run from before it was recorded. */
  private static double waited(Properties run) {
    return run == null || run.getProperty("buffers_full_seconds") == null ? Double.NaN : ChangelogThroughputBench.d(run, "buffers_full_seconds");
  }

  private static double followCpu(Properties on) {
    return on.stringPropertyNames().stream().filter(k -> k.startsWith("thread_cpu.lakesink-follow-"))
        .mapToDouble(k -> ChangelogThroughputBench.d(on, k)).sum();
  }
}
