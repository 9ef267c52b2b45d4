package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MERGE delivery: each batch applied in place to {@code <table>}, one row per key: the rows it
 * replaces are deleted with deletion vectors (a table created with them, {@link
 * MergeSettings.DeletionVectors}), or the files that hold them are rewritten (copy-on-write). The
 * vectors or removes, the new files and the source offsets go in one Delta commit.
 *
 * <p>Per batch: the latest change of each key wins ({@link MergeBatch}), and it applies only if it
 * ranks at or above the stored row ({@link TableMerge}), as the current-state view ranks changes;
 * {@code c}/{@code u}/{@code r} (or no operation) update or insert the row, {@code d} removes it,
 * {@code t} removes every row ranked below it ({@link Truncations}).
 * Each record is keyed on the primary key, else on its own record key ({@link RecordKeys}). A
 * merge streams the files it reads ({@link TableMerge}), so a table of any size merges within the
 * same memory. The rows of an initial snapshot are staged and published together.
 */
public final class MergeDelivery extends BufferedDelivery {
  private static final Logger log = LoggerFactory.getLogger(MergeDelivery.class);
  /**
   * A snapshot batch with at least this many keys reads the table's keys once when they are not
   * known ({@link TableKeys}): one read of every file, where looking for them would read most files anyway.
   */
  static final int SCAN_KEYS_FROM = 10_000;
  /**
   * What ranks a merged row's change ({@link io.lakesink.view.ChangeOrder}): every merged table
   * keeps them, so a later batch never overwrites a row with an older change. {@code
   * __rank_ts_ms} is the change's rank time, which its key's earlier changes in its partition may
   * have raised above its {@code __ts_ms} (a table from before it gains it; null reads as {@code
   * __ts_ms}).
   */
  static final List<Column> ORDERING = List.of(
      new Column(ChangelogColumns.TS_MS, ColumnType.BIGINT),
      new Column(ChangelogColumns.PARTITION, ColumnType.INT),
      new Column(ChangelogColumns.OFFSET, ColumnType.BIGINT),
      new Column(ChangelogColumns.RANK_TS_MS, ColumnType.BIGINT));
  /** Without a column mapping, the merged table also keeps the operation. */
  static final List<Column> ENVELOPE =
      Stream.concat(Stream.of(new Column(ChangelogColumns.OP, ColumnType.STRING)), ORDERING.stream()).toList();

  private final MergeSettings settings;
  private final List<Column> metadata;
  /** Without a column mapping, rows also keep {@code __op}. */
  private final boolean keepsOperation;
  private final RecordKeys keys;
  private final DeletedKeys deletedKeys = new DeletedKeys();
  private final Truncations truncations = new Truncations();
  private KeyFilters filters;
  /** Every key the table may hold at one version ({@link TableKeys}); null when not known. */
  private TableKeys tableKeys;
  /** Batch keys merges inserted without reading a file, because the table provably lacked them. */
  private long keysKnownAbsent;
  /** Files merges read since the start, and those their key filter ruled out (not read). */
  private long filesRead;
  private long bytesOfFilesRead;
  private long skippedByKeyFilters;
  private boolean warnedNoKey;
  private boolean snapshotEndSeen;
  private int nonSnapshotEvents;
  private long lastAcceptedMillis;

  public MergeDelivery(
      Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context, MergeSettings settings) {
    super(subscription, table, sibling, context);
    this.settings = settings;
    this.keepsOperation = subscription.columns().isEmpty();
    this.metadata = keepsOperation ? ENVELOPE : ORDERING;
    this.keys = new RecordKeys(tableName(), subscription.primaryKey());
  }

  @Override
  public void accept(ChangeEvent event) {
    int before = buffered().size();
    if (before == 0) {
      resetStaging();
    }
    super.accept(event);
    if (buffered().size() > before) {
      lastAcceptedMillis = clock.millis();
      if (event.op() != Operation.READ) {
        nonSnapshotEvents++;
      }
      snapshotEndSeen |= event.snapshotEnd();
    }
  }

  /**
   * While a buffer holds only snapshot reads, it is staged: published when the snapshot ends,
   * after a quiet period, or at the row cap, so readers never see half a snapshot.
   */
  @Override
  public boolean flushDue(long nowMillis) {
    if (!buffered().isEmpty() && nonSnapshotEvents == 0 && state().delivering()) {
      return snapshotEndSeen
          || buffered().size() >= settings.snapshotMaxRows()
          || nowMillis - lastAcceptedMillis >= settings.snapshotIdle().toMillis();
    }
    return super.flushDue(nowMillis);
  }

