package io.lakesink.catalog.unity;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * How long to wait before retry number {@code n}: what the server asked for in {@code
 * Retry-After} (seconds or an HTTP date), otherwise exponential from 1 s up to 60 s with up to
 * 25% jitter, so that replicas throttled together do not come back together.
 */
final class Backoff {
  static final Duration FIRST = Duration.ofSeconds(1);
  static final Duration CAP = Duration.ofSeconds(60);
  /** Attempts per call, the first included; about three minutes of backoff in all. */
  static final int MAX_ATTEMPTS = 8;
  /** A longer Retry-After is not waited out in-line: the caller retries the registration later. */
  static final Duration LONGEST_RETRY_AFTER = Duration.ofMinutes(5);

  private final Clock clock;
  private final RandomGenerator random;

  Backoff(Clock clock, RandomGenerator random) {
    this.clock = clock;
    this.random = random;
  }

  /** The wait before retry {@code retry} (1 for the first retry). */
  Duration delay(int retry, Optional<String> retryAfter) {
    return retryAfter.flatMap(this::parseRetryAfter).orElseGet(() -> exponential(retry));
  }

  Duration exponential(int retry) {
    long base = FIRST.toMillis() << Math.min(Math.max(retry - 1, 0), 16);
    long jitter = (long) (base * 0.25 * random.nextDouble());
    return Duration.ofMillis(Math.min(CAP.toMillis(), base + jitter));
  }

  /** Seconds ({@code 120}) or an HTTP date ({@code Wed, 21 Oct 2026 07:28:00 GMT}); past dates mean now. */
  Optional<Duration> parseRetryAfter(String value) {
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
