package io.lakesink.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;

/**
 * Selects the rows of one Parquet batch, starting at position {@code first} in its file, that
 * {@code dropped} does not hold: Kernel's Parquet writer skips the others, so a file is copied
 * without the rows a deletion vector or a merge removes, one batch in memory at a time.
 */
record PositionSelection(RoaringBitmapArray dropped, long first, int size) implements ColumnVector {
  @Override
  public DataType getDataType() {
    return BooleanType.BOOLEAN;
  }

  @Override
  public int getSize() {
    return size;
  }

  @Override
  public void close() {}

  @Override
  public boolean isNullAt(int rowId) {
    return false;
  }

  @Override
  public boolean getBoolean(int rowId) {
    return !dropped.contains(first + rowId);
  }
}
