package io.lakesink.app.status;

import java.util.Locale;

/**
 * A table's committed rows over the last minutes as a small inline SVG bar chart, one bar per
 * {@link Throughput#BUCKET}: built on the server, so the page needs no script and no asset.
 * Everything it writes is numbers, so it needs no escaping.
 */
final class ThroughputChart {
  static final int WIDTH = 240;
  static final int HEIGHT = 36;

  private ThroughputChart() {}

  /** The chart of {@code rows} (oldest first), with a caption of the last minute's rate and the peak. */
  static String svg(long[] rows) {
    long peak = 0;
    for (long r : rows) peak = Math.max(peak, r);
    double bar = (double) WIDTH / rows.length;
    StringBuilder out = new StringBuilder()
        .append("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
        .append("\" height=\"").append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" role=\"img\">")
        .append("<title>Rows committed per ").append(Throughput.BUCKET.toSeconds()).append(" s over the last ")
        .append(rows.length * Throughput.BUCKET.toSeconds() / 60).append(" min; peak ").append(rate(peak)).append(" rows/s</title>")
        .append("<rect width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT).append("\" fill=\"#f4f6f8\"/>");
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] == 0) {
        continue;
      }
      // At least 1 px, so a trickle beside a burst still shows.
      double h = Math.max(1, (HEIGHT - 2) * (double) rows[i] / peak);
      out.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2b7bb9\"/>",
          i * bar + 0.5, HEIGHT - h, Math.max(1, bar - 1), h));
    }
    return out.append("<line x1=\"0\" y1=\"").append(HEIGHT - 0.5).append("\" x2=\"").append(WIDTH).append("\" y2=\"")
        .append(HEIGHT - 0.5).append("\" stroke=\"#9aa5b1\"/></svg>").toString();
  }

  /** Rows per second over the last minute, and the busiest bucket's: the chart's caption. */
  static String caption(long[] rows) {
    int lastMinute = (int) Math.min(rows.length, 60 / Throughput.BUCKET.toSeconds());
    long sum = 0;
    long peak = 0;
    for (int i = 0; i < rows.length; i++) {
      peak = Math.max(peak, rows[i]);
      if (i >= rows.length - lastMinute) sum += rows[i];
    }
    return rate((double) sum / (lastMinute * Throughput.BUCKET.toSeconds())) + " rows/s last min, peak "
        + rate(peak) + " rows/s";
  }

  /** A bucket's rows as rows per second. */
  private static String rate(long bucketRows) {
    return rate((double) bucketRows / Throughput.BUCKET.toSeconds());
  }

  private static String rate(double perSecond) {
    if (perSecond >= 1000) return String.format(Locale.ROOT, "%.1fk", perSecond / 1000);
    if (perSecond >= 10 || perSecond == 0) return String.format(Locale.ROOT, "%.0f", perSecond);
    return String.format(Locale.ROOT, "%.1f", perSecond);
  }
}
