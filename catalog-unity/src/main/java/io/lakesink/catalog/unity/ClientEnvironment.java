package io.lakesink.catalog.unity;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * What the client takes from the outside world besides the network: how it waits, what time it
 * is (token expiry, Retry-After dates) and where backoff jitter comes from. Tests replace all
 * three; production uses {@link #system()}.
 *
 * @param sleeper waits between retries
 * @param clock current time
 * @param random jitter source
 * @param requestTimeout how long one HTTP request may take before it counts as failed
 */
public record ClientEnvironment(Sleeper sleeper, Clock clock, RandomGenerator random, Duration requestTimeout) {
  public ClientEnvironment {
    Objects.requireNonNull(sleeper, "sleeper");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(random, "random");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
  }

  public static ClientEnvironment system() {
    // java.util.Random is safe to share between threads registering tables at once.
    return new ClientEnvironment(Sleeper.SYSTEM, Clock.systemUTC(), new Random(), Duration.ofSeconds(30));
  }
}
