package io.lakesink.kafka;

import io.lakesink.delivery.DeliveryState;
import java.util.Map;

/** How a run ended: the state of every table. */
public record WorkerResult(Map<String, DeliveryState> states) {
  public boolean allDelivering() {
    return states.values().stream().allMatch(DeliveryState::delivering);
  }
}
