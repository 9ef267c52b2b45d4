package io.lakesink.delta;

import static io.delta.kernel.internal.util.Utils.toCloseableIterator;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.data.TransactionStateRow;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import io.delta.kernel.internal.fs.Path;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites some files of a table into new ones holding the same rows, and commits the swap as
 * Delta's {@code OPTIMIZE}: every add and remove with {@code dataChange=false}, so streaming
 * readers and the append-only rule of a changelog table see no change of data. Until
 * {@link #commit}, the new files are invisible; after a crash they are orphans for vacuum.
 *
 * <p>A rewrite is pinned to the snapshot it was planned on. When another writer commits first,
 * the commit is tried once more on the new log if every file it removes is still there (a blind
 * append: the usual case); otherwise it gives up, and the other writer's commit stands.
 */
public final class TableRewrite {
  private static final Logger log = LoggerFactory.getLogger(TableRewrite.class);
  public static final String OPTIMIZE = "OPTIMIZE";

  private final String location;
  private final Engine engine;
  private final OperationCommitter committer;
  private final Snapshot base;
  private final Transaction txn;
  private final Row txnState;
  private final List<TableFile> files;
  private final List<Column> columns;
  private final List<TableFile> removed = new ArrayList<>();
  private final List<Row> added = new ArrayList<>();
  private final List<String> pathsAdded = new ArrayList<>();
  private long bytesAdded;
  /** The data columns as stored in the files, read the same way from every file. */
  private StructType physicalRead;

  private TableRewrite(DeltaTable table, Map<String, String> parameters) {
    this.location = table.location();
    this.engine = table.engine();
    this.committer = new OperationCommitter(OPTIMIZE, parameters);
    this.base = load();
    this.txn = startTransaction(base);
    this.txnState = txn.getTransactionState(engine);
    this.files = DeltaTable.files(engine, base, location);
    this.columns = DeltaTypes.fromStruct(base.getSchema());
  }

  /**
   * Plans a rewrite on the table's latest snapshot.
   *
   * @param parameters Delta's {@code operationParameters} for the commit (e.g. {@code zOrderBy})
   */
  public static TableRewrite begin(DeltaTable table, Map<String, String> parameters) {
    return new TableRewrite(table, parameters);
  }

  private Snapshot load() {
    return TableManager.loadSnapshot(location).withCommitter(committer).build(engine);
  }

  private Transaction startTransaction(Snapshot snapshot) {
    // Conflicts are resolved here (see class comment), never by Kernel rebasing removes.
    return snapshot.buildUpdateTableTransaction(DeltaTable.ENGINE_INFO, Operation.MANUAL_UPDATE)
        .withMaxRetries(0).build(engine);
  }

  public long version() {
    return base.getVersion();
  }

  /** The table's files at the planned version. */
  public List<TableFile> files() {
    return files;
  }

  /** The table's columns, partition columns included. */
  public List<Column> columns() {
    return columns;
  }

  public List<String> partitionColumns() {
    return base.getPartitionColumnNames();
  }

  public Map<String, String> properties() {
    return base.getTableProperties();
  }

  /** The columns stored in the files (all but the partition columns), in file order. */
  public List<Column> dataColumns() {
    return columns.stream().filter(c -> !partitionColumns().contains(c.name())).toList();
  }

  /**
   * Copies the rows of {@code inputs} (all of one partition) into new files, batch by batch:
   * memory holds one Parquet batch, not the files.
   */
  public void copy(List<TableFile> inputs) {
    Map<String, Literal> partition = partitionLiterals(inputs.get(0).partitionValues());
    for (TableFile f : inputs) {
      if (!f.partitionValues().equals(inputs.get(0).partitionValues())) {
        throw new IllegalArgumentException("files of different partitions in one output: " + inputs);
      }
    }
    write(partition, new Batches(inputs), inputs);
  }

  /** The rows of one file, values as {@link RowBatch} takes them, in {@link #dataColumns} order. */
  public List<Object[]> readRows(TableFile file) {
    List<Column> data = dataColumns();
    List<Object[]> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> batches = read(file)) {
      while (batches.hasNext()) {
        FilteredColumnarBatch filtered = batches.next();
        ColumnarBatch b = filtered.getData();
        for (int r = 0; r < b.getSize(); r++) {
          if (filtered.getSelectionVector().isPresent() && !filtered.getSelectionVector().get().getBoolean(r)) {
            continue; // deleted by the file's deletion vector: purged
          }
          Object[] row = new Object[data.size()];
          for (int c = 0; c < data.size(); c++) {
            row[c] = DeltaTableReader.value(b.getColumnVector(c), data.get(c).type(), r);
          }
          rows.add(row);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
    return rows;
  }

  /**
   * Writes {@code rows} (in {@link #dataColumns} order) as one new file of an unpartitioned
   * table, replacing {@code inputs} once committed; rows of one input may go to several outputs,
   * so inputs are listed by whoever read them ({@link #replaced}).
   */
  public void writeRows(List<Object[]> rows) {
    int[] slots = new int[dataColumns().size()];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = i;
    }
    RowBatch batch = new RowBatch(dataColumns(), slots, rows);
    write(Map.of(), toCloseableIterator(List.of(new FilteredColumnarBatch(batch, Optional.empty())).iterator()), List.of());
  }

  /** Files whose rows were written by {@link #writeRows}: removed by the commit. */
  public void replaced(List<TableFile> inputs) {
    removed.addAll(inputs);
  }

  public int filesAdded() {
    return added.size();
  }

  /** The paths of the files written so far. */
  public List<String> pathsAdded() {
    return List.copyOf(pathsAdded);
  }

  public long bytesAdded() {
    return bytesAdded;
  }

  private void write(Map<String, Literal> partition, CloseableIterator<FilteredColumnarBatch> data, List<TableFile> inputs) {
    DataWriteContext context = Transaction.getWriteContext(engine, txnState, partition);
    StructType physical = TransactionStateRow.getPhysicalSchema(txnState);
    URI root = new Path(TransactionStateRow.getTablePath(txnState)).toUri();
    try (CloseableIterator<DataFileStatus> written =
        engine.getParquetHandler().writeParquetFiles(context.getTargetDirectory(), data, context.getStatisticsColumns())) {
      while (written.hasNext()) {
        DataFileStatus status = written.next();
        AddFile add = AddFile.convertDataFileStatus(
            physical, root, status, partition, false, Map.of(), Optional.empty(), Optional.empty(), Optional.empty());
        added.add(SingleAction.createAddFileSingleAction(add.toRow()));
        pathsAdded.add(status.getPath());
        bytesAdded += status.getSize();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing compacted files under " + context.getTargetDirectory(), e);
    }
    removed.addAll(inputs);
  }

  private Map<String, Literal> partitionLiterals(Map<String, String> values) {
    Map<String, Literal> out = new HashMap<>();
    for (Column c : columns) {
      if (partitionColumns().contains(c.name())) {
        out.put(c.name(), DeltaTypes.literal(c.type(), partitionValue(c.type(), values.get(c.name()))));
      }
    }
    return out;
  }

  /** A partition value as Delta's log writes it (text) turned back into its type. */
  private static Object partitionValue(ColumnType type, String text) {
    if (text == null) {
      return null;
    }
    return switch (type.kind()) {
      case STRING -> text;
      case DATE -> LocalDate.parse(text);
      case INT -> Integer.valueOf(text);
      case BIGINT -> Long.valueOf(text);
      case BOOLEAN -> Boolean.valueOf(text);
      default -> throw new IllegalArgumentException("cannot compact a table partitioned by a " + type + " column");
    };
  }

  /**
   * A file's batches, the rows its deletion vector deletes unselected (the Parquet writer skips
   * them: a rewrite purges deleted rows).
   */
  private CloseableIterator<FilteredColumnarBatch> read(TableFile file) throws IOException {
    if (physicalRead == null) {
      // Only the stored columns: on a table with deletion vectors Kernel also asks for the row
      // index, which must not be copied into the new files (positions are counted instead).
      StructType all = ScanStateRow.getPhysicalDataReadSchema(base.getScanBuilder().build().getScanState(engine));
      physicalRead = new StructType(all.fields().stream().filter(f -> f.isDataColumn() && !f.isInternalColumn()).toList());
    }
    StructType physical = physicalRead;
    RoaringBitmapArray deleted = DeletionVectorFile.bitmap(engine, location, file);
    long[] position = {0};
    return engine.getParquetHandler()
        .readParquetFiles(
            Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(file.scanRow)), physical, Optional.empty())
        .map(result -> {
          ColumnarBatch b = result.getData();
          long first = position[0];
          position[0] += b.getSize();
          return new FilteredColumnarBatch(b, deleted == null ? Optional.empty() : Optional.of(new PositionSelection(deleted, first, b.getSize())));
        });
  }

  /**
   * Commits the rewrite; returns the new version, or empty when another writer changed the files
   * it replaces (the rewrite gave up: its files are orphans, removed by a later vacuum).
   */
  public OptionalLong commit(Map<String, String> metrics) {
    committer.metrics(metrics);
    Snapshot on = base;
    Transaction attempt = txn;
    for (int tries = 0; ; tries++) {
      try {
        TransactionCommitResult result = attempt.commit(engine, actions());
        for (PostCommitHook hook : result.getPostCommitHooks()) {
          DeltaTable.runHook(engine, hook, location, DeltaTable.hasDeletionVectorFeature(on));
        }
        return OptionalLong.of(result.getVersion());
      } catch (MaxCommitRetryLimitReachedException e) {
        if (!(e.getCause() instanceof CommitFailedException cfe && cfe.isConflict())) {
          throw e; // I/O: the caller retries later; this attempt's files become orphans
        }
        if (tries > 0) {
          log.info("Compaction of {} gave up: other commits kept winning", location);
          return OptionalLong.empty();
        }
        Snapshot fresh = load();
        if (!stillApplies(on, fresh)) {
          log.info("Compaction of {} gave up: a commit at version {} changed the files it rewrote", location, fresh.getVersion());
          return OptionalLong.empty();
        }
        log.debug("Compaction of {} lost the race to version {}; committing on it", location, fresh.getVersion());
        on = fresh;
        attempt = startTransaction(fresh);
      }
    }
  }

  /** Whether the rewrite can be moved onto {@code fresh}: same shape, every removed file still live. */
  private boolean stillApplies(Snapshot planned, Snapshot fresh) {
    SnapshotImpl a = (SnapshotImpl) planned;
    SnapshotImpl b = (SnapshotImpl) fresh;
    if (!a.getSchema().equals(b.getSchema()) || !a.getProtocol().equals(b.getProtocol())
        || !a.getPartitionColumnNames().equals(b.getPartitionColumnNames())
        || !a.getMetadata().getId().equals(b.getMetadata().getId())) {
      return false;
    }
    // A file and its deletion vector: a merge that deleted more rows of a file since replaced its
    // add, and removing the old one would leave the new one live beside the rewritten rows.
    Set<String> live = new HashSet<>();
    DeltaTable.files(engine, fresh, location).forEach(f -> live.add(identity(f)));
    return removed.stream().allMatch(f -> live.contains(identity(f)));
  }

  private static String identity(TableFile f) {
    var dv = DeletionVectorFile.descriptor(f);
    return dv == null ? f.path() : f.path() + "@" + dv.getUniqueId();
  }

  private CloseableIterable<Row> actions() {
    long now = System.currentTimeMillis();
    List<Row> all = new ArrayList<>(added);
    for (TableFile f : removed) {
      all.add(SingleAction.createRemoveFileSingleAction(
          new AddFile(f.scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)).toRemoveFileRow(false, Optional.of(now))));
    }
    return CloseableIterable.inMemoryIterable(toCloseableIterator(all.iterator()));
  }

  /** The batches of several files, one file open at a time. */
  private final class Batches implements CloseableIterator<FilteredColumnarBatch> {
    private final Iterator<TableFile> files;
    private CloseableIterator<FilteredColumnarBatch> current;

    Batches(List<TableFile> inputs) {
      this.files = inputs.iterator();
    }

    @Override
    public boolean hasNext() {
      try {
        while (current == null || !current.hasNext()) {
          if (current != null) {
            current.close();
            current = null;
          }
          if (!files.hasNext()) {
            return false;
          }
          current = read(files.next());
        }
        return true;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public FilteredColumnarBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return current.next();
    }

    @Override
    public void close() throws IOException {
      if (current != null) {
        current.close();
      }
    }
  }
}
