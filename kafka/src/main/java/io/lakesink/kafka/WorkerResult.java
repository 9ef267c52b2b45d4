package io.lakesink.kafka;

import io.lakesink.delivery.DeliveryState;
import java.util.List;
import java.util.Map;

/**
 * How a run ended: the state of every table, whether the final flush left events unwritten (a
 * retryable failure, storage unreachable) in a table that is still delivering, and the
 * worker-level faults (credentials or permissions refused) that were still standing.
 */
public record WorkerResult(Map<String, DeliveryState> states, boolean finalFlushFailed, List<String> faults) {
  public WorkerResult(Map<String, DeliveryState> states, boolean finalFlushFailed) {
    this(states, finalFlushFailed, List.of());
  }

  public WorkerResult(Map<String, DeliveryState> states) {
    this(states, false);
  }

  public boolean allDelivering() {
    return states.values().stream().allMatch(DeliveryState::delivering);
  }
}
