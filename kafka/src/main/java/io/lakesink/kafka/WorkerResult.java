package io.lakesink.kafka;

import io.lakesink.delivery.DeliveryState;
import java.util.Map;

/**
 * How a run ended: the state of every table, and whether the final flush left events unwritten
 * (a retryable failure, storage unreachable) in a table that is still delivering.
 */
public record WorkerResult(Map<String, DeliveryState> states, boolean finalFlushFailed) {
  public WorkerResult(Map<String, DeliveryState> states) {
    this(states, false);
  }

  public boolean allDelivering() {
    return states.values().stream().allMatch(DeliveryState::delivering);
  }
}
