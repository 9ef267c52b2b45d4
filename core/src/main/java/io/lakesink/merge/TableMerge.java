package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.DeltaTable.PendingWrite;
import io.lakesink.delta.FileRowReader;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one batch does to the table: the files it rewrote (already written), the rows of keys the
 * table does not hold, plus the deletes to remember once committed.
 *
 * <p>A keyed batch is merged with deletion vectors when the table has them ({@link
 * #mergeWithDeletionVectors}: the replaced rows are deleted by position, the changed rows written
 * with the inserts), else copy-on-write, file by file: each file that may hold a batch key is
 * read, merged and, when a change applies to one of its rows, written again at once, sorted by
 * the key, before the next file is read; so a merge holds one file's rows per lane ({@link
 * ParallelFiles}), not the table's. A change applies when it ranks at or above the stored row
 * ({@link ChangeOrder}): a row written by a later change stays, whatever order the changes arrive
 * in. A change of a key the table does not hold is inserted, unless a later delete of that key
 * was applied before ({@link DeletedKeys}); the inserts go to a file of their own, sorted too.
 *
 * <p>A batch with a truncate ({@code cut}) reads every file: each stored row ranked below the
 * truncate goes, with the file when none of its rows stays; the batch (only its changes ranked
 * above the truncate, {@link Truncations}) is merged into what is left, in the same commit.
 */
