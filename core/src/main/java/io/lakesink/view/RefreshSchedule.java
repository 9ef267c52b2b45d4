package io.lakesink.view;

import java.time.Duration;

/**
 * The {@code SCHEDULE} clause of a materialized view for a refresh lag. Databricks accepts {@code
 * EVERY n HOURS} but not {@code EVERY n MINUTES}, so a lag of whole hours becomes {@code EVERY n
 * HOURS} and a lag under an hour a Quartz cron that fires every {@code m} minutes from the full
 * hour: the gap between two refreshes is then never more than the lag. Other lags (90 minutes)
 * have no schedule that keeps them and are refused by the configuration.
 */
public final class RefreshSchedule {
  private RefreshSchedule() {}

  /** Whether a lag has a schedule: whole minutes under an hour, or whole hours. */
  public static boolean representable(Duration lag) {
    long minutes = lag.toMinutes();
    return !lag.isNegative() && !lag.isZero() && lag.equals(Duration.ofMinutes(minutes))
        && (minutes < 60 || minutes % 60 == 0);
  }

  /** E.g. {@code SCHEDULE EVERY 1 HOURS}, {@code SCHEDULE CRON '0 0/15 * * * ?' AT TIME ZONE 'UTC'}. */
  public static String clause(Duration lag) {
    if (!representable(lag)) {
      throw new IllegalArgumentException("No refresh schedule keeps a lag of " + lag);
    }
    long minutes = lag.toMinutes();
    if (minutes % 60 == 0) {
      return "SCHEDULE EVERY " + (minutes / 60) + " HOURS";
    }
    return "SCHEDULE CRON '0 0/" + minutes + " * * * ?' AT TIME ZONE 'UTC'";
  }
}
