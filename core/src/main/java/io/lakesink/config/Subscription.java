package io.lakesink.config;

import java.util.List;

/**
 * One source table delivered to one target table.
 *
 * @param topic the Kafka topic carrying the source table's change events
 * @param table the target table name as configured (sanitized by {@link TableNames})
 * @param primaryKey key columns; empty means "the fields of the record key"
 * @param includeMetadataColumns whether the current-state view keeps {@code __op}/{@code __ts_ms}
 */
public record Subscription(
    String topic,
    String table,
    DeliveryMode mode,
    List<String> primaryKey,
    SourceFormat format,
    boolean includeMetadataColumns) {

  public Subscription {
    primaryKey = List.copyOf(primaryKey);
  }

  /** The Delta table this subscription writes. */
  public String targetTable() {
    String name = TableNames.sanitize(table);
    return mode == DeliveryMode.CHANGELOG ? TableNames.changelog(name) : name;
  }
}
