package io.lakesink.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The system clock, which a test can move forward to make a timed retry due at once. */
public final class ShiftableClock extends Clock {
  private volatile long shiftMillis;

  public void advance(Duration d) {
    shiftMillis += d.toMillis();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + shiftMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }
}
