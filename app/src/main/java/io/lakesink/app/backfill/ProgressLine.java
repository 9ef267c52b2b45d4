package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillProgress;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * A backfill's progress: a bar redrawn in place on a terminal (rows, rows/s, ETA), plain lines
 * at most every {@link #PLAIN_EVERY} otherwise (a log file or CI keeps every line).
 */
public final class ProgressLine implements BackfillProgress {
  static final Duration PLAIN_EVERY = Duration.ofSeconds(10);
  private static final int BAR = 30;

  private final PrintStream out;
  private final boolean terminal;
  private final Clock clock;
  private String id;
  private long startedAt;
  private long resumedAt;
  private OptionalLong total = OptionalLong.empty();
  private long lastPlain;

  public ProgressLine(PrintStream out, boolean terminal, Clock clock) {
    this.out = out;
    this.terminal = terminal;
    this.clock = clock;
  }

  @Override
  public void started(String backfillId, long resumed, OptionalLong totalRows) {
    this.id = backfillId;
    this.resumedAt = resumed;
    this.total = totalRows;
    this.startedAt = clock.millis();
    this.lastPlain = startedAt;
    out.println("Backfill " + id + (resumed > 0 ? ": resuming after row " + resumed + " (committed by an earlier run)" : ": starting")
        + (totalRows.isPresent() ? ", " + totalRows.getAsLong() + " rows in the source" : ""));
  }

  @Override
  public void committed(long position, long written, long tableVersion) {
    long now = clock.millis();
    if (terminal) {
      out.print("\r" + line(position, written, now) + "   ");
      out.flush();
    } else if (now - lastPlain >= PLAIN_EVERY.toMillis()) {
      lastPlain = now;
      out.println("Backfill " + id + ": " + line(position, written, now));
    }
  }

  @Override
  public void finished(long position, long written) {
    if (terminal) {
      out.println();
    }
    out.println("Backfill " + id + ": done, " + position + " source rows, " + written + " rows written by this run in "
        + seconds(clock.millis() - startedAt) + ".");
  }

  /** {@code [######----] 61% 610000/1000000 rows, 12000 rows/s, ETA 0:00:32, 598000 written}. */
  String line(long position, long written, long now) {
    long done = position - resumedAt;
    double elapsed = Math.max(1, now - startedAt) / 1000.0;
    long rate = Math.round(done / elapsed);
    StringBuilder s = new StringBuilder();
    if (total.isPresent() && total.getAsLong() > 0) {
      long all = total.getAsLong();
      double fraction = Math.min(1.0, (double) position / all);
      int filled = (int) Math.round(fraction * BAR);
      s.append('[').append("#".repeat(filled)).append("-".repeat(BAR - filled)).append("] ")
          .append(Math.round(fraction * 100)).append("% ").append(position).append('/').append(all).append(" rows, ")
          .append(rate).append(" rows/s, ETA ");
      s.append(rate > 0 ? clockTime(Math.max(0, all - position) / rate) : "unknown");
    } else {
      s.append(position).append(" rows, ").append(rate).append(" rows/s");
    }
    return s.append(", ").append(written).append(" written").toString();
  }

  private static String clockTime(long seconds) {
    return String.format("%d:%02d:%02d", seconds / 3600, (seconds / 60) % 60, seconds % 60);
  }

  private static String seconds(long millis) {
    return String.format("%.1f s", millis / 1000.0);
  }
}
