package io.lakesink.config;

import io.lakesink.mapping.ColumnRule;
import java.util.List;

/**
 * One source table delivered to one target table.
 *
 * @param topic the Kafka topic carrying the source table's change events
 * @param table the target table name as configured (sanitized by {@link TableNames})
 * @param primaryKey key columns; empty means "the fields of the record key"
 * @param includeMetadataColumns whether the current-state view keeps {@code __op}/{@code __ts_ms}
 * @param columns the column mapping; empty means every source column as it is
 */
public record Subscription(
    String topic,
    String table,
    DeliveryMode mode,
    List<String> primaryKey,
    SourceFormat format,
    boolean includeMetadataColumns,
    List<ColumnRule> columns) {

  public Subscription {
    columns = List.copyOf(columns);
    if (primaryKey.isEmpty()) {
      // Columns flagged in the mapping are the key when none is listed.
      primaryKey = columns.stream().filter(ColumnRule::primaryKey).map(ColumnRule::name).toList();
    }
    primaryKey = List.copyOf(primaryKey);
  }

  public Subscription(
      String topic, String table, DeliveryMode mode, List<String> primaryKey, SourceFormat format, boolean includeMetadataColumns) {
    this(topic, table, mode, primaryKey, format, includeMetadataColumns, List.of());
  }

  /** The Delta table this subscription writes. */
  public String targetTable() {
    String name = TableNames.sanitize(table);
    return mode == DeliveryMode.CHANGELOG ? TableNames.changelog(name) : name;
  }
}
