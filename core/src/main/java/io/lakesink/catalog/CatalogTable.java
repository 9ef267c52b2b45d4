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
 */
public record CatalogTable(String name, String location, List<Column> columns, List<String> partitionColumns) {
  public CatalogTable {
    columns = List.copyOf(columns);
    partitionColumns = List.copyOf(partitionColumns);
  }
}
