package io.lakesink.delta;

import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** Our column types and values to Delta Kernel's, and back. */
final class DeltaTypes {
  private DeltaTypes() {}

  static DataType toKernel(ColumnType type) {
    return switch (type.kind()) {
      case BOOLEAN -> BooleanType.BOOLEAN;
      case INT -> IntegerType.INTEGER;
      case BIGINT -> LongType.LONG;
      case FLOAT -> FloatType.FLOAT;
      case DOUBLE -> DoubleType.DOUBLE;
      case DECIMAL -> new DecimalType(type.precision(), type.scale());
      case DATE -> DateType.DATE;
      case TIMESTAMP -> TimestampType.TIMESTAMP;
      case STRING -> StringType.STRING;
    };
  }

  static ColumnType fromKernel(DataType type) {
    if (type instanceof BooleanType) return ColumnType.BOOLEAN;
    if (type instanceof IntegerType) return ColumnType.INT;
    if (type instanceof LongType) return ColumnType.BIGINT;
    if (type instanceof FloatType) return ColumnType.FLOAT;
    if (type instanceof DoubleType) return ColumnType.DOUBLE;
    if (type instanceof DecimalType d) return ColumnType.decimal(d.getPrecision(), d.getScale());
    if (type instanceof DateType) return ColumnType.DATE;
    if (type instanceof TimestampType) return ColumnType.TIMESTAMP;
    if (type instanceof StringType) return ColumnType.STRING;
    throw new IllegalArgumentException("lakesink does not handle Delta type " + type);
  }

  static StructType toStruct(List<Column> columns) {
    StructType struct = new StructType();
    for (Column c : columns) {
      struct = struct.add(c.name(), toKernel(c.type()), true);
    }
    return struct;
  }

  /**
   * The schema a file is read with by {@link PositionedRowReader}: as {@link #toStruct}, but
   * strings read as their UTF-8 bytes. Kernel's string vector decodes a value through
   * {@code Charset.decode} (a byte buffer, a char buffer, a char array, then the string: about half
   * of what a merge or a kept table's follow allocates); the bytes become a string in one copy
   * ({@link DeltaTableReader#value}), with the same replacement of malformed input.
   */
  static StructType toReadStruct(List<Column> columns) {
    StructType struct = new StructType();
    for (Column c : columns) {
      struct = struct.add(c.name(), c.type().kind() == ColumnType.Kind.STRING ? BinaryType.BINARY : toKernel(c.type()), true);
    }
    return struct;
  }

  static List<Column> fromStruct(StructType struct) {
    List<Column> columns = new ArrayList<>(struct.length());
    for (StructField f : struct.fields()) {
      columns.add(new Column(f.getName(), fromKernel(f.getDataType())));
    }
    return columns;
  }

  static Literal literal(ColumnType type, Object value) {
    if (value == null) {
      return Literal.ofNull(toKernel(type));
    }
    return switch (type.kind()) {
      case BOOLEAN -> Literal.ofBoolean((Boolean) value);
      case INT -> Literal.ofInt((Integer) value);
      case BIGINT -> Literal.ofLong((Long) value);
      case FLOAT -> Literal.ofFloat((Float) value);
      case DOUBLE -> Literal.ofDouble((Double) value);
      case DECIMAL -> Literal.ofDecimal((BigDecimal) value, type.precision(), type.scale());
      case DATE -> Literal.ofDate((int) ((LocalDate) value).toEpochDay());
      case TIMESTAMP -> Literal.ofTimestamp(micros((Instant) value));
      case STRING -> Literal.ofString((String) value);
    };
  }

  static long micros(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
  }

  static Instant instantOfMicros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
  }
}
