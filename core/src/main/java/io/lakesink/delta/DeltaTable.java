package io.lakesink.delta;

import static io.delta.kernel.internal.util.Utils.toCloseableIterator;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
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
import io.delta.kernel.internal.checksum.CRCInfo;
import io.delta.kernel.internal.checksum.ChecksumWriter;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import io.delta.kernel.internal.fs.Path;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.error.Errors;
import java.io.FileNotFoundException;
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
import java.util.Set;
import java.util.concurrent.Callable;
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
   * How many times a blind append is rebased onto commits that won the race before the delivery
   * is told (it then re-reads the log and tries again). I/O failures are retried with backoff
   * by the delivery, which re-reads the log first.
   */
  public static final int MAX_REBASES = 10;

  private final Engine engine;
  private final String location;
  private Snapshot snapshot; // the latest state we know of; null until loaded or when absent
  /** The Delta table id this location held when first seen; a different one is another table. */
  private String tableId;
  private long lastSeenVersion = -1;
  /** The commit file this object last wrote, as storage listed it: who else could have written it. */
  private FileStatus lastCommitFile;
  /** Files and rows of the table as {@link #files()} last listed them. */
  private long listedFiles;
  private long listedRows;
  private CommitStats lastCommitStats;
  private CommitStats pendingStats;
  private CommitGuard guard = CommitGuard.NONE;
  /** Footers of the files merges read, kept between merges (files never change). */
  private final ParquetFooters footers = new ParquetFooters(ParquetFooters.MAX_BYTES);

  public DeltaTable(Engine engine, String location) {
    this.engine = engine;
    this.location = location;
  }

  public String location() {
    return location;
  }

  /**
   * Another handle on the same table, sharing the engine: for work on another thread (table
   * maintenance), which commits as another writer would.
   */
  public DeltaTable another() {
    return new DeltaTable(engine, location);
  }

  /** Checked before every commit and rebase of this handle; see {@link CommitGuard}. */
  public void guard(CommitGuard newGuard) {
    this.guard = newGuard;
  }

  /** The table's properties; empty when it does not exist. */
  public Map<String, String> properties() {
    return snapshot().map(Snapshot::getTableProperties).orElse(Map.of());
  }

  /**
   * A metadata commit that sets table properties, decided on the latest log: {@code change}
   * gets the current properties and returns those to set, or null when nothing is to be done
   * (it may also throw to refuse). A lost race re-reads the log and asks {@code change} again,
   * so a decision is never based on properties another writer replaced meanwhile.
   *
   * @return the version committed, or -1 when {@code change} had nothing to do
   */
  public long commitProperties(java.util.function.UnaryOperator<Map<String, String>> change) {
    for (int attempt = 0; ; attempt++) {
      snapshot = null;
      Snapshot current = snapshot().orElseThrow(() -> Errors.deltaLogVanished(location, lastSeenVersion));
      Map<String, String> set = change.apply(current.getTableProperties());
      if (set == null || set.isEmpty()) {
        return -1;
      }
      try {
        TransactionCommitResult result = current.buildUpdateTableTransaction(ENGINE_INFO, Operation.MANUAL_UPDATE)
            .withTablePropertiesAdded(set).withMaxRetries(0).build(engine)
            .commit(engine, CloseableIterable.emptyIterable());
        snapshot = null;
        lastSeenVersion = Math.max(lastSeenVersion, result.getVersion());
        noteCommitFile(result.getVersion());
        runHooks(result, false, current);
        return result.getVersion();
      } catch (MaxCommitRetryLimitReachedException e) {
        if (attempt >= MAX_REBASES) {
          throw e;
        }
        log.debug("Property commit to {} did not go through ({}); deciding again on the latest log", location, e.toString());
      }
    }
  }

  /** What the last commit of this handle did, for the key warnings; empty before one. */
  public Optional<CommitStats> lastCommit() {
    return Optional.ofNullable(lastCommitStats);
  }

  Engine engine() {
    return engine;
  }

  /** Re-reads the log; call after another writer may have committed. */
  public void refresh() {
    snapshot = null;
  }

  /**
   * Forgets which table this location held, so that a table created anew there (after an
   * operator deleted the old one and released the quarantine) is accepted.
   */
  public void forgetIdentity() {
    tableId = null;
    snapshot = null;
    lastSeenVersion = -1;
  }

  /**
   * Whether this object has seen the table exist (it loaded or committed a version), known without
   * reading the log: what a caller asks on every poll.
   */
  public boolean seenToExist() {
    return lastSeenVersion >= 0;
  }

  /**
   * The latest snapshot, or empty when the table does not exist yet.
   *
   * @throws TableFailureException when the table this object wrote or read before is gone or
   *     was replaced by another table (a different table id) at the same location
   */
  Optional<Snapshot> snapshot() {
    if (snapshot == null) {
      Snapshot loaded;
      try {
        loaded = TableManager.loadSnapshot(location).build(engine);
      } catch (TableNotFoundException e) {
        if (tableId != null) {
          throw Errors.deltaLogVanished(location, lastSeenVersion);
        }
        return Optional.empty();
      }
      String id = ((SnapshotImpl) loaded).getMetadata().getId();
      if (tableId != null && !tableId.equals(id)) {
        throw Errors.deltaTableReplaced(location, tableId, id);
      }
      tableId = id;
      remember(loaded);
    }
    return Optional.of(snapshot);
  }

  /** False when our last commit file was replaced by another one (a table re-created here). */
  private boolean sameAsWritten(FileStatus listed) {
    return lastCommitFile == null
        || !listed.getPath().endsWith(lastCommitFile.getPath().substring(lastCommitFile.getPath().lastIndexOf('/')))
        || (listed.getSize() == lastCommitFile.getSize() && listed.getModificationTime() == lastCommitFile.getModificationTime());
  }

  /** Notes the commit file just written, for {@link #verifyLog}; best effort. */
  private void noteCommitFile(long version) {
    String path = location + "/_delta_log/" + String.format("%020d.json", version);
    try {
      lastCommitFile = engine.getFileSystemClient().getFileStatus(path);
    } catch (IOException | RuntimeException e) {
      lastCommitFile = null;
      log.debug("Could not read back {}: {}", path, e.toString());
    }
  }

  private void remember(Snapshot s) {
    snapshot = s;
    lastSeenVersion = Math.max(lastSeenVersion, s.getVersion());
  }

  /**
   * Before committing on a cached snapshot: its commit file must still be in the log. A table
   * deleted (or re-created shorter) under a running worker would otherwise get {@code N+1.json}
   * in a log without {@code 0.json}, which no reader can read. One listing per commit.
   */
  private Snapshot verifyLog(Snapshot cached) {
    String commitFile = String.format("%020d.json", cached.getVersion());
    try (CloseableIterator<FileStatus> listed =
        engine.getFileSystemClient().listFrom(location + "/_delta_log/" + commitFile)) {
      FileStatus first = listed.hasNext() ? listed.next() : null;
      if (first != null && first.getPath().endsWith("/" + commitFile) && sameAsWritten(first)) {
        return cached;
      }
    } catch (FileNotFoundException e) {
      // the log directory itself is gone: re-read below
    } catch (IOException e) {
      throw new UncheckedIOException("listing the Delta log of " + location, e);
    }
    snapshot = null; // re-read: fails with the reason when the table is gone or was replaced
    return snapshot().orElseThrow(() -> Errors.deltaLogVanished(location, lastSeenVersion));
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

  /** Delta's table property that turns deletion vectors on (and raises the protocol to reader 3 / writer 7). */
  public static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";

  /**
   * Whether rows may be deleted by deletion vectors: the protocol has the {@code deletionVectors}
   * feature and the table property asks for them (Delta's rule: without the property, writers
   * rewrite files).
   */
  public boolean deletionVectorsEnabled() {
    return snapshot().map(s -> {
      return hasDeletionVectorFeature(s)
          && Boolean.parseBoolean(((SnapshotImpl) s).getMetadata().getConfiguration().getOrDefault(ENABLE_DELETION_VECTORS, "false"));
    }).orElse(false);
  }

  /**
   * Turns deletion vectors on for an existing table: one commit setting the property, which
   * raises the protocol to reader 3 / writer 7 with the {@code deletionVectors} feature (readers
   * without deletion vector support can no longer read the table). Does nothing when on already.
   */
  public void enableDeletionVectors() {
    Snapshot current = snapshot().orElseThrow(() -> new IllegalStateException("no table at " + location));
    if (deletionVectorsEnabled()) {
      return;
    }
    TransactionCommitResult result = current.buildUpdateTableTransaction(ENGINE_INFO, Operation.MANUAL_UPDATE)
        .withTablePropertiesAdded(Map.of(ENABLE_DELETION_VECTORS, "true"))
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    runHooks(result, false, current);
    log.info("Deletion vectors enabled on {} (version {}): its protocol is now reader 3 / writer 7", location, result.getVersion());
    snapshot = null;
  }

  /** The table's data files with their statistics (empty when the table does not exist). */
  public List<TableFile> files() {
    List<TableFile> files = snapshot().map(s -> files(engine, s, location)).orElse(List.of());
    listedFiles = files.size();
    listedRows = files.stream().mapToLong(f -> Math.max(0, f.rows())).sum();
    return files;
  }

  static List<TableFile> files(Engine engine, Snapshot snapshot, String location) {
    List<TableFile> files = new ArrayList<>();
    Scan scan = snapshot.getScanBuilder().build();
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

  /**
   * The positions (0-based row numbers in the Parquet file) of the rows the file's deletion vector
   * deletes, ascending; empty without one. What another table format needs to hide the same rows.
   */
  public long[] deletedPositions(TableFile file) {
    io.delta.kernel.internal.deletionvectors.RoaringBitmapArray deleted = DeletionVectorFile.bitmap(engine, location, file);
    return deleted == null ? new long[0] : deleted.toArray();
  }

  /**
   * File access to the storage the table lives on (local disk, Azure), for files kept beside the
   * Delta table by other formats (Iceberg metadata). Paths are spelled as {@link #location()}.
   */
  public io.delta.kernel.defaults.engine.fileio.FileIO fileIO() {
    if (!(engine instanceof KernelEngine.StorageEngine storage)) {
      throw new IllegalStateException("the table's engine was not built by KernelEngine.create: no storage to hand out");
    }
    return storage.fileIO();
  }

  /** The rows of one file, as column → value, with columns it predates read as null. */
  public List<Map<String, Object>> read(TableFile file) {
    return DeltaTableReader.read(this, snapshot().orElseThrow(), file);
  }

  /**
   * A reader of some columns of this snapshot's files with each live row's position: what a
   * merge with deletion vectors reads. Usable from other threads.
   *
   * @param layout the rows' layout (the table's columns, maybe with a batch's new ones at the end)
   * @param wanted the columns read
   */
  public PositionedRowReader positionedReader(List<io.lakesink.event.Column> layout, List<String> wanted) {
    List<io.lakesink.event.Column> tableColumns = DeltaTypes.fromStruct(snapshot().orElseThrow().getSchema());
    // Under column mapping (another engine may have enabled it) a file names its columns by their
    // physical names: only Kernel's reader maps them; the page reader would read every key as null.
    boolean byPages = "none".equals(properties().getOrDefault("delta.columnMapping.mode", "none"));
    return new PositionedRowReader(engine, location, tableColumns, layout, wanted, byPages, footers);
  }

  /**
   * Writes the request's Parquet files (creating the table first if needed) and returns what
   * {@link #commit} needs. Nothing is visible to readers until the commit.
   *
   * @throws CommitFencedException when the log already stores offsets past the batch's start
   */
  public PreparedAppend prepareAppend(AppendRequest request) {
    return prepareAppend(request, List.of());
  }

  /**
   * Like {@link #prepareAppend(AppendRequest)}, and the commit also removes {@code rewritten}:
   * a copy-on-write rewrite, which is never rebased onto another writer's commit (the files it
   * read may have changed): a concurrent commit makes it fail, to be planned again.
   */
  public PreparedAppend prepareAppend(AppendRequest request, List<TableFile> rewritten) {
    PendingWrite write = begin(request);
    write.write(request.rows());
    return write.prepare(rewritten);
  }

  /**
   * Starts a commit whose data files are written one {@link PendingWrite#write} at a time, so a
   * rewrite holds one file's rows at a time instead of the whole batch. Creates the table if
   * needed and fences the offsets; {@code request.rows()} is not written (only its columns,
   * offsets and properties count).
   *
   * @throws CommitFencedException when the log already stores offsets past the batch's start
   */
  public PendingWrite begin(AppendRequest request) {
    Snapshot current = snapshot().map(this::verifyLog).orElseGet(() -> create(request));
    guard.check(current.getTableProperties());
    fence(current, request.offsets());
    return new PendingWrite(current, startTransaction(current), request);
  }

  /**
   * A commit being prepared: Parquet files written so far, nothing visible to readers. {@link
   * #write} may be called from several threads at once (files are written independently); the
   * rest only from the thread that owns the table.
   */
  public final class PendingWrite {
    private final Snapshot base;
    private final Transaction txn;
    private final AppendRequest request;
    private final Row txnState;
    private final List<Row> adds = new ArrayList<>();
    private final Map<TableFile, long[]> deletes = new LinkedHashMap<>();
    private final List<TableFile> removed = new ArrayList<>();
    private long rowsWritten;

    private PendingWrite(Snapshot base, Transaction txn, AppendRequest request) {
      this.base = base;
      this.txn = txn;
      this.request = request;
      this.txnState = txn.getTransactionState(engine);
    }

    /** The table version the commit is planned on: a commit that is not rebased lands right after it. */
    public long baseVersion() {
      return base.getVersion();
    }

    /**
     * Writes these rows (aligned with the request's columns) as new data files of the commit.
     *
     * @return the files written, in the order the rows fill them
     */
    public List<WrittenFile> write(List<Object[]> rows) {
      if (rows.isEmpty()) {
        return List.of();
      }
      List<Row> written = writeFiles(txnState, request, rows);
      synchronized (this) {
        adds.addAll(written);
        rowsWritten += rows.size();
      }
      List<WrittenFile> files = new ArrayList<>(written.size());
      for (Row action : written) {
        AddFile add = new AddFile(action.getStruct(action.getSchema().indexOf("add")));
        files.add(new WrittenFile(add.getPath(), FileStats.of(add, null).physicalRows()));
      }
      return files;
    }

    /**
     * Takes {@code file} of {@code source} over as a new data file of the commit instead of
     * writing rows it already holds: the file is copied into this table's directory (its own
     * copy, so neither table's vacuum or optimize can take it from the other) and added with a
     * deletion vector that keeps only the rows at {@code keep} (0-based positions in file order,
     * sorted, distinct). Its statistics are the source's, for this table's columns (the bounds
     * then no longer tight); a column of this table the file lacks reads null, as one added to a
     * table after a file was written. Only for an unpartitioned table with deletion vectors, and
     * a file without a deletion vector of its own whose rows hold this table's columns with the
     * same names and types (the caller's to check, row by row).
     *
     * @return the file as this table's log spells it, with the positions of the rows kept
     */
    public WrittenFile takeOver(DeltaTable source, TableFile file, long[] keep) {
      if (!request.partitionColumns().isEmpty() || file.hasDeletionVector() || file.physicalRows() < 0) {
        throw new IllegalStateException("only a statistics-carrying file without a deletion vector can be taken over"
            + " by an unpartitioned table: " + file + " into " + location);
      }
      String name = java.util.UUID.randomUUID() + ".parquet";
      // Streamed through the storage's own reader and writer (Azure: ranged reads, staged blocks),
      // never held whole: a changelog file may be as large as a Parquet file gets.
      try (var in = source.fileIO().newInputFile(source.location + "/" + file.path(), file.size()).newStream();
          var out = fileIO().newOutputFile(location + "/" + name).create(false)) {
        in.transferTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException("could not copy " + file.path() + " of " + source.location + " into " + location, e);
      }
      long[] dropped = DeletionVectorUpdate.complement(keep, file.physicalRows());
      Optional<Row> vector = dropped.length == 0 ? Optional.empty()
          : Optional.of(DeletionVectorFile.write(engine, location, List.of(dropped)).get(0).toRow());
      Set<String> columns = new java.util.HashSet<>();
      request.columns().forEach(c -> columns.add(c.name()));
      Row add = DeletionVectorUpdate.addAction(name, file.size(), System.currentTimeMillis(),
          FileStats.restricted(file.stats, columns, vector.isEmpty()), vector);
      synchronized (this) {
        adds.add(SingleAction.createAddFileSingleAction(add));
        rowsWritten += keep.length;
      }
      return new WrittenFile(name, keep.length, keep);
    }

    /**
     * Writes {@code file} again without the rows at {@code positions} (0-based, in file order),
     * nor those its deletion vector deletes, then {@code added} (aligned with the request's
     * columns): a copy-on-write merge's rewrite of a file with the changed rows of its keys,
     * streamed batch by batch, never the whole file in memory. Rows keep the file's order, the
     * added ones last; columns the file predates (a batch adds them) are written as null. The
     * commit must also remove the file ({@link #prepare}). May be called from several threads.
     */
    public void rewrite(TableFile file, long[] positions, List<Object[]> added) {
      if (!request.partitionColumns().isEmpty()) {
        throw new IllegalStateException("copy-on-write rewrites are for unpartitioned tables: " + location);
      }
      RoaringBitmapArray dropped = DeletionVectorFile.bitmap(engine, location, file);
      RoaringBitmapArray drop = dropped == null ? new RoaringBitmapArray() : dropped;
      for (long p : positions) {
        drop.add(p);
      }
      DataWriteContext context = Transaction.getWriteContext(engine, txnState, Map.of());
      long[] position = {0};
      List<Row> written = new ArrayList<>();
      int[] slots = java.util.stream.IntStream.range(0, request.columns().size()).toArray();
      CloseableIterator<FilteredColumnarBatch> tail = toCloseableIterator(added.isEmpty() ? java.util.Collections.emptyIterator()
          : List.of(new FilteredColumnarBatch(new RowBatch(request.columns(), slots, added), Optional.empty())).iterator());
      try (CloseableIterator<FilteredColumnarBatch> batches = engine.getParquetHandler()
              .readParquetFiles(Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(file.scanRow)),
                  DeltaTypes.toStruct(request.columns()), Optional.empty())
              .map(result -> {
                ColumnarBatch b = result.getData();
                long first = position[0];
                position[0] += b.getSize();
                return new FilteredColumnarBatch(b, Optional.of(new PositionSelection(drop, first, b.getSize())));
              })
              .combine(tail);
          CloseableIterator<DataFileStatus> files =
              engine.getParquetHandler().writeParquetFiles(context.getTargetDirectory(), batches, context.getStatisticsColumns());
          CloseableIterator<Row> actions = Transaction.generateAppendActions(engine, txnState, files, context)) {
        actions.forEachRemaining(written::add);
      } catch (IOException e) {
        throw new UncheckedIOException("rewriting " + file.path() + " of " + location, e);
      }
      synchronized (this) {
        adds.addAll(written);
        rowsWritten += Math.max(0, file.rows() - positions.length) + added.size();
      }
    }

    /**
     * Deletes rows of {@code file} by position (0-based, in file order) with a deletion vector,
     * on top of those its current one deletes: the commit replaces the file's add with one naming
     * the new vector. Only on a table with {@link #deletionVectorsEnabled}.
     */
    public synchronized void deleteRows(TableFile file, long[] positions) {
      if (positions.length > 0) {
        deletes.merge(file, positions, DeletionVectorUpdate::union);
      }
    }

    /**
     * Removes a file none of whose rows stays (a truncate removed them all): the commit removes it
     * as it removes a rewritten file, but its rows count as deleted, not rewritten, so a truncate
     * does not look like a merge rewriting far more than it received.
     */
    public synchronized void removeWhole(TableFile file) {
      removed.add(file);
    }

    /** The commit: the files written, {@code rewritten} and whole removals removed, the offsets, a wider schema. */
    public synchronized PreparedAppend prepare(List<TableFile> rewritten) {
      boolean widened = request.columns().size() > DeltaTypes.fromStruct(base.getSchema()).size();
      long now = System.currentTimeMillis();
      List<Row> dataActions = new ArrayList<>();
      List<TableFile> removals = new ArrayList<>(rewritten);
      removals.addAll(removed);
      for (TableFile f : removals) {
        dataActions.add(SingleAction.createRemoveFileSingleAction(
            new AddFile(f.scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)).toRemoveFileRow(true, Optional.of(now))));
      }
      // The deletion vectors are written last, once every data file is: a failure before the
      // commit leaves orphans only (invisible, vacuumed after the retention).
      dataActions.addAll(DeletionVectorUpdate.actions(engine, location, deletes, now));
      dataActions.addAll(adds);
      Optional<Row> metadata = Optional.empty();
      if (widened) {
        // Adding nullable columns at the end is a plain metaData action in the Delta protocol;
        // Kernel's public API only allows it on column-mapping tables, which it cannot write.
        metadata = Optional.of(SingleAction.createMetadataSingleAction(
            ((SnapshotImpl) base).getMetadata().withNewSchema(DeltaTypes.toStruct(request.columns())).toRow()));
      }
      // What this commit does to the table, for the key warnings once it lands (lastCommit).
      lastCommitStats = null;
      pendingStats = new CommitStats(rowsWritten, rewritten.size(), deletes.size(),
          deletes.values().stream().mapToLong(p -> p.length).sum() + removed.stream().mapToLong(f -> Math.max(0, f.rows())).sum(),
          rewritten.stream().mapToLong(f -> Math.max(0, f.rows())).sum(), listedFiles, listedRows);
      return new PreparedAppend(base, txn, request.offsets(), metadata, dataActions,
          removals.isEmpty() && deletes.isEmpty() && !widened, Math.toIntExact(rowsWritten));
    }
  }

  /**
   * Kernel's own conflict resolution would rebase a commit over a concurrent one checking only
   * the first transaction identifier, so it is off (no Kernel retries): {@link #commit} rebases
   * by itself and checks every identifier.
   */
  private Transaction startTransaction(Snapshot base) {
    return base.buildUpdateTableTransaction(ENGINE_INFO, Operation.STREAMING_UPDATE).withMaxRetries(0).build(engine);
  }

  /** Refuses a commit whose batch starts below what {@code base} already stores. */
  private void fence(Snapshot base, CommitOffsets offsets) {
    Map<String, Long> ahead = new LinkedHashMap<>();
    offsets.from().forEach((appId, from) ->
        base.getLatestTransactionVersion(engine, appId).filter(stored -> stored > from).ifPresent(v -> ahead.put(appId, v)));
    if (!ahead.isEmpty()) {
      throw new CommitFencedException(location, ahead);
    }
  }

  /**
   * Commits a prepared append; returns the new table version. When another writer committed
   * first or the write failed, a blind append is rebased onto the latest log after checking
   * every identifier again; any other commit fails, for the caller to plan again.
   *
   * @throws CommitFencedException when another writer committed some of the same offsets
   */
  public long commit(PreparedAppend prepared) {
    PreparedAppend attempt = prepared;
    for (int rebase = 0; ; rebase++) {
      try {
        TransactionCommitResult result = attempt.transaction().commit(engine, attempt.actions());
        // Kernel's post-commit snapshot carries the schema it started with: after widening, reload.
        snapshot = null;
        if (!attempt.widensSchema()) {
          result.getPostCommitSnapshot().ifPresent(this::remember);
        }
        lastSeenVersion = Math.max(lastSeenVersion, result.getVersion());
        noteCommitFile(result.getVersion());
        lastCommitStats = pendingStats;
        runHooks(result, attempt.widensSchema(), attempt.base());
        return result.getVersion();
      } catch (MaxCommitRetryLimitReachedException e) {
        // Another writer took the version, or the write failed (and may have landed): either
        // way the log is read again, and the fence drops the commit if its offsets are there.
        if (!attempt.rebaseable() && lostRace(e)) {
          throw new CommitConflictException(location, e);
        }
        if (!attempt.rebaseable() || rebase >= MAX_REBASES) {
          throw e;
        }
        log.debug("Commit to {} did not go through ({}); rebasing", location, e.getCause() == null ? e : e.getCause());
        attempt = rebase(attempt);
      }
    }
  }

  /** Whether Kernel gave up because another commit took the version (not an I/O failure). */
  private static boolean lostRace(MaxCommitRetryLimitReachedException e) {
    return e.getCause() instanceof CommitFailedException cfe && cfe.isConflict();
  }

  /** The same files and offsets on top of the latest log, if the table did not change shape. */
  private PreparedAppend rebase(PreparedAppend prepared) {
    snapshot = null;
    Snapshot latest = snapshot().orElseThrow(() -> Errors.deltaLogVanished(location, lastSeenVersion));
    SnapshotImpl before = (SnapshotImpl) prepared.base();
    SnapshotImpl after = (SnapshotImpl) latest;
    if (!after.getSchema().equals(before.getSchema()) || !after.getProtocol().equals(before.getProtocol())
        || !after.getPartitionColumnNames().equals(before.getPartitionColumnNames())) {
      throw new CommitConflictException(location, null);
    }
    // A hand-off's fence is such a commit: the guard sees its owner before anything lands.
    guard.check(latest.getTableProperties());
    fence(latest, prepared.offsets());
    log.debug("Rebasing a commit to {} onto version {}", location, latest.getVersion());
    return new PreparedAppend(
        latest, startTransaction(latest), prepared.offsets(), prepared.metadata(), prepared.dataActions(), true, prepared.rows());
  }

  private Snapshot create(AppendRequest request) {
    List<Column> partitions = request.partitionColumns().stream().map(Column::new).toList();
    try {
      TransactionCommitResult created = TableManager.buildCreateTableTransaction(
              location, DeltaTypes.toStruct(request.columns()), ENGINE_INFO)
          .withTableProperties(withGuard(request.tableProperties()))
          .withDataLayoutSpec(
              partitions.isEmpty() ? DataLayoutSpec.noDataLayout() : DataLayoutSpec.partitioned(partitions))
          .build(engine)
          .commit(engine, CloseableIterable.emptyIterable());
      // Version 0's checksum (written without reading anything): each later commit's follows
      // from it, instead of a replay of the log at every commit (runHooks).
      runHooks(created, false, null);
      log.info("Created Delta table {}", location);
    } catch (TableAlreadyExistsException e) {
      log.info("Delta table {} was created by another writer", location);
    }
    snapshot = null;
    return snapshot().orElseThrow(() -> new IllegalStateException("table vanished after create: " + location));
  }

  private Map<String, String> withGuard(Map<String, String> properties) {
    Map<String, String> all = new LinkedHashMap<>(properties);
    all.putAll(guard.creationProperties());
    return all;
  }

  private List<Row> writeFiles(Row txnState, AppendRequest request, List<Object[]> rows) {
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
        new RowBatch(dataColumns, slots.stream().mapToInt(Integer::intValue).toArray(), rows);
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
    } catch (IllegalArgumentException e) {
      // Kernel resolves the table's physical column names (col-<uuid> under column mapping that
      // another engine set up) against the rows lakesink hands it by name, and gives up.
      String mapping = io.delta.kernel.internal.data.TransactionStateRow.getConfiguration(txnState)
          .getOrDefault("delta.columnMapping.mode", "none");
      if (!"none".equals(mapping)) {
        throw Errors.columnMappingUnsupported(location, mapping, e);
      }
      throw e;
    }
    return adds;
  }

  /**
   * @param base the snapshot the commit was made on; what the hooks may do depends on whether it,
   *     or the commit's result, has deletion vectors (the handle's own snapshot may already be
   *     forgotten, as after a metadata commit)
   */
  private void runHooks(TransactionCommitResult result, boolean widened, Snapshot base) {
    boolean deletionVectors = (base != null && hasDeletionVectorFeature(base))
        || result.getPostCommitSnapshot().map(DeltaTable::hasDeletionVectorFeature).orElse(false);
    boolean reload = false;
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      PostCommitHook.PostCommitHookType type = hook.getType();
      if (widened && type == PostCommitHook.PostCommitHookType.CHECKSUM_SIMPLE) {
        writeWidenedChecksum(result);
      } else if (widened && type != PostCommitHook.PostCommitHookType.CHECKPOINT) {
        // Kernel computes a version checksum from the metadata it started with, which a
        // widening commit replaced: a stale .crc would make readers see the old schema.
        continue;
      } else if (type == PostCommitHook.PostCommitHookType.CHECKSUM_FULL && deletionVectors) {
        reload |= seedChecksum(result);
      } else if (runHook(engine, hook, location, deletionVectors) && type != PostCommitHook.PostCommitHookType.CHECKSUM_SIMPLE) {
        reload = true;
      }
    }
    if (reload) {
      // The post-commit snapshot knows neither the checkpoint nor the full checksum just written:
      // on it, every later commit would go on replaying the log from the checkpoint the handle
      // first loaded (a MERGE's file list: all the versions since the worker started), and, without
      // a checksum in memory, replay it again for each commit's checksum and domain metadata. The
      // next load reads both; from there each commit's checksum follows from the one before,
      // written without reading anything.
      snapshot = null;
    }
  }

  /**
   * The first checksum of a table with deletion vectors that has none (one created before lakesink
   * kept them in step): Kernel cannot replay such a table into one (runHook), so it is computed
   * here, once, from the files, protocol, metadata and domain metadata of the version committed.
   * From it each later commit's checksum follows from the one before. Best effort, like the hooks.
   *
   * @return whether it was written (the next load reads it)
   */
  private boolean seedChecksum(TransactionCommitResult result) {
    long version = result.getVersion();
    return writeChecksum("first checksum", version, () -> {
      SnapshotImpl at = (SnapshotImpl) result.getPostCommitSnapshot()
          .orElseGet(() -> TableManager.loadSnapshot(location).atVersion(version).build(engine));
      List<TableFile> live = files(engine, at, location);
      return new CRCInfo(version, at.getMetadata(), at.getProtocol(), live.stream().mapToLong(TableFile::size).sum(),
          live.size(), Optional.empty(), Optional.of(Set.copyOf(at.getActiveDomainMetadataMap().values())), Optional.empty());
    });
  }

  /**
   * A widening commit's checksum: Kernel's carries the schema the transaction started with, so
   * it is written again with the table's metadata as of the commit (read back once). Without a
   * checksum every later commit would replay the log since the last checkpoint, as above; best
   * effort, like the hooks.
   */
  private void writeWidenedChecksum(TransactionCommitResult result) {
    Optional<CRCInfo> stale = result.getPostCommitSnapshot().flatMap(s -> ((SnapshotImpl) s).getCurrentCrcInfo());
    if (stale.isEmpty()) {
      return;
    }
    CRCInfo before = stale.get();
    writeChecksum("checksum of the widening commit", result.getVersion(), () -> {
      SnapshotImpl widened = (SnapshotImpl) TableManager.loadSnapshot(location).atVersion(result.getVersion()).build(engine);
      return new CRCInfo(result.getVersion(), widened.getMetadata(), widened.getProtocol(), before.getTableSizeBytes(),
          before.getNumFiles(), before.getTxnId(), before.getDomainMetadata(), before.getFileSizeHistogram());
    });
  }

  /** Writes {@code _delta_log/<version>.crc} as {@code checksum} makes it; returns whether it was written. */
  private boolean writeChecksum(String what, long version, Callable<CRCInfo> checksum) {
    try {
      new ChecksumWriter(new Path(location, "_delta_log")).writeCheckSum(engine, checksum.call());
      log.debug("Wrote the {} of {} (version {})", what, location, version);
      return true;
    } catch (Exception e) {
      log.warn("The {} of {} (version {}) was not written: {}", what, location, version, e.toString());
      return false;
    }
  }

  /**
   * Runs a post-commit hook (a checkpoint, which also removes expired log files); best effort.
   *
   * @param deletionVectors whether the snapshot the commit was made on has the deletionVectors
   *     feature (no commit of ours removes it; the one that adds it commits no vector)
   */
  static boolean runHook(Engine engine, PostCommitHook hook, String location, boolean deletionVectors) {
    if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_FULL && deletionVectors) {
      // Kernel 4.4 cannot write a full checksum of a table whose files mix adds with and without
      // deletion vectors (its JSON writer fails on the null vectors of the file list). Such a
      // table's checksums come from the one before (Kernel's simple checksum); DeltaTable seeds
      // the first of a table that has none (seedChecksum), a maintenance rewrite does without.
      log.debug("Skipping the full checksum of {}: the table has deletion vectors", location);
      return false;
    }
    try {
      hook.threadSafeInvoke(engine);
      return true;
    } catch (IOException | RuntimeException e) {
      // The commit itself succeeded; a missing checkpoint only slows readers down.
      log.warn("Post-commit {} for {} failed: {}", hook.getType(), location, e.toString());
      return false;
    }
  }

  /** Whether a snapshot's protocol has the deletionVectors feature (its files may carry vectors). */
  static boolean hasDeletionVectorFeature(Snapshot snapshot) {
    return ((SnapshotImpl) snapshot).getProtocol().getReaderFeatures().contains("deletionVectors");
  }

  /**
   * What one commit wrote and replaced.
   *
   * @param rowsWritten rows in the new files
   * @param filesRewritten files the commit removed (a MERGE rewrite)
   * @param filesWithDeletes files the commit deleted rows of with a deletion vector (kept, not rewritten)
   * @param rowsDeleted rows those deletion vectors newly delete, and rows of files removed whole
   *     ({@link PendingWrite#removeWhole})
   * @param rowsRewritten rows the removed files held
   * @param tableFiles files of the table when the commit was planned (as last listed)
   * @param tableRows rows of the table then
   */
  public record CommitStats(
      long rowsWritten, long filesRewritten, long filesWithDeletes, long rowsDeleted, long rowsRewritten,
      long tableFiles, long tableRows) {}

  /**
   * Parquet files written and actions ready to commit on {@code base}.
   *
   * @param rebaseable whether the commit may be moved onto a newer log (a blind append that
   *     keeps the schema); a rewrite must be planned again instead
   */
  public record PreparedAppend(
      Snapshot base,
      Transaction transaction,
      CommitOffsets offsets,
      Optional<Row> metadata,
      List<Row> dataActions,
      boolean rebaseable,
      int rows) {

    public boolean widensSchema() {
      return metadata.isPresent();
    }

    /** The data files the commit adds, as its log records them (to be read or taken over once it landed). */
    public List<TableFile> addedFiles() {
      List<TableFile> files = new ArrayList<>();
      for (Row action : dataActions) {
        int add = action.getSchema().indexOf("add");
        if (add >= 0 && !action.isNullAt(add)) {
          files.add(FileStats.of(new AddFile(action.getStruct(add)), null));
        }
      }
      return files;
    }

    /**
     * The same commit, never moved onto a newer log: for rows planned from what the table held
     * (a key it lacked is inserted), which another writer may have changed meanwhile. A lost
     * race then fails with {@link CommitConflictException}, to be planned again.
     */
    public PreparedAppend withoutRebase() {
      return new PreparedAppend(base, transaction, offsets, metadata, dataActions, false, rows);
    }

    /** One {@code txn} action per source partition, then the schema change, then the files. */
    CloseableIterable<Row> actions() {
      long now = System.currentTimeMillis();
      List<Row> all = new ArrayList<>();
      offsets.ordered().forEach((appId, next) ->
          all.add(SingleAction.createTxnSingleAction(new SetTransaction(appId, next, Optional.of(now)).toRow())));
      metadata.ifPresent(all::add);
      all.addAll(dataActions);
      return CloseableIterable.inMemoryIterable(toCloseableIterator(all.iterator()));
    }
  }
}
