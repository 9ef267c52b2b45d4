package io.lakesink.delivery;

import io.lakesink.catalog.TableCatalog;
import io.lakesink.quarantine.QuarantineStore;
import java.time.Clock;

/** What every table delivery of a worker shares. */
public record DeliveryContext(
    FlushPolicy policy,
    FlushHook hook,
    Clock clock,
    Backoff backoff,
    QuarantineStore quarantine,
    DeliveryMetrics metrics,
    TableCatalog catalog) {

  public static DeliveryContext of(FlushPolicy policy, QuarantineStore quarantine) {
    return new DeliveryContext(
        policy, FlushHook.NONE, Clock.systemUTC(), Backoff.SLEEP, quarantine, DeliveryMetrics.NONE, TableCatalog.NONE);
  }

  public DeliveryContext withCatalog(TableCatalog newCatalog) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, metrics, newCatalog);
  }

  public DeliveryContext withHook(FlushHook newHook) {
    return new DeliveryContext(policy, newHook, clock, backoff, quarantine, metrics, catalog);
  }

  public DeliveryContext withClock(Clock newClock) {
    return new DeliveryContext(policy, hook, newClock, backoff, quarantine, metrics, catalog);
  }

  public DeliveryContext withBackoff(Backoff newBackoff) {
    return new DeliveryContext(policy, hook, clock, newBackoff, quarantine, metrics, catalog);
  }

  public DeliveryContext withMetrics(DeliveryMetrics newMetrics) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, newMetrics, catalog);
  }
}
