package io.lakesink.kafka.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock tests move by hand, to step past back-offs and probe intervals without sleeping (the
 * kafka and app tests share it through the kafka module's test jar).
 */
public final class MutableClock extends Clock {
  private volatile Instant now;

  public MutableClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  public MutableClock(Instant start) {
    this.now = start;
  }

  public void advance(Duration d) {
    now = now.plus(d);
  }

  public void set(Instant instant) {
    now = instant;
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
  public Instant instant() {
    return now;
  }
}
