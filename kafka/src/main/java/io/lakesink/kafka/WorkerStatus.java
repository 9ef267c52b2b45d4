package io.lakesink.kafka;

import io.lakesink.delivery.TableStatus;
import java.time.Duration;
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
 * @param patterns what each pattern subscription matched, and what it left out
 * @param outages outside services that do not answer right now, and what waits on each. Unlike
 *     a fault they leave the worker healthy: a restart would not bring the service back, and
 *     the worker resumes by itself once it answers
 * @param buffersFull how long reading has waited since the worker started because its buffers
 *     (and its kept tables' follows) held {@code delivery.max_buffer_bytes}, the current wait
 *     included: back-pressure from the writers, which a growing share of the time says the
 *     budget, or the heap behind it, is what holds the worker back
 */
public record WorkerStatus(
    Instant at, List<Subscription> subscriptions, List<String> faults, List<Outage> outages, List<PatternMatches> patterns,
    Duration buffersFull) {
  public static final WorkerStatus STARTING = new WorkerStatus(Instant.EPOCH, List.of());

  public WorkerStatus(
      Instant at, List<Subscription> subscriptions, List<String> faults, List<Outage> outages, List<PatternMatches> patterns) {
    this(at, subscriptions, faults, outages, patterns, Duration.ZERO);
  }

  public WorkerStatus(Instant at, List<Subscription> subscriptions, List<String> faults, List<Outage> outages) {
    this(at, subscriptions, faults, outages, List.of());
  }

  public WorkerStatus(Instant at, List<Subscription> subscriptions) {
    this(at, subscriptions, List.of(), List.of());
  }

  public WorkerStatus(Instant at, List<Subscription> subscriptions, List<String> faults) {
    this(at, subscriptions, faults, List.of());
  }

  public boolean healthy() {
    return faults.isEmpty();
  }

  /**
   * @param lag records not yet read, per assigned partition whose position is known; null where
   *     the end offset the consumer last saw is behind its position (a stale end offset), so
   *     the lag is unknown until the next answer refreshes it — never a negative number
   * @param consumed records read for this subscription since start
   */
  public record Subscription(TableStatus table, Map<Integer, Long> lag, long consumed) {}

  /**
   * An outside service that does not answer.
   *
   * @param service {@code kafka}, {@code schema_registry} or {@code storage}
   * @param since when it first failed to answer in this outage
   * @param problem what failed last, naming the service's address; never a credential
   * @param tables the tables that wait on it
   * @param partitions the partitions that wait on it, as {@code topic-partition}
   */
  public record Outage(String service, Instant since, String problem, List<String> tables, List<String> partitions) {}

  /**
   * A {@code topic_pattern} subscription and the cluster's topics it matched.
   *
   * @param at the entry's key path, {@code subscriptions[1]}
   * @param matched topic → the table it is delivered to
   * @param skipped topic → why it matched but is not subscribed (no table changes, its table is
   *     another topic's)
   */
  public record PatternMatches(String at, String pattern, Map<String, String> matched, Map<String, String> skipped) {}
}
