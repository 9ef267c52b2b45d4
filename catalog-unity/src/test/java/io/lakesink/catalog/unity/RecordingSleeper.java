package io.lakesink.catalog.unity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Records each wait instead of waiting, and moves the test clock by it. */
final class RecordingSleeper implements Sleeper {
  private final TestClock clock;
  private final List<Duration> sleeps = new ArrayList<>();

  RecordingSleeper(TestClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized void sleep(Duration duration) {
    sleeps.add(duration);
    clock.advance(duration);
  }

  synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }
}
