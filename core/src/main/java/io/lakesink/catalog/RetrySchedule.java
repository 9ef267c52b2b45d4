package io.lakesink.catalog;

import java.time.Duration;
import java.util.List;

/**
 * When a failed current-state build is tried again: after 1, 5 and 15 minutes, then every hour;
 * after an hour at once when the warehouse refused the work, since a stopped warehouse or a
 * missing entitlement is fixed by a person, not by asking again a minute later.
 */
public final class RetrySchedule {
  private static final List<Duration> STEPS = List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15));
  public static final Duration HOURLY = Duration.ofHours(1);

  private RetrySchedule() {}

  /** @param failures how many attempts in a row failed, this one included (from 1) */
  public static Duration after(int failures, boolean warehouseRefused) {
    if (warehouseRefused || failures > STEPS.size()) {
      return HOURLY;
    }
    return STEPS.get(Math.max(0, failures - 1));
  }
}
