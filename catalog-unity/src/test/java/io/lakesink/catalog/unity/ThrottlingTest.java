package io.lakesink.catalog.unity;

import io.lakesink.retry.RetryPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.RetryableException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ThrottlingTest {
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void aBurstOf429sIsWaitedOutAsRetryAfterSays() {
    h.fake.throttle(4, "7");
    h.catalog().register(Harness.orders());
    assertEquals(List.of(Duration.ofSeconds(7), Duration.ofSeconds(7), Duration.ofSeconds(7), Duration.ofSeconds(7)), h.sleeper.sleeps());
    assertNotNull(h.fake.table("main.bronze.orders_APPEND"));
  }

  @Test
  void retryAfterAsAnHttpDateCountsFromNow() {
    String in30s = DateTimeFormatter.RFC_1123_DATE_TIME.format(h.clock.instant().plusSeconds(30).atOffset(ZoneOffset.UTC));
    h.fake.throttle(2, in30s);
    h.catalog().register(Harness.orders());
    // The first wait reaches the date; the second finds it already passed.
    assertEquals(List.of(Duration.ofSeconds(30), Duration.ZERO), h.sleeper.sleeps());
  }

  @Test
  void withoutRetryAfterTheBackoffDoublesWithJitter() {
    h.fake.throttle(5, null);
    h.catalog().register(Harness.orders());
    List<Duration> sleeps = h.sleeper.sleeps();
    assertEquals(5, sleeps.size());
    for (int i = 0; i < sleeps.size(); i++) {
      long base = 1000L << i;
      long ms = sleeps.get(i).toMillis();
      assertTrue(ms >= base && ms <= base * 5 / 4, "retry " + (i + 1) + " waited " + ms + " ms");
    }
  }

  @Test
  void unavailableIsRetriedToo() {
    h.fake.unavailable(2);
    h.catalog().register(Harness.orders());
    assertEquals(2, h.sleeper.sleeps().size());
  }

  @Test
  void endlessThrottlingEndsInARetryableError() {
    h.fake.throttle(1000, "2");
    RetryableException e = assertThrows(RetryableException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(e.getMessage().contains("429 REQUEST_LIMIT_EXCEEDED"), e.getMessage());
    assertTrue(e.getMessage().contains("data keeps being written"), e.getMessage());
    assertEquals(HttpSender.POLICY.maxAttempts() - 1, h.sleeper.sleeps().size());
  }

  @Test
  void aRetryAfterLongerThanFiveMinutesIsLeftToTheCaller() {
    h.fake.throttle(1, "3600");
    RetryableException e = assertThrows(RetryableException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(e.getMessage().contains("3600 s"), e.getMessage());
    assertEquals(List.of(), h.sleeper.sleeps());
  }

  @Test
  void anUnreachableWorkspaceIsRetryableAndNamesTheSetting() {
    UnityCatalog catalog = h.catalog();
    h.fake.close();
    RetryableException e = assertThrows(RetryableException.class, () -> catalog.register(Harness.orders()));
    assertTrue(e.getMessage().contains("catalog.workspace_url"), e.getMessage());
    assertEquals(HttpSender.POLICY.maxAttempts() - 1, h.sleeper.sleeps().size());
  }

  @Test
  void backoffStaysWithinOneToSixtySeconds() {
    RetryPolicy backoff = HttpSender.POLICY;
    Random random = new Random(7);
    for (int retry = 1; retry <= 40; retry++) {
      Duration d = backoff.delay(retry, Optional.empty(), h.clock, random);
      assertTrue(d.compareTo(Duration.ofSeconds(1)) >= 0 && d.compareTo(Duration.ofSeconds(60)) <= 0, d.toString());
    }
    assertEquals(Duration.ofSeconds(60), backoff.delay(12, Optional.empty(), h.clock, random));
    assertEquals(Duration.ofSeconds(3), backoff.delay(1, Optional.of(" 3 "), h.clock, random));
    assertTrue(backoff.delay(1, Optional.of("soon"), h.clock, random).toMillis() <= 1250, "unparseable Retry-After falls back to backoff");
    assertEquals(Duration.ZERO, backoff.delay(1, Optional.of("Wed, 21 Oct 2015 07:28:00 GMT"), h.clock, random));
  }
}
