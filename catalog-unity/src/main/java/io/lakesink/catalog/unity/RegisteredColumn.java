package io.lakesink.catalog.unity;

/**
 * A column as far as registration cares.
 *
 * @param name column name (Unity Catalog compares names without case)
 * @param type SQL type text, e.g. {@code decimal(10,2)}; null when the catalog did not say
 * @param partitionIndex position among the partition columns, or null
 */
record RegisteredColumn(String name, String type, Integer partitionIndex) {
  @Override
  public String toString() {
    return name + " " + (type == null ? "?" : type) + (partitionIndex == null ? "" : " (partition " + partitionIndex + ")");
  }
}
