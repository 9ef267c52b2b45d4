package io.lakesink.delta;

import static io.delta.kernel.internal.util.Utils.toCloseableIterator;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.Scan;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Delta table, read and written through Delta Kernel. The only class that knows how a
 * lakesink commit looks in the Delta log: data files, a wider schema when the source gained
 * columns, and one transaction identifier per source partition, all in one atomic commit.
 *
 * <p>Not thread-safe: one delivery thread owns a table.
 */
public final class DeltaTable {
  private static final Logger log = LoggerFactory.getLogger(DeltaTable.class);
  static final String ENGINE_INFO = "lakesink";
  /**
   * Kernel retries a failed commit at once, without backoff (200 times by default). Keep its
   * quick retries for conflicts with concurrent appends and short blips; longer outages are
   * retried with backoff by the delivery, which re-reads the log first.
   */
  public static final int KERNEL_COMMIT_RETRIES = 10;

  private final Engine engine;
  private final String location;
  private Snapshot snapshot; // the latest state we know of; null until loaded or when absent

  public DeltaTable(Engine engine, String location) {
    this.engine = engine;
    this.location = location;
  }

  public String location() {
    return location;
  }

  Engine engine() {
    return engine;
  }

  /** Re-reads the log; call after another writer may have committed. */
  public void refresh() {
    snapshot = null;
  }

  /** The latest snapshot, or empty when the table does not exist yet. */
  Optional<Snapshot> snapshot() {
    if (snapshot == null) {
      try {
        snapshot = TableManager.loadSnapshot(location).build(engine);
      } catch (TableNotFoundException e) {
        return Optional.empty();
      }
    }
    return Optional.of(snapshot);
  }

  public boolean exists() {
    return snapshot().isPresent();
  }

  /** The version of the latest commit, or -1 when the table does not exist. */
  public long version() {
    return snapshot().map(Snapshot::getVersion).orElse(-1L);
  }

  /** The table's columns, partition columns included; empty when it does not exist. */
  public Optional<List<io.lakesink.event.Column>> columns() {
    return snapshot().map(s -> DeltaTypes.fromStruct(s.getSchema()));
  }

  /** The table's partition columns; empty when it has none or does not exist. */
  public List<String> partitionColumns() {
    return snapshot().map(Snapshot::getPartitionColumnNames).orElse(List.of());
  }

  /** The stored version of each application id that has one. */
  public Map<String, Long> transactionVersions(Collection<String> appIds) {
    Map<String, Long> versions = new HashMap<>();
    snapshot()
        .ifPresent(
            s -> {
              for (String appId : appIds) {
                s.getLatestTransactionVersion(engine, appId).ifPresent(v -> versions.put(appId, v));
              }
            });
    return versions;
  }

  /** The table's data files with their statistics (empty when the table does not exist). */
  public List<TableFile> files() {
    Optional<Snapshot> current = snapshot();
    if (current.isEmpty()) {
      return List.of();
    }
    List<TableFile> files = new ArrayList<>();
    Scan scan = current.get().getScanBuilder().build();
    try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            Row scanRow = rows.next();
            AddFile add = new AddFile(scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
            files.add(FileStats.of(add, scanRow));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("listing the files of " + location, e);
    }
    return files;
  }

  /** The rows of one file, as column → value, with columns it predates read as null. */
  public List<Map<String, Object>> read(TableFile file) {
    return DeltaTableReader.read(this, snapshot().orElseThrow(), file);
  }

  /**
   * Writes the request's Parquet files (creating the table first if needed) and returns what
   * {@link #commit} needs. Nothing is visible to readers until the commit.
   */
  public PreparedAppend prepareAppend(AppendRequest request) {
    return prepareAppend(request, List.of());
  }

