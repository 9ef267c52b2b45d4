package io.lakesink.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  final RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(60), 8, 0.25);
  final Clock clock = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

  @Test
  void waitsDoubleWithBoundedJitterUpToTheCap() {
    Random random = new Random(7);
    for (int retry = 1; retry <= 6; retry++) {
      long base = 1000L << (retry - 1);
      long d = policy.delay(retry, random).toMillis();
      assertTrue(d >= base && d <= base * 1.25, "retry " + retry + ": " + d);
    }
    assertEquals(Duration.ofSeconds(60), policy.delay(12, random));
    assertEquals(Duration.ofSeconds(60), policy.delay(40, random), "no overflow for late retries");
  }

  @Test
  void jitterSpreadsReplicasApart() {
    Random random = new Random(1);
    long a = policy.delay(3, random).toMillis();
    long b = policy.delay(3, random).toMillis();
    assertTrue(a != b, "two replicas retrying together wait differently");
  }

  @Test
  void retryAfterWinsInSecondsOrAsADate() {
    Random random = new Random(1);
    assertEquals(Duration.ofSeconds(3), policy.delay(1, Optional.of(" 3 "), clock, random));
    assertEquals(Duration.ofSeconds(90), policy.delay(1, Optional.of("Mon, 30 Nov 2026 12:01:30 GMT"), clock, random));
    assertEquals(Duration.ZERO, policy.delay(1, Optional.of("Wed, 21 Oct 2015 07:28:00 GMT"), clock, random));
    assertTrue(policy.delay(1, Optional.of("soon"), clock, random).toMillis() <= 1250, "unreadable: the schedule");
  }

  @Test
  void attemptsAreCounted() {
    assertTrue(policy.mayRetryAfter(7));
    assertFalse(policy.mayRetryAfter(8));
  }
}
