package io.lakesink.delivery;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.maintenance.MaintenancePolicy;
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
    TableCatalog catalog,
    Executor catalogExecutor,
    MaintenancePolicy maintenance,
    FlushWriters writers) {

  /**
   * Catalog calls of every table run here, one at a time, never on the thread that polls Kafka.
   * A daemon thread: a catalog call hanging at exit must not keep the JVM alive.
   */
  private static final Executor CATALOG_THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "lakesink-catalog");
    t.setDaemon(true);
    return t;
  });

  public static DeliveryContext of(FlushPolicy policy, QuarantineStore quarantine) {
    return new DeliveryContext(
        policy, FlushHook.NONE, Clock.systemUTC(), Backoff.SLEEP, quarantine, DeliveryMetrics.NONE, TableCatalog.NONE,
        CATALOG_THREAD, MaintenancePolicy.OFF, FlushWriters.forThisMachine());
  }

  public DeliveryContext withCatalog(TableCatalog newCatalog) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, metrics, newCatalog, catalogExecutor, maintenance, writers);
  }

  public DeliveryContext withHook(FlushHook newHook) {
    return new DeliveryContext(policy, newHook, clock, backoff, quarantine, metrics, catalog, catalogExecutor, maintenance, writers);
  }

  public DeliveryContext withClock(Clock newClock) {
    return new DeliveryContext(policy, hook, newClock, backoff, quarantine, metrics, catalog, catalogExecutor, maintenance, writers);
  }

  public DeliveryContext withBackoff(Backoff newBackoff) {
    return new DeliveryContext(policy, hook, clock, newBackoff, quarantine, metrics, catalog, catalogExecutor, maintenance, writers);
  }

  public DeliveryContext withCatalogExecutor(Executor executor) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, metrics, catalog, executor, maintenance, writers);
  }

  /** Table maintenance (optimize, vacuum) beside delivery; off unless the worker turns it on. */
  public DeliveryContext withMaintenance(MaintenancePolicy newMaintenance) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, metrics, catalog, catalogExecutor, newMaintenance, writers);
  }

  /**
   * Where flushes run: a pool of writer threads beside the poll thread (the default, one pool per
   * context, so per worker), or {@link FlushWriters#SYNCHRONOUS}.
   */
  public DeliveryContext withWriters(FlushWriters newWriters) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, metrics, catalog, catalogExecutor, maintenance, newWriters);
  }

  public DeliveryContext withMetrics(DeliveryMetrics newMetrics) {
    return new DeliveryContext(policy, hook, clock, backoff, quarantine, newMetrics, catalog, catalogExecutor, maintenance, writers);
  }
}
