package io.lakesink.delivery;

import java.time.Instant;

/**
 * A service that does not answer, as one table sees it: what failed last and since when it has
 * been failing (the first failure of the outage, kept across retries).
 */
public record ServiceWait(String problem, Instant since) {

  /** The same outage, failing again: the newer problem, the first failure's time. */
  public ServiceWait again(String newProblem) {
    return new ServiceWait(newProblem, since);
  }
}
