package io.lakesink.kafka;

import io.lakesink.delivery.TableStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of the worker for {@code /status} and {@code /metrics}, replaced as a whole each
 * loop so readers on other threads always see a consistent one.
 *
 * @param at when the snapshot was taken
 * @param subscriptions one entry per subscription
 * @param faults worker-level faults (credentials or permissions refused by storage or the
 *     schema registry): every table waits on them, so the worker is unhealthy while any remains
 */
public record WorkerStatus(Instant at, List<Subscription> subscriptions, List<String> faults) {
  public static final WorkerStatus STARTING = new WorkerStatus(Instant.EPOCH, List.of());

  public WorkerStatus(Instant at, List<Subscription> subscriptions) {
    this(at, subscriptions, List.of());
  }

  public boolean healthy() {
    return faults.isEmpty();
  }

  /**
   * @param lag records not yet read, per assigned partition
   * @param consumed records read for this subscription since start
   */
  public record Subscription(TableStatus table, Map<Integer, Long> lag, long consumed) {}
}
