package io.lakesink.event;

/**
 * A column's Delta type. Values travel as: Boolean, Integer, Long, Float, Double, BigDecimal,
 * LocalDate (date), Instant (timestamp, UTC) and String.
 */
public record ColumnType(Kind kind, int precision, int scale) {

  public enum Kind { BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, DATE, TIMESTAMP, STRING }

  public static final ColumnType BOOLEAN = new ColumnType(Kind.BOOLEAN, 0, 0);
  public static final ColumnType INT = new ColumnType(Kind.INT, 0, 0);
  public static final ColumnType BIGINT = new ColumnType(Kind.BIGINT, 0, 0);
  public static final ColumnType FLOAT = new ColumnType(Kind.FLOAT, 0, 0);
  public static final ColumnType DOUBLE = new ColumnType(Kind.DOUBLE, 0, 0);
  public static final ColumnType DATE = new ColumnType(Kind.DATE, 0, 0);
  public static final ColumnType TIMESTAMP = new ColumnType(Kind.TIMESTAMP, 0, 0);
  public static final ColumnType STRING = new ColumnType(Kind.STRING, 0, 0);

  /** Delta's decimal limit: wider decimals are delivered as strings. */
  public static final int MAX_DECIMAL_PRECISION = 38;

  public static ColumnType decimal(int precision, int scale) {
    return new ColumnType(Kind.DECIMAL, precision, scale);
  }

  /** The type as Delta and Databricks SQL spell it, e.g. {@code decimal(10,2)}. */
  public String sqlName() {
    return switch (kind) {
      case BOOLEAN -> "boolean";
      case INT -> "int";
      case BIGINT -> "bigint";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case DECIMAL -> "decimal(" + precision + "," + scale + ")";
      case DATE -> "date";
      case TIMESTAMP -> "timestamp";
      case STRING -> "string";
    };
  }

  @Override
  public String toString() {
    return sqlName();
  }
}
