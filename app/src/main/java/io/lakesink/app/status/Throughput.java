package io.lakesink.app.status;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Rows committed per table over the last ten minutes, in ten-second buckets, for the status
 * page's chart. Fed by each commit as the deliveries report it ({@link WorkerMetrics#committed}),
 * so it needs no thread of its own and misses no commit between two samples; a table that
 * commits nothing for a while simply has empty buckets.
 */
public final class Throughput {
  public static final Duration BUCKET = Duration.ofSeconds(10);
  public static final int BUCKETS = 60;

  private final Clock clock;
  private final Map<String, Series> tables = new HashMap<>();

  public Throughput(Clock clock) {
    this.clock = clock;
  }

  /** A commit of {@code rows} rows to the table, now. Called on the poll thread, read by HTTP threads. */
  public synchronized void committed(String table, int rows) {
    Series s = tables.computeIfAbsent(table, t -> new Series());
    long bucket = bucket();
    s.advance(bucket);
    if (bucket > s.newest - BUCKETS) { // else the clock went back past the window: no bucket left for it
      s.rows[(int) Math.floorMod(bucket, (long) BUCKETS)] += rows;
    }
    s.lastCommitRows = rows;
  }

  /** Rows committed in each of the last {@link #BUCKETS} buckets, oldest first; the last is the current one. */
  public synchronized long[] rows(String table) {
    long[] out = new long[BUCKETS];
    Series s = tables.get(table);
    if (s == null) {
      return out;
    }
    long now = bucket();
    for (int i = 0; i < BUCKETS; i++) {
      long b = now - (BUCKETS - 1) + i;
      // A bucket after the newest written, or one the ring has since reused, holds nothing of this time.
      boolean held = b <= s.newest && b > s.newest - BUCKETS;
      out[i] = held ? s.rows[(int) Math.floorMod(b, (long) BUCKETS)] : 0;
    }
    return out;
  }

  /** Rows of the table's last commit by this worker, or -1 before its first. */
  public synchronized long lastCommitRows(String table) {
    Series s = tables.get(table);
    return s == null ? -1 : s.lastCommitRows;
  }

  private long bucket() {
    return clock.millis() / BUCKET.toMillis();
  }

  private static final class Series {
    final long[] rows = new long[BUCKETS];
    long newest = Long.MIN_VALUE;
    long lastCommitRows = -1;

    /** Empties the buckets between the newest written and {@code bucket}, which the ring reuses. */
    void advance(long bucket) {
      if (bucket <= newest) {
        return;
      }
      long from = newest == Long.MIN_VALUE ? bucket - BUCKETS + 1 : Math.max(newest + 1, bucket - BUCKETS + 1);
      for (long b = from; b <= bucket; b++) {
        rows[(int) Math.floorMod(b, (long) BUCKETS)] = 0;
      }
      newest = bucket;
    }
  }
}
