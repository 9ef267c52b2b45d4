package io.lakesink.storage.azure;

import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.internal.data.DefaultColumnarBatch;
import io.delta.kernel.defaults.internal.data.vector.DefaultBinaryVector;
import io.delta.kernel.defaults.internal.data.vector.DefaultLongVector;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import io.delta.kernel.DataWriteContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A two-column Delta table (id long, writer string) written and read through Kernel's public API. */
final class DeltaTables {
  static final StructType SCHEMA = new StructType().add("id", LongType.LONG).add("writer", StringType.STRING);
  static final String ENGINE_INFO = "lakesink-storage-azure-test";

  private DeltaTables() {}

  static TransactionCommitResult create(Engine engine, String path) {
    return TableManager.buildCreateTableTransaction(path, SCHEMA, ENGINE_INFO)
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
  }

  static Snapshot load(Engine engine, String path) {
    return TableManager.loadSnapshot(path).build(engine);
  }

  /** Appends rows in one commit, with Kernel's Parquet writer; txnVersion &lt; 0 sets no txn id. */
  static TransactionCommitResult append(
      Engine engine, Snapshot base, String writer, long txnVersion, long... ids) {
    var builder = base.buildUpdateTableTransaction(ENGINE_INFO, Operation.WRITE);
    if (txnVersion >= 0) {
      builder = builder.withTransactionId(writer, txnVersion);
    }
    Transaction txn = builder.build(engine);
    Row state = txn.getTransactionState(engine);
    CloseableIterator<FilteredColumnarBatch> logical =
        Utils.singletonCloseableIterator(new FilteredColumnarBatch(batch(writer, ids), Optional.empty()));
    CloseableIterator<FilteredColumnarBatch> physical =
        Transaction.transformLogicalData(engine, state, logical, Map.of());
    DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
    List<Row> actions = new ArrayList<>();
    try {
      CloseableIterator<DataFileStatus> files =
          engine.getParquetHandler()
              .writeParquetFiles(context.getTargetDirectory(), physical, context.getStatisticsColumns());
      try (CloseableIterator<Row> rows = Transaction.generateAppendActions(engine, state, files, context)) {
        rows.forEachRemaining(actions::add);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Kernel iterates the actions more than once.
    return txn.commit(engine, CloseableIterable.inMemoryIterable(Utils.toCloseableIterator(actions.iterator())));
  }

  /** Every id in the table's current snapshot, read back from the Parquet files. */
  static List<Long> readIds(Engine engine, String path) {
    Snapshot snapshot = load(engine, path);
    Scan scan = snapshot.getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    StructType readSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);
    List<Long> ids = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> files = scanFiles.next().getRows()) {
          while (files.hasNext()) {
            Row scanFile = files.next();
            FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<ColumnarBatch> physical =
                engine.getParquetHandler()
                    .readParquetFiles(Utils.singletonCloseableIterator(file), readSchema, Optional.empty())
                    .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> data =
                Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
              data.forEachRemaining(batch -> collectIds(batch, ids));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  private static void collectIds(FilteredColumnarBatch batch, List<Long> ids) {
    ColumnVector id = batch.getData().getColumnVector(0);
    Optional<ColumnVector> selected = batch.getSelectionVector();
    for (int i = 0; i < batch.getData().getSize(); i++) {
      if (selected.isEmpty() || (!selected.get().isNullAt(i) && selected.get().getBoolean(i))) {
        ids.add(id.getLong(i));
      }
    }
  }

  private static ColumnarBatch batch(String writer, long[] ids) {
    byte[][] writers = new byte[ids.length][];
    for (int i = 0; i < ids.length; i++) {
      writers[i] = writer.getBytes(StandardCharsets.UTF_8);
    }
    return new DefaultColumnarBatch(
        ids.length,
        SCHEMA,
        new ColumnVector[] {
          new DefaultLongVector(LongType.LONG, ids.length, Optional.empty(), ids),
          new DefaultBinaryVector(StringType.STRING, ids.length, writers)
        });
  }
}
