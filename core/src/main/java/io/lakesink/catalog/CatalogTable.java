package io.lakesink.catalog;

import io.lakesink.event.Column;
import java.util.List;

/**
 * A Delta table as a catalog should know it.
 *
 * @param name the table's (sanitized) name, e.g. {@code orders_APPEND}
 * @param location the table's root, as readers see it (e.g. {@code abfss://…} or {@code file:/…})
 * @param columns every column in table order, partition columns included
 * @param partitionColumns the partition columns, in partition order
 * @param recordKey the fields of the record key seen last (empty when unknown): what a changelog's
 *     current-state view ranks changes by when the subscription has no primary key
 */
public record CatalogTable(
    String name, String location, List<Column> columns, List<String> partitionColumns, List<String> recordKey) {
  public CatalogTable {
    columns = List.copyOf(columns);
    partitionColumns = List.copyOf(partitionColumns);
    recordKey = List.copyOf(recordKey);
  }

  public CatalogTable(String name, String location, List<Column> columns, List<String> partitionColumns) {
    this(name, location, columns, partitionColumns, List.of());
  }

  public List<String> columnNames() {
    return columns.stream().map(Column::name).toList();
  }
}