  @Override
  protected long write(List<ChangeEvent> events, CommitOffsets offsets) {
    if (settings.deletionVectors() == MergeSettings.DeletionVectors.ALL && table.exists() && !table.deletionVectorsEnabled()) {
      table.enableDeletionVectors(); // the operator opted in (docs/merge.md): one commit of its own
    }
    Truncations.Cut cut = truncations.cut(events);
    boolean keyed = !keys.appendOnly(cut.changes());
    // A truncate carries no row; a change ranked below one is gone with it: without a key at its
    // own time, with one at its rank, which the key's stored row may raise (MergeBatch decides).
    events = keyed ? cut.changes() : cut.aboveFloor();
    List<Column> existing = table.columns().orElse(List.of());
    RowLayout layout = new RowLayout(tableName(), existing, events, metadata);
    List<Object[]> rows = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      rows.add(withMetadata(layout, e, layout.row(e)));
    }
    // Nothing but the columns, offsets and properties: the rows are written file by file.
    AppendRequest request = new AppendRequest(layout.columns(), List.of(), Map.of(), List.of(), offsets, tableProperties());
    DeltaTable.PendingWrite pending;
    TableMerge merge;
    MergeBatch keyedBatch = null;
    if (!keyed && cut.truncates()) {
      // Nothing to match on, but the truncate still removes what ranks below it: a merge of no
      // key, then the batch appended.
      pending = table.begin(request);
      merge = mergeInto(layout, new MergeBatch(List.of(), List.of(), List.of(), cut.floor()), pending, cut.at());
      merge.rows.addAll(TableMerge.append(events, rows).rows);
    } else if (!keyed) {
      // Without a key there is nothing to match on: updates accumulate, deletes are not applied.
      if (!warnedNoKey) {
        log.warn("Table {} has no primary key (none configured, none in the record key): rows are appended,"
            + " updates accumulate and deletes are not applied", tableName());
        warnedNoKey = true;
      }
      pending = table.begin(request);
      merge = TableMerge.append(events, rows);
    } else {
      MergeBatch batch = batch(layout, events, rows, cut.floor());
      pending = table.begin(request);
      merge = mergeInto(layout, batch, pending, cut.at());
      keyedBatch = batch;
    }
    merge.writeRows(pending);
    resetStaging();
    DeltaTable.PreparedAppend prepared = pending.prepare(merge.rewritten);
    if (keyed || cut.truncates()) {
      // Inserts too were planned from the keys the log showed: another writer of the table (a
      // backfill, docs/backfill.md) may have added one since, so a lost race plans them again.
      // A truncate removes the files the log showed: one added since must be read too.
      prepared = prepared.withoutRebase();
    }
    beforeCommit();
    long base = pending.baseVersion();
    TableKeys known = tableKeys;
    tableKeys = null; // until the commit is known to land right on top of what it describes
    long version = table.commit(prepared);
    advance(known, keyedBatch, base, version);
    merge.remember(deletedKeys);
    truncations.applied(cut);
    return version;
  }

  private MergeBatch batch(RowLayout layout, List<ChangeEvent> events, List<Object[]> rows, ChangeOrder floor) {
    Set<String> columns = new HashSet<>(layout.columns().stream().map(Column::name).toList());
    Map<List<String>, KeyColumns> located = new HashMap<>();
    List<KeyColumns> keyOfEach = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      keyOfEach.add(located.computeIfAbsent(keys.of(e, columns), names -> KeyColumns.of(names, layout)));
    }
    MergeBatch batch = new MergeBatch(events, rows, keyOfEach, floor);
    if (batch.emptyKeys > 0) {
      log.warn("Dropped {} rows of {} whose key ({}) is empty", batch.emptyKeys, tableName(),
          batch.keyColumns().stream().map(k -> String.join(", ", k.names())).distinct().toList());
    }
    return batch;
  }

  /**
   * Merges the batch into the files of the snapshot {@code pending} commits on.
   *
   * @param cut the batch's truncate: the stored rows ranked below it go; null without one
   */
  private TableMerge mergeInto(RowLayout layout, MergeBatch batch, DeltaTable.PendingWrite pending, ChangeOrder cut) {
    List<TableFile> files = table.files();
    TableKeys known = knownKeys(layout, batch, files, pending.baseVersion(), cut);
    if (files.isEmpty()) {
      TableMerge first = TableMerge.merge(null, pending, files, layout, batch, deletedKeys, false, cut, null, known);
      keysKnownAbsent += first.keysKnownAbsent;
      return first;
    }
    TableMerge merge = TableMerge.merge(table.positionedReader(layout.columns(), TableMerge.columnsRead(batch)), pending,
        files, layout, batch, deletedKeys, table.deletionVectorsEnabled(), cut, keyFilters(), known);
    skippedByKeyFilters += merge.filesSkippedByFilter;
    filesRead += merge.filesRead;
    bytesOfFilesRead += merge.bytesOfFilesRead;
    keysKnownAbsent += merge.keysKnownAbsent;
    log.debug("Merge into {}: {} files, {} read ({} more ruled out by their key filter, {} keys known absent), {} rewritten"
            + " ({} rows, {} bytes), {} with rows deleted by deletion vectors ({} rows), {} rows written", tableName(),
        files.size(), merge.filesRead, merge.filesSkippedByFilter, merge.keysKnownAbsent, merge.rewritten.size(),
        merge.rowsRewritten, merge.bytesRewritten, merge.filesWithDeletes, merge.rowsDeleted, merge.rows.size());
    return merge;
  }

  /**
   * The table's keys for this batch, when they are known at the version the batch is planned on
   * ({@link TableKeys}): kept from the last commit when nothing else committed since; started
   * empty when the table has no file; read from every file once when the batch holds only
   * snapshot reads (a snapshot resumed after a restart, or after another writer's commit), which
   * saves the snapshot's later commits reading every file. Null otherwise: a batch with a
   * truncate, or keyed on several column sets, looks in the files as before.
   */
  private TableKeys knownKeys(RowLayout layout, MergeBatch batch, List<TableFile> files, long version, ChangeOrder cut) {
    if (cut != null || batch.keyColumns().size() != 1) {
      tableKeys = null;
      return null;
    }
    KeyColumns key = batch.keyColumns().get(0);
    if (tableKeys != null && tableKeys.describes(version, key)) {
      return tableKeys;
    }
    tableKeys = null;
    if (files.isEmpty()) {
      tableKeys = TableKeys.empty(key, version);
    } else if (batch.latest.values().stream().allMatch(MergeBatch.Changes::allReads)
        && batch.latest.size() >= SCAN_KEYS_FROM) {
      long start = System.nanoTime();
      tableKeys = TableKeys.scan(table.positionedReader(layout.columns(), key.names()), files, key, version)
          .filter(TableKeys::fits).orElse(null);
      log.info("Read the keys of {} ({} files) for its snapshot in {} ms: {}", tableName(), files.size(),
          (System.nanoTime() - start) / 1_000_000, tableKeys == null ? tooMany() : tableKeys.bytes() + " bytes");
    }
    return tableKeys;
  }

  /**
   * After a commit: the table's keys follow it when it landed right on top of the version they
   * described (nothing else committed between), with every key of the batch; else they are forgotten.
   */
  private void advance(TableKeys known, MergeBatch batch, long base, long version) {
    if (known == null || batch == null || version != base + 1 || known.version() != base) {
      return;
    }
    known.committed(batch.latest.keySet(), version);
    if (!known.fits()) {
      log.info("The keys of {}: {}; merges look for every key in the files", tableName(), tooMany());
      return;
    }
    tableKeys = known;
  }

  private static String tooMany() {
    return "more than " + (TableKeys.MAX_BYTES >> 20) + " MiB, or more than all tables' "
        + (TableKeys.ALL_TABLES_BYTES >> 20) + " MiB with the others', not kept";
  }

  /** Batch keys inserted without reading any file: the table provably lacked them ({@link TableKeys}). */
  public long keysKnownAbsent() {
    return keysKnownAbsent;
  }

  /** Files merges read (their key and ordering columns) since this delivery started. */
  public long filesRead() {
    return filesRead;
  }

  /** The on-disk size of the files merges read since this delivery started (they read only some columns of them). */
  public long bytesOfFilesRead() {
    return bytesOfFilesRead;
  }

  /** Candidate files (by key range) that merges did not read because their key filter ruled them out. */
  public long skippedByKeyFilters() {
    return skippedByKeyFilters;
  }

  /** The table's key filters, made once; null when they are off or its storage hands out no file access. */
  private KeyFilters keyFilters() {
    if (filters == null && settings.keyFilters()) {
      try {
        filters = new KeyFilters(table.fileIO(), table.location());
      } catch (IllegalStateException noFileAccess) {
        log.debug("No key filters for {}: {}", tableName(), noFileAccess.getMessage());
      }
    }
    return filters;
  }

  /** The change's metadata columns: {@code __op} (without a mapping), and what orders it. */
  private Object[] withMetadata(RowLayout layout, ChangeEvent e, Object[] row) {
    if (keepsOperation) {
      row[layout.slot(ChangelogColumns.OP)] = e.op() == null ? null : e.op().code();
    }
    row[layout.slot(ChangelogColumns.TS_MS)] = e.tsMs();
    row[layout.slot(ChangelogColumns.RANK_TS_MS)] = e.tsMs(); // until a merge ranks it (MergeBatch)
    row[layout.slot(ChangelogColumns.PARTITION)] = e.position().partition();
    row[layout.slot(ChangelogColumns.OFFSET)] = e.position().offset();
    return row;
  }

  private void resetStaging() {
    snapshotEndSeen = false;
    nonSnapshotEvents = 0;
  }

  @Override
  protected Map<String, String> tableProperties() {
    if (settings.deletionVectors() == MergeSettings.DeletionVectors.NONE) {
      return Map.of("delta.checkpointInterval", "10");
    }
    // A new table gets deletion vectors (docs/merge.md): merges then delete replaced rows by
    // position instead of rewriting every file that holds one.
    return Map.of("delta.checkpointInterval", "10", DeltaTable.ENABLE_DELETION_VECTORS, "true");
  }
}
