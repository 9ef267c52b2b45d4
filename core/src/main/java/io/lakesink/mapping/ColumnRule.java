package io.lakesink.mapping;

import io.lakesink.event.ColumnType;

/**
 * One entry of a subscription's column mapping.
 *
 * @param source the source column
 * @param name the target column (the source name when not renamed)
 * @param cast the target type, or null to keep the source type
 * @param primaryKey whether the column is part of the primary key
 */
public record ColumnRule(String source, String name, ColumnType cast, boolean primaryKey) {

  /**
   * The cast words a mapping accepts: int / long → bigint, float / double → double, bool →
   * boolean, date → date, datetime → timestamp, anything else → string.
   */
  public static ColumnType castType(String word) {
    return switch (word.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "int", "integer", "long", "bigint" -> ColumnType.BIGINT;
      case "float", "double" -> ColumnType.DOUBLE;
      case "bool", "boolean" -> ColumnType.BOOLEAN;
      case "date" -> ColumnType.DATE;
      case "datetime", "timestamp" -> ColumnType.TIMESTAMP;
      default -> ColumnType.STRING;
    };
  }
}