  /**
   * Like {@link #prepareAppend(AppendRequest)}, and the commit also removes {@code rewritten}:
   * a copy-on-write rewrite. Kernel detects a concurrent commit that removed the same files.
   */
  public PreparedAppend prepareAppend(AppendRequest request, List<TableFile> rewritten) {
    Snapshot current = snapshot().orElseGet(() -> create(request));
    List<io.lakesink.event.Column> tableColumns = DeltaTypes.fromStruct(current.getSchema());
    boolean widened = request.columns().size() > tableColumns.size();

    UpdateTableTransactionBuilder builder =
        current.buildUpdateTableTransaction(ENGINE_INFO, Operation.STREAMING_UPDATE)
            .withMaxRetries(KERNEL_COMMIT_RETRIES);
    Iterator<Map.Entry<String, Long>> txnIds =
        new LinkedHashMap<>(request.transactionIds()).entrySet().iterator();
    // Kernel sets one transaction id per commit itself (and checks it for conflicts); the
    // others are added as SetTransaction actions, as Delta's Flink sink does.
    List<Row> actions = new ArrayList<>();
    if (txnIds.hasNext()) {
      Map.Entry<String, Long> first = txnIds.next();
      builder = builder.withTransactionId(first.getKey(), first.getValue());
    }
    long now = System.currentTimeMillis();
    while (txnIds.hasNext()) {
      Map.Entry<String, Long> id = txnIds.next();
      actions.add(
          SingleAction.createTxnSingleAction(
              new SetTransaction(id.getKey(), id.getValue(), Optional.of(now)).toRow()));
    }
    Transaction txn = builder.build(engine);
    if (widened) {
      // Adding nullable columns at the end is a plain metaData action in the Delta protocol;
      // Kernel's public API only allows it on column-mapping tables, which it cannot write.
      var metadata = ((SnapshotImpl) current).getMetadata();
      actions.add(
          SingleAction.createMetadataSingleAction(
              metadata.withNewSchema(DeltaTypes.toStruct(request.columns())).toRow()));
    }
    for (TableFile f : rewritten) {
      actions.add(SingleAction.createRemoveFileSingleAction(
          new AddFile(f.scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)).toRemoveFileRow(true, Optional.of(now))));
    }
    if (!request.rows().isEmpty()) {
      actions.addAll(writeFiles(txn, request));
    }
    return new PreparedAppend(txn, actions, widened, request.rows().size());
  }

  /** Commits a prepared append; returns the new table version. */
  public long commit(PreparedAppend prepared) {
    List<Row> actions = prepared.actions();
    TransactionCommitResult result =
        prepared.transaction().commit(engine, CloseableIterable.inMemoryIterable(toCloseableIterator(actions.iterator())));
    // Kernel's post-commit snapshot carries the schema it started with: after widening, reload.
    snapshot = prepared.widensSchema() ? null : result.getPostCommitSnapshot().orElse(null);
    runHooks(result, prepared.widensSchema());
    return result.getVersion();
  }

  private Snapshot create(AppendRequest request) {
    List<Column> partitions = request.partitionColumns().stream().map(Column::new).toList();
    try {
      TableManager.buildCreateTableTransaction(
              location, DeltaTypes.toStruct(request.columns()), ENGINE_INFO)
          .withTableProperties(request.tableProperties())
          .withDataLayoutSpec(
              partitions.isEmpty() ? DataLayoutSpec.noDataLayout() : DataLayoutSpec.partitioned(partitions))
          .build(engine)
          .commit(engine, CloseableIterable.emptyIterable());
      log.info("Created Delta table {}", location);
    } catch (TableAlreadyExistsException e) {
      log.info("Delta table {} was created by another writer", location);
    }
    snapshot = null;
    return snapshot().orElseThrow(() -> new IllegalStateException("table vanished after create: " + location));
  }

  private List<Row> writeFiles(Transaction txn, AppendRequest request) {
    Row txnState = txn.getTransactionState(engine);
    List<io.lakesink.event.Column> all = request.columns();
    Map<String, Literal> partitionValues = new HashMap<>();
    List<io.lakesink.event.Column> dataColumns = new ArrayList<>();
    List<Integer> slots = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      io.lakesink.event.Column c = all.get(i);
      if (request.partitionColumns().contains(c.name())) {
        partitionValues.put(c.name(), DeltaTypes.literal(c.type(), request.partitionValues().get(c.name())));
      } else {
        dataColumns.add(c);
        slots.add(i);
      }
    }
    DataWriteContext context = Transaction.getWriteContext(engine, txnState, partitionValues);
    RowBatch batch =
        new RowBatch(dataColumns, slots.stream().mapToInt(Integer::intValue).toArray(), request.rows());
    List<Row> adds = new ArrayList<>();
    try (CloseableIterator<DataFileStatus> files =
            engine
                .getParquetHandler()
                .writeParquetFiles(
                    context.getTargetDirectory(),
                    toCloseableIterator(List.of(new FilteredColumnarBatch(batch, Optional.empty())).iterator()),
                    context.getStatisticsColumns());
        CloseableIterator<Row> addActions =
            Transaction.generateAppendActions(engine, txnState, files, context)) {
      addActions.forEachRemaining(adds::add);
    } catch (IOException e) {
      throw new UncheckedIOException("writing Parquet files under " + context.getTargetDirectory(), e);
    }
    return adds;
  }

  private void runHooks(TransactionCommitResult result, boolean widened) {
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      if (widened && hook.getType() != PostCommitHook.PostCommitHookType.CHECKPOINT) {
        // Kernel computes a version checksum from the metadata it started with, which a
        // widening commit replaced: a stale .crc would make readers see the old schema. Without
        // a .crc, readers replay the log, which has the new metaData action.
        continue;
      }
      try {
        hook.threadSafeInvoke(engine);
      } catch (IOException | RuntimeException e) {
        // The commit itself succeeded; a missing checkpoint only slows readers down.
        log.warn("Post-commit {} for {} failed: {}", hook.getType(), location, e.toString());
      }
    }
  }

  /** Parquet files written and actions ready to commit. */
  public record PreparedAppend(Transaction transaction, List<Row> actions, boolean widensSchema, int rows) {}
}
