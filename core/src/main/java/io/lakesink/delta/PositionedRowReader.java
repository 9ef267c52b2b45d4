package io.lakesink.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.event.Column;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Reads a few columns of a file with each live row's position in the file: what a merge with
 * deletion vectors reads to find the rows it replaces (the key and the ordering columns, not the
 * whole row). Rows the file's current deletion vector deletes are skipped. Only for unpartitioned
 * tables without column mapping (MERGE tables): the Parquet columns are the table's.
 *
 * <p>Thread-safe: a merge reads several files at once.
 */
public final class PositionedRowReader {
  private final Engine engine;
  private final String location;
  private final int width;
  private final List<Column> read;
  private final int[] slots;
  private final StructType schema;

  /**
   * @param layout the caller's row layout (rows come back this wide)
   * @param wanted the columns to read, by name; those the table lacks read null
   */
  PositionedRowReader(Engine engine, String location, List<Column> tableColumns, List<Column> layout, List<String> wanted) {
    this.engine = engine;
    this.location = location;
    this.width = layout.size();
    List<Column> read = new ArrayList<>();
    List<Integer> slots = new ArrayList<>();
    for (String name : wanted) {
      for (Column c : tableColumns) {
        if (c.name().equals(name)) {
          read.add(c);
          slots.add(indexOf(layout, name));
        }
      }
    }
    this.read = List.copyOf(read);
    this.slots = slots.stream().mapToInt(Integer::intValue).toArray();
    this.schema = DeltaTypes.toStruct(read);
  }

  private static int indexOf(List<Column> layout, String name) {
    for (int i = 0; i < layout.size(); i++) {
      if (layout.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("column " + name + " is not in the layout");
  }

  /** A file's live rows (only the wanted columns set) and their positions, in file order. */
  public record Rows(List<Object[]> rows, long[] positions) {}

  public Rows read(TableFile file) {
    RoaringBitmapArray deleted = DeletionVectorFile.bitmap(engine, location, file);
    List<Object[]> rows = new ArrayList<>(file.rows() > 0 && file.rows() < Integer.MAX_VALUE ? (int) file.rows() : 16);
    long[] positions = new long[Math.max(16, rows.size())];
    int n = 0;
    long position = 0;
    try (CloseableIterator<ColumnarBatch> batches = engine.getParquetHandler()
        .readParquetFiles(
            Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(file.scanRow)), schema, Optional.empty())
        .map(FileReadResult::getData)) {
      while (batches.hasNext()) {
        ColumnarBatch b = batches.next();
        ColumnVector[] vectors = new ColumnVector[read.size()];
        for (int c = 0; c < vectors.length; c++) {
          vectors[c] = b.getColumnVector(c);
        }
        // Parquet hands a file's rows back in order, so a row's position is the count before it.
        for (int r = 0; r < b.getSize(); r++, position++) {
          if (deleted != null && deleted.contains(position)) {
            continue;
          }
          Object[] row = new Object[width];
          for (int c = 0; c < vectors.length; c++) {
            row[slots[c]] = DeltaTableReader.value(vectors[c], read.get(c).type(), r);
          }
          rows.add(row);
          if (n == positions.length) {
            positions = Arrays.copyOf(positions, n * 2);
          }
          positions[n++] = position;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
    return new Rows(rows, Arrays.copyOf(positions, n));
  }
}
