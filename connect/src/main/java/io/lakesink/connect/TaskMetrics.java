package io.lakesink.connect;

import io.lakesink.delivery.DeliveryMetrics;
import io.lakesink.delivery.TableDelivery;
import io.lakesink.error.ErrorKind;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * The task's metrics through Connect's plugin metrics (JMX {@code kafka.connect:type=plugins,
 * connector=…,task=…}, and any metrics reporter of the worker): how many tables are quarantined,
 * each table's state, rows committed, events buffered and optimizations given up in a row. Gauges read the deliveries when
 * scraped, so there is nothing to keep in step.
 */
final class TaskMetrics implements DeliveryMetrics {
  static final String QUARANTINED = "quarantined-tables";
  static final String TABLE_STATE = "table-state";
  static final String ROWS = "rows-committed";
  static final String BUFFERED = "buffered-events";
  static final String OPTIMIZE_GAVE_UP = "optimize-gave-up-in-a-row";

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
