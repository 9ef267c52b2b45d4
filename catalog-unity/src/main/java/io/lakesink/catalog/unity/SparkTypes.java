package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.Locale;

/**
 * lakesink's column types as Unity Catalog spells them: the {@code type_name} enum, and the Spark
 * {@code StructField} JSON of {@code type_json}. Spark's JSON names differ from SQL for two types
 * ({@code int} is {@code integer}, {@code bigint} is {@code long}); {@code type_text} is the SQL name.
 */
final class SparkTypes {
  private SparkTypes() {}

  /** Unity Catalog's {@code ColumnTypeName}. */
  static String typeName(ColumnType type) {
    return switch (type.kind()) {
      case BOOLEAN -> "BOOLEAN";
      case INT -> "INT";
      case BIGINT -> "LONG";
      case FLOAT -> "FLOAT";
      case DOUBLE -> "DOUBLE";
      case DECIMAL -> "DECIMAL";
      case DATE -> "DATE";
      case TIMESTAMP -> "TIMESTAMP";
      case STRING -> "STRING";
    };
  }

  /** The type inside a Spark schema JSON, e.g. {@code long} or {@code decimal(10,2)}. */
  static String jsonType(ColumnType type) {
    return switch (type.kind()) {
      case INT -> "integer";
      case BIGINT -> "long";
      default -> type.sqlName();
    };
  }

  /** {@code {"name":"id","type":"long","nullable":true,"metadata":{}}}; lakesink columns are all nullable. */
  static String structField(Column column) {
    ObjectNode field = Json.object();
    field.put("name", column.name());
    field.put("type", jsonType(column.type()));
    field.put("nullable", true);
    field.putObject("metadata");
    return Json.write(field);
  }

  /**
   * A registered column's type in SQL spelling, from its {@code type_text} or, when that is
   * missing, its {@code type_name} with precision and scale; null when neither says.
   */
  static String sqlText(String typeText, String typeName, int precision, int scale) {
    if (typeText != null && !typeText.isBlank()) {
      String t = typeText.toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
      return switch (t) {
        case "integer" -> "int";
        case "long" -> "bigint";
        case "short" -> "smallint";
        case "byte" -> "tinyint";
        default -> t;
      };
    }
    if (typeName == null) {
      return null;
    }
    return switch (typeName.toUpperCase(Locale.ROOT)) {
      case "INT" -> "int";
      case "LONG" -> "bigint";
      case "SHORT" -> "smallint";
      case "BYTE" -> "tinyint";
      case "DECIMAL" -> "decimal(" + precision + "," + scale + ")";
      default -> typeName.toLowerCase(Locale.ROOT);
    };
  }
}
