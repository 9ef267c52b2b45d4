package io.lakesink.delivery;

import io.lakesink.quarantine.QuarantineRecord;
import java.time.Instant;

/** Whether a table is being delivered, and if not, why and since when. */
public sealed interface DeliveryState {
  /** Every row is delivered. */
  record Healthy() implements DeliveryState {
    @Override
    public String label() {
      return "healthy";
    }
  }

  /** Every row is delivered, but an object built over the delivery (a view) is not up to date. */
  record Degraded(String reason, Instant since) implements DeliveryState {
    @Override
    public String label() {
      return "degraded";
    }
  }

  /** Nothing is delivered: offsets are frozen until the cause changes or an operator releases it. */
  record Quarantined(QuarantineRecord record) implements DeliveryState {
    @Override
    public String label() {
      return "quarantined";
    }
  }

  /** Whether rows of this table are being delivered. */
  default boolean delivering() {
    return !(this instanceof Quarantined);
  }

  /** {@code healthy}, {@code degraded} or {@code quarantined}. */
  String label();
}
