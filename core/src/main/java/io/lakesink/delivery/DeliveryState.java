package io.lakesink.delivery;

import io.lakesink.error.TableFailureException;
import java.time.Instant;

/** Whether a table is being delivered, and if not, why and since when. */
public sealed interface DeliveryState {
  record Healthy() implements DeliveryState {}

  record Failed(TableFailureException reason, Instant since) implements DeliveryState {}

  default boolean healthy() {
    return this instanceof Healthy;
  }
}
