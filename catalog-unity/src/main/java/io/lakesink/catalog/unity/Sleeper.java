package io.lakesink.catalog.unity;

import java.time.Duration;

/** Waits between retries. Injected so that tests check the waits instead of doing them. */
@FunctionalInterface
public interface Sleeper {
  Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis());

  void sleep(Duration duration) throws InterruptedException;
}
