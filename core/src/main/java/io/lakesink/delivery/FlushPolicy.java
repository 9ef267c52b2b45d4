package io.lakesink.delivery;

import java.time.Duration;

/** When a table's buffer is written: whichever of rows, bytes or age comes first. */
public record FlushPolicy(Duration interval, long rows, long bytes) {
  public static final FlushPolicy DEFAULT = new FlushPolicy(Duration.ofSeconds(10), 200_000, 128L << 20);

  public boolean due(long bufferedRows, long bufferedBytes, long oldestMillis, long nowMillis) {
    if (bufferedRows == 0) {
      return false;
    }
    return bufferedRows >= rows
        || bufferedBytes >= bytes
        || aged(oldestMillis, nowMillis);
  }

  /** Whether what was read first at {@code oldestMillis} has waited a whole flush interval. */
  public boolean aged(long oldestMillis, long nowMillis) {
    return nowMillis - oldestMillis >= interval.toMillis();
  }
}
