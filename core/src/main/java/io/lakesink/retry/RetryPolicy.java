package io.lakesink.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The one retry schedule of lakesink, used for storage commits, catalog calls and schema
 * registry lookups: exponential from {@code first}, doubling per retry up to {@code cap}, with
 * up to {@code jitter} of each wait added at random so that replicas failing together do not
 * come back together; and what the server asked for when it sent {@code Retry-After} (seconds or
 * an HTTP date). Each caller picks its schedule (how patient it can be) and how it waits; the
 * rules are the same everywhere.
 *
 * @param first the wait before the first retry
 * @param cap the longest wait between two attempts
 * @param maxAttempts attempts per call, the first included
 * @param jitter the fraction of each wait added at random, 0 for none
 */
public record RetryPolicy(Duration first, Duration cap, int maxAttempts, double jitter) {

  public RetryPolicy {
    if (first.isNegative() || cap.compareTo(first) < 0 || maxAttempts < 1 || jitter < 0 || jitter > 1) {
      throw new IllegalArgumentException("bad retry policy: " + first + ", " + cap + ", " + maxAttempts + ", " + jitter);
    }
  }

  /** Whether another attempt may follow attempt number {@code attempt} (1 for the first). */
  public boolean mayRetryAfter(int attempt) {
    return attempt < maxAttempts;
  }

  /** The wait before retry {@code retry} (1 for the first retry), without a server's hint. */
  public Duration delay(int retry, RandomGenerator random) {
    long base = first.toMillis() << Math.min(Math.max(retry - 1, 0), 20);
    long capped = Math.min(cap.toMillis(), base);
    long withJitter = capped + (long) (capped * jitter * random.nextDouble());
    return Duration.ofMillis(Math.min(cap.toMillis(), withJitter));
  }

  /** The wait before retry {@code retry}: the server's {@code Retry-After} when it sent one it can read. */
  public Duration delay(int retry, Optional<String> retryAfter, Clock clock, RandomGenerator random) {
    return retryAfter.flatMap(v -> parseRetryAfter(v, clock)).orElseGet(() -> delay(retry, random));
  }

  /** Seconds ({@code 120}) or an HTTP date ({@code Wed, 21 Oct 2026 07:28:00 GMT}); past dates mean now. */
  public static Optional<Duration> parseRetryAfter(String value, Clock clock) {
    String v = value.trim();
    if (v.matches("\\d{1,9}")) {
      return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
    }
    try {
      ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
      Duration wait = Duration.between(clock.instant(), at.toInstant());
      return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
