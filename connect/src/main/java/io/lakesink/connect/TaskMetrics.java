package io.lakesink.connect;

import io.lakesink.delivery.DeliveryMetrics;
import io.lakesink.delivery.TableDelivery;
import io.lakesink.error.ErrorKind;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * The task's metrics through Connect's plugin metrics (JMX {@code kafka.connect:type=plugins,
 * connector=…,task=…}, and any metrics reporter of the worker): how many tables are quarantined,
 * each table's state, rows committed, events buffered and optimizations given up in a row, and for a
 * changelog with a kept current-state table how far that table is behind it (as the worker's
 * {@code lakesink_current_state_table_*}). Gauges read the deliveries when scraped, so there is
 * nothing to keep in step.
 */
final class TaskMetrics implements DeliveryMetrics {
  static final String QUARANTINED = "quarantined-tables";
  static final String TABLE_STATE = "table-state";
  static final String ROWS = "rows-committed";
  static final String BUFFERED = "buffered-events";
  static final String OPTIMIZE_GAVE_UP = "optimize-gave-up-in-a-row";
  static final String KEPT_LAG_VERSIONS = "current-state-table-lag-versions";
  static final String KEPT_LAG_SECONDS = "current-state-table-lag-seconds";
  static final String KEPT_STOPPED = "current-state-table-stopped";

  private final PluginMetrics metrics;
  private final AtomicLong rows = new AtomicLong();

  TaskMetrics(PluginMetrics metrics, Collection<? extends TableDelivery> tables) {
    this.metrics = metrics;
    if (metrics == null) {
      return; // a Connect runtime older than plugin metrics (KIP-877)
    }
    add(QUARANTINED, "Tables of this task that are quarantined (their offsets frozen until released).", new LinkedHashMap<>(),
        (Gauge<Integer>) (c, now) -> (int) tables.stream().filter(t -> !t.state().delivering()).count());
    add(BUFFERED, "Events buffered and not yet committed to Delta, all tables of this task.", new LinkedHashMap<>(),
        (Gauge<Integer>) (c, now) -> tables.stream().mapToInt(TableDelivery::bufferedEvents).sum());
    add(ROWS, "Rows committed to Delta by this task since it started.", new LinkedHashMap<>(),
        (Gauge<Long>) (c, now) -> rows.get());
  }

  /** A table's state gauge: healthy, degraded or quarantined. */
  void table(TableDelivery table) {
    if (metrics == null) {
      return;
    }
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    tags.put("table", table.tableName());
    add(TABLE_STATE, "The table's delivery state: healthy, degraded or quarantined.", tags,
        (Gauge<String>) (c, now) -> table.state().label());
    add(OPTIMIZE_GAVE_UP, "Optimizations of the table given up in a row: another writer keeps winning the race.", tags,
        (Gauge<Integer>) (c, now) -> table.status().maintenance().optimizeGiveUps());
    if (table.status().currentStateTable() != null) {
      add(KEPT_LAG_VERSIONS, "Changelog commits the kept current-state table does not reflect yet.", tags,
          (Gauge<Long>) (c, now) -> keptNumber(table, "lag_versions").longValue());
      add(KEPT_LAG_SECONDS, "Seconds the kept current-state table has been behind the changelog (0 when it reflects every commit).", tags,
          (Gauge<Double>) (c, now) -> keptNumber(table, "lag_seconds").doubleValue());
      add(KEPT_STOPPED, "1 when the kept current-state table stopped following the changelog (see the task's status), else 0.",
          tags, (Gauge<Integer>) (c, now) -> keptStopped(table) ? 1 : 0);
    }
  }

  /** A number of the changelog's {@code current_state_table} status; 0 when absent (a table refused before it existed). */
  private static Number keptNumber(TableDelivery table, String field) {
    Map<String, Object> kept = table.status().currentStateTable();
    return kept != null && kept.get(field) instanceof Number n ? n : 0;
  }

  private static boolean keptStopped(TableDelivery table) {
    Map<String, Object> kept = table.status().currentStateTable();
    return kept != null && "stopped".equals(kept.get("state"));
  }

  private void add(String name, String doc, LinkedHashMap<String, String> tags, Gauge<?> gauge) {
    MetricName m = metrics.metricName(name, doc, tags);
    metrics.addMetric(m, gauge);
  }

  @Override
  public void committed(String table, int rowCount, long bytes, Duration latency) {
    rows.addAndGet(rowCount);
  }

  @Override
  public void error(String table, ErrorKind kind) {}
}
