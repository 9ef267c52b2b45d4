package io.lakesink.delta;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads a whole table into memory: for {@code show}, the demo and tests, not for big tables. */
public final class DeltaTableReader {
  private DeltaTableReader() {}

  public static List<Map<String, Object>> readAll(DeltaTable table) {
    Optional<Snapshot> maybe = table.snapshot();
    if (maybe.isEmpty()) {
      return List.of();
    }
    Engine engine = table.engine();
    Scan scan = maybe.get().getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
          while (scanFiles.hasNext()) {
            readFile(engine, scanState, scanFiles.next(), rows);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + table.location(), e);
    }
    return rows;
  }

  /** The rows of one file of the table, as column → value. */
  static List<Map<String, Object>> read(DeltaTable table, Snapshot snapshot, TableFile file) {
    Engine engine = table.engine();
    Row scanState = snapshot.getScanBuilder().build().getScanState(engine);
    List<Map<String, Object>> rows = new ArrayList<>();
    try {
      readFile(engine, scanState, file.scanRow, rows);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + table.location(), e);
    }
    return rows;
  }

  private static void readFile(Engine engine, Row scanState, Row scanFile, List<Map<String, Object>> rows) throws IOException {
    try (CloseableIterator<FilteredColumnarBatch> logical = logicalBatches(engine, scanState, scanFile)) {
      while (logical.hasNext()) {
        collect(logical.next(), rows);
      }
    }
  }

  /** The file's data as the table's logical columns (partition values and missing columns filled in). */
  static CloseableIterator<FilteredColumnarBatch> logicalBatches(Engine engine, Row scanState, Row scanFile) throws IOException {
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
    CloseableIterator<ColumnarBatch> data =
        engine
            .getParquetHandler()
            .readParquetFiles(
                Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(scanFile)),
                physical,
                Optional.empty())
            .map(FileReadResult::getData);
    return Scan.transformPhysicalData(engine, scanState, scanFile, data);
  }

  private static void collect(FilteredColumnarBatch filtered, List<Map<String, Object>> out) {
    ColumnarBatch batch = filtered.getData();
    List<Column> columns = DeltaTypes.fromStruct(batch.getSchema());
    Optional<ColumnVector> selection = filtered.getSelectionVector();
    for (int r = 0; r < batch.getSize(); r++) {
      if (selection.isPresent() && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
        continue;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      for (int c = 0; c < columns.size(); c++) {
        row.put(columns.get(c).name(), value(batch.getColumnVector(c), columns.get(c).type(), r));
      }
      out.add(row);
    }
  }

  static Object value(ColumnVector v, ColumnType type, int r) {
    if (v.isNullAt(r)) {
      return null;
    }
    return switch (type.kind()) {
      case BOOLEAN -> v.getBoolean(r);
      case INT -> v.getInt(r);
      case BIGINT -> v.getLong(r);
      case FLOAT -> v.getFloat(r);
      case DOUBLE -> v.getDouble(r);
      case DECIMAL -> v.getDecimal(r);
      case DATE -> LocalDate.ofEpochDay(v.getInt(r));
      case TIMESTAMP -> DeltaTypes.instantOfMicros(v.getLong(r));
      // Read as bytes (DeltaTypes.toReadStruct): one copy into the string, no char buffers.
      case STRING -> v.getDataType() instanceof BinaryType
          ? new String(v.getBinary(r), StandardCharsets.UTF_8) : v.getString(r);
    };
  }
}
