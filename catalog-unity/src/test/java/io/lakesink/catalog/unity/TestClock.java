package io.lakesink.catalog.unity;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand (and the recording sleeper moves when it "sleeps"). */
final class TestClock extends Clock {
  private Instant now = Instant.parse("2026-11-30T10:00:00Z");

  synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