final class TableMerge {
  /** Files merged at once: this machine's cores, up to two (each lane holds one file's rows). */
  static final int LANES = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));

  /** Rows to write besides the rewritten files: inserts (sorted by key), or an append-only batch. */
  final List<Object[]> rows = new ArrayList<>();
  final List<TableFile> rewritten = new ArrayList<>();
  private final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
  private final Set<RowKey> written = new HashSet<>();
  int filesRead;
  long rowsRewritten;
  long bytesRewritten;
  /** Files whose replaced rows a deletion vector deletes (kept, not rewritten), and those rows. */
  int filesWithDeletes;
  long rowsDeleted;

  private TableMerge() {}

  /** A table that never had a key: rows are appended, deletes are not applied. */
  static TableMerge append(List<ChangeEvent> events, List<Object[]> rows) {
    TableMerge m = new TableMerge();
    for (int i = 0; i < events.size(); i++) {
      if (!events.get(i).isDelete()) {
        m.rows.add(rows.get(i));
      }
    }
    return m;
  }

  /**
   * @param files the table's files, already checked against the size limit
   * @param reader reads a file into rows laid out as {@code layout}
   * @param out where the rewritten files are written, as each is merged
   */
  static TableMerge merge(
      FileRowReader reader, PendingWrite out, List<TableFile> files, RowLayout layout, MergeBatch batch, DeletedKeys deleted,
      ChangeOrder cut) {
    TableMerge m = new TableMerge();
    Comparator<Object[]> order = order(batch);
    Ranks ranks = new Ranks(layout, cut);
    List<TableFile> candidates = candidates(files, layout, batch, cut);
    List<FileMerge> merged = ParallelFiles.map(candidates, LANES, file -> {
      FileMerge f = FileMerge.of(file, reader.read(file), batch, ranks);
      if (f.touched && f.kept.isEmpty() && cut != null) {
        out.removeWhole(file); // a truncate left none of its rows: nothing to write back
        f.touched = false;
        f.emptied = true;
      } else if (f.touched) {
        f.kept.sort(order); // usually nearly sorted already: the file was written sorted
        out.write(f.kept);
      }
      f.kept = null; // written: only the rows of the files being merged stay reachable
      return f;
    });
    Set<RowKey> found = new HashSet<>();
    for (FileMerge f : merged) {
      m.filesRead++;
      found.addAll(f.found);
      if (f.emptied) {
        m.deletes.putAll(f.deletes);
      } else if (f.touched) {
        m.rewritten.add(f.file);
        m.rowsRewritten += Math.max(0, f.file.rows());
        m.bytesRewritten += f.file.size();
        m.deletes.putAll(f.deletes);
        m.written.addAll(f.written);
      }
    }
    m.insertMissing(batch, found, deleted, order);
    return m;
  }

  /**
   * Merges the batch with deletion vectors: of each file that may hold a batch key only the key
   * and ordering columns are read, the rows a change replaces or deletes are deleted by position
   * ({@link PendingWrite#deleteRows}, on top of the file's current vector), and the changed rows
   * go to the new file with the inserts. No file is rewritten.
   *
   * @param reader reads the key and ordering columns ({@link #columnsRead}) with row positions
   */
  static TableMerge mergeWithDeletionVectors(
      PositionedRowReader reader, PendingWrite out, List<TableFile> files, RowLayout layout, MergeBatch batch,
      DeletedKeys deleted, ChangeOrder cut) {
    TableMerge m = new TableMerge();
    Comparator<Object[]> order = order(batch);
    Ranks ranks = new Ranks(layout, cut);
    List<TableFile> candidates = candidates(files, layout, batch, cut);
    List<FileDeletes> merged = ParallelFiles.map(candidates, LANES, file -> FileDeletes.of(file, reader.read(file), batch, ranks));
    Set<RowKey> found = new HashSet<>();
    Set<MergeBatch.Change> changed = Collections.newSetFromMap(new IdentityHashMap<>());
    for (FileDeletes f : merged) {
      m.filesRead++;
      found.addAll(f.found);
      if (cut != null && f.positions.length > 0 && f.positions.length == f.liveRows) {
        out.removeWhole(f.file); // a truncate left none of its rows: the file goes, no vector needed
        m.deletes.putAll(f.deletes);
        m.written.addAll(f.written);
        changed.addAll(f.upserts);
      } else if (f.positions.length > 0) {
        out.deleteRows(f.file, f.positions);
        m.filesWithDeletes++;
        m.rowsDeleted += f.positions.length;
        m.deletes.putAll(f.deletes);
        m.written.addAll(f.written);
        changed.addAll(f.upserts);
      }
    }
    // Each change once, however many stored rows it replaced (a key held twice, or key columns that changed).
    changed.forEach(c -> m.rows.add(c.row()));
    m.insertMissing(batch, found, deleted, order);
    return m;
  }

  /** The columns a merge with deletion vectors reads: every key column of the batch, and the ordering ones. */
  static List<String> columnsRead(MergeBatch batch) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    batch.keyColumns().forEach(k -> names.addAll(k.names()));
    names.addAll(List.of(ChangelogColumns.TS_MS, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET));
    return List.copyOf(names);
  }

  /** Every file, when a truncate may remove rows of any; else those that may hold a batch key. */
  private static List<TableFile> candidates(List<TableFile> files, RowLayout layout, MergeBatch batch, ChangeOrder cut) {
    return cut != null ? files : FilePruning.candidates(files, keysByColumns(layout, batch));
  }

  /** Rows sorted by the batch's first key; a batch without one (a truncate alone) has nothing to sort. */
  private static Comparator<Object[]> order(MergeBatch batch) {
    return batch.keyColumns().isEmpty() ? (a, b) -> 0 : new KeyOrder(batch.keyColumns().get(0));
  }

  /** Adds the changes of keys the table does not hold (any more), then sorts the rows to write by key. */
  private void insertMissing(MergeBatch batch, Set<RowKey> found, DeletedKeys deleted, Comparator<Object[]> order) {
    batch.latest.forEach((key, change) -> {
      ChangeOrder deletedAt = deleted.deletedAt(key);
      if (!found.contains(key) && (deletedAt == null || !deletedAt.isAfter(change.order()))) {
        applied(List.of(key), change, rows, deletes, written); // a key the table does not hold (any more)
      }
    });
    rows.sort(order);
  }

  /** One file's rows a batch replaces or deletes, by position. */
  private static final class FileDeletes {
    final TableFile file;
    final Set<RowKey> found = new HashSet<>();
    final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
    final Set<RowKey> written = new HashSet<>();
    final List<MergeBatch.Change> upserts = new ArrayList<>();
    long[] positions;
    int liveRows;

    private FileDeletes(TableFile file) {
      this.file = file;
    }

    static FileDeletes of(TableFile file, PositionedRowReader.Rows stored, MergeBatch batch, Ranks ranks) {
      FileDeletes f = new FileDeletes(file);
      f.liveRows = stored.rows().size();
      long[] positions = new long[16];
      int n = 0;
      for (int i = 0; i < stored.rows().size(); i++) {
        Object[] row = stored.rows().get(i);
        if (ranks.truncated(row)) {
          if (n == positions.length) {
            positions = Arrays.copyOf(positions, n * 2);
          }
          positions[n++] = stored.positions()[i]; // its key is not found: a batch change inserts it
          continue;
        }
        List<RowKey> keys = batch.keysOf(row);
        if (keys.isEmpty()) {
          continue;
        }
        f.found.addAll(keys);
        MergeBatch.Change change = batch.latestOf(keys);
        if (ranks.of(row).isAfter(change.order())) {
          continue; // written by a later change than the batch's
        }
        if (n == positions.length) {
          positions = Arrays.copyOf(positions, n * 2);
        }
        positions[n++] = stored.positions()[i];
        if (change.deletes()) {
          keys.forEach(k -> f.deletes.put(k, change.order()));
        } else {
          f.upserts.add(change);
          f.written.addAll(keys);
        }
      }
      f.positions = Arrays.copyOf(positions, n);
      return f;
    }
  }

  /** One file merged with the batch: the rows to write back if a change applied to one. */
  private static final class FileMerge {
    final TableFile file;
    List<Object[]> kept;
    final Set<RowKey> found = new HashSet<>();
    final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
    final Set<RowKey> written = new HashSet<>();
    boolean touched;
    /** A truncate removed every row: the file is removed whole, nothing is written back. */
    boolean emptied;

    private FileMerge(TableFile file, List<Object[]> kept) {
      this.file = file;
      this.kept = kept;
    }

    static FileMerge of(TableFile file, List<Object[]> stored, MergeBatch batch, Ranks ranks) {
      FileMerge f = new FileMerge(file, new ArrayList<>(stored.size() + 16));
      for (Object[] row : stored) {
        if (ranks.truncated(row)) {
          f.touched = true; // written back without it; its key is not found: a batch change inserts it
          continue;
        }
        List<RowKey> keys = batch.keysOf(row);
        if (keys.isEmpty()) {
          f.kept.add(row); // not in the batch
          continue;
        }
        f.found.addAll(keys);
        MergeBatch.Change change = batch.latestOf(keys);
        if (ranks.of(row).isAfter(change.order())) {
          f.kept.add(row); // written by a later change than the batch's
          continue;
        }
        f.touched = true;
        applied(keys, change, f.kept, f.deletes, f.written);
      }
      return f;
    }
  }

  private static void applied(
      List<RowKey> keys, MergeBatch.Change change, List<Object[]> out, Map<RowKey, ChangeOrder> deletes, Set<RowKey> written) {
    if (change.deletes()) {
      keys.forEach(k -> deletes.put(k, change.order()));
    } else {
      out.add(change.row());
      written.addAll(keys);
    }
  }

  /** Once committed: the deletes are remembered, and keys written again are no longer deleted. */
  void remember(DeletedKeys deleted) {
    deletes.forEach(deleted::deleted);
    written.forEach(deleted::reinserted);
  }

  /** Where a stored row ranks, from its ordering columns (null when it predates them). */
  private static final class Ranks {
    private final int ts;
    private final int partition;
    private final int offset;
    private final ChangeOrder cut;

    Ranks(RowLayout layout, ChangeOrder cut) {
      ts = layout.slot(ChangelogColumns.TS_MS);
      partition = layout.slot(ChangelogColumns.PARTITION);
      offset = layout.slot(ChangelogColumns.OFFSET);
      this.cut = cut;
    }

    /** Whether the batch's truncate removes the row: it ranks below the truncate. */
    boolean truncated(Object[] row) {
      return cut != null && cut.isAfter(of(row));
    }

    ChangeOrder of(Object[] row) {
      return new ChangeOrder(
          row[ts] == null ? null : ((Number) row[ts]).longValue(),
          row[partition] == null ? null : ((Number) row[partition]).intValue(),
          row[offset] == null ? null : ((Number) row[offset]).longValue());
    }
  }

  private static Map<List<Column>, List<List<Object>>> keysByColumns(RowLayout layout, MergeBatch batch) {
    Map<List<Column>, List<List<Object>>> out = new LinkedHashMap<>();
    for (KeyColumns k : batch.keyColumns()) {
      List<Column> columns = k.names().stream().map(n -> layout.columns().get(layout.slot(n))).toList();
      out.put(columns, batch.keys(k));
    }
    return out;
  }
}
