package io.lakesink.delivery;

import io.lakesink.error.ErrorKind;
import io.lakesink.error.TableFailureException;
import io.lakesink.quarantine.TableQuarantine;
import java.time.Clock;
import java.time.Instant;

/**
 * Whether one table is delivered, and if not why: healthy, degraded (data flows, an object over
 * it such as the catalog registration lags) or quarantined (durably, with its offsets frozen).
 * The one place that changes a table's {@link DeliveryState}.
 */
final class TableHealth {
  private final String table;
  private final TableQuarantine quarantine;
  private final DeliveryMetrics metrics;
  private final Clock clock;
  private DeliveryState state;

  TableHealth(String table, TableQuarantine quarantine, DeliveryMetrics metrics, Clock clock) {
    this.table = table;
    this.quarantine = quarantine;
    this.metrics = metrics;
    this.clock = clock;
    this.state = quarantine.initialState();
  }

  DeliveryState state() {
    return state;
  }

  boolean delivering() {
    return state.delivering();
  }

  boolean degraded() {
    return state instanceof DeliveryState.Degraded;
  }

  /**
   * Data flows, but something built over it lags. A newer reason replaces the older one (it says
   * when the next attempt is), keeping the time the table first became degraded.
   */
  void degrade(String reason) {
    if (state instanceof DeliveryState.Healthy) {
      state = new DeliveryState.Degraded(reason, clock.instant());
    } else if (state instanceof DeliveryState.Degraded d && !d.reason().equals(reason)) {
      state = new DeliveryState.Degraded(reason, d.since());
    }
  }

  void recover() {
    if (degraded()) {
      state = new DeliveryState.Healthy();
    }
  }

  /** Stops the table and records why, durably; a table already stopped stays as it is. */
  void quarantine(TableFailureException reason) {
    if (state.delivering()) {
      metrics.error(table, ErrorKind.TABLE_FAILURE);
      state = quarantine.quarantine(reason);
    }
  }

  /** For a quarantined table: whether an operator released it; if so it is healthy again. */
  boolean releaseIfAllowed() {
    if (state instanceof DeliveryState.Quarantined && quarantine.released()) {
      state = new DeliveryState.Healthy();
      return true;
    }
    return false;
  }

  /** The reason and since when, for status; nulls when healthy. */
  String reason() {
    if (state instanceof DeliveryState.Quarantined q) {
      return q.record().reason();
    }
    return state instanceof DeliveryState.Degraded d ? d.reason() : null;
  }

  Instant since() {
    if (state instanceof DeliveryState.Quarantined q) {
      return q.record().since();
    }
    return state instanceof DeliveryState.Degraded d ? d.since() : null;
  }
}
