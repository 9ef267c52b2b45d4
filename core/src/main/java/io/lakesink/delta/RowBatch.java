package io.lakesink.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructType;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

/**
 * Row-major values seen through Kernel's columnar interface, so the Parquet writer can read them
 * without a copy. {@code ordinals[i]} says which slot of each row holds the batch's column i.
 */
final class RowBatch implements ColumnarBatch {
  private final StructType schema;
  private final ColumnVector[] vectors;
  private final int size;

  RowBatch(List<Column> columns, int[] ordinals, List<Object[]> rows) {
    this.schema = DeltaTypes.toStruct(columns);
    this.size = rows.size();
    this.vectors = new ColumnVector[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      vectors[i] = new Vector(columns.get(i).type(), ordinals[i], rows);
    }
  }

  @Override
  public StructType getSchema() {
    return schema;
  }

  @Override
  public ColumnVector getColumnVector(int ordinal) {
    return vectors[ordinal];
  }

  @Override
  public int getSize() {
    return size;
  }

  private static final class Vector implements ColumnVector {
    private final ColumnType type;
    private final DataType kernelType;
    private final int slot;
    private final List<Object[]> rows;

    Vector(ColumnType type, int slot, List<Object[]> rows) {
      this.type = type;
      this.kernelType = DeltaTypes.toKernel(type);
      this.slot = slot;
      this.rows = rows;
    }

    private Object at(int rowId) {
      Object[] row = rows.get(rowId);
      // Rows decoded before the table gained a column are shorter: they read null.
      return slot < row.length ? row[slot] : null;
    }

    @Override
    public DataType getDataType() {
      return kernelType;
    }

    @Override
    public int getSize() {
      return rows.size();
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
      return at(rowId) == null;
    }

    @Override
    public boolean getBoolean(int rowId) {
      return (Boolean) at(rowId);
    }

    @Override
    public int getInt(int rowId) {
      Object v = at(rowId);
      return type.kind() == ColumnType.Kind.DATE ? (int) ((LocalDate) v).toEpochDay() : (Integer) v;
    }

    @Override
    public long getLong(int rowId) {
      Object v = at(rowId);
      return type.kind() == ColumnType.Kind.TIMESTAMP ? DeltaTypes.micros((Instant) v) : (Long) v;
    }

    @Override
    public float getFloat(int rowId) {
      return (Float) at(rowId);
    }

    @Override
    public double getDouble(int rowId) {
      return (Double) at(rowId);
    }

    @Override
    public BigDecimal getDecimal(int rowId) {
      return (BigDecimal) at(rowId);
    }

    @Override
    public String getString(int rowId) {
      return (String) at(rowId);
    }
  }
}
