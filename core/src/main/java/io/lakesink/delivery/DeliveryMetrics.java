package io.lakesink.delivery;

import io.lakesink.error.ErrorKind;
import io.lakesink.maintenance.OptimizeResult;
import java.time.Duration;

/** What deliveries report as they work; the app turns it into Prometheus metrics. */
public interface DeliveryMetrics {
  DeliveryMetrics NONE = new DeliveryMetrics() {};

  /** A flush committed {@code rows} rows ({@code bytes} of source records) in {@code latency}. */
  default void committed(String table, int rows, long bytes, Duration latency) {}

  /** An error of this kind happened for the table (a retryable one may succeed later). */
  default void error(String table, ErrorKind kind) {}

  /** An optimize step of the table's maintenance ended: committed, gave up, or found nothing to do. */
  default void optimized(String table, OptimizeResult step) {}
}
