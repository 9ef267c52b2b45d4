package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.DeltaTable.PendingWrite;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.delta.WrittenFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one batch does to the table: the files it rewrote (already written), the rows of keys the
 * table does not hold, plus the deletes to remember once committed.
 *
 * <p>A keyed batch is merged file by file ({@link #merge}), on a few lanes ({@link
 * ParallelFiles}): the key and ordering columns of each file that may hold a batch key are
 * streamed, the rows a change replaces are found by position and deleted with a deletion vector
 * when the table has them, else the file is copied without them (copy-on-write, streamed as
 * well). A change applies when it ranks at or above the stored row
 * ({@link ChangeOrder}, {@link MergeBatch.Changes#over}): a row written by a later change stays,
 * whatever order the changes arrive in. A change of a key the table does not hold is inserted, unless a later delete of that key
 * is known ({@link DeleteHistory}); the inserts go to a file of their own, sorted too.
 *
 * <p>A batch with a truncate ({@code cut}) reads every file: each stored row ranked below the
 * truncate goes, with the file when none of its rows stays ({@link PendingWrite#removeWhole}); the
 * batch (only its changes ranked above the truncate, {@link Truncations}) is merged into what is
 * left, in the same commit.
 */
final class TableMerge {
  /** Files merged at once: this machine's cores, up to two (each lane holds a Parquet batch of its file). */
  static final int LANES = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));

  /** Rows to write besides the rewritten files: inserts (sorted by key), or an append-only batch. */
  final ArrayList<Object[]> rows = new ArrayList<>();
  final List<TableFile> rewritten = new ArrayList<>();
  private final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
  /** Of {@link #deletes}, the keys the table did not hold: a delete ranked above the one known. */
  private final Set<RowKey> deletedAbsent = new HashSet<>();
  /** Keys the batch writes: collected only for a history that forgets their deletes ({@link DeleteHistory#forgetsRewrittenKeys}). */
  private final Set<RowKey> written = new HashSet<>();
  int filesRead;
  /** Whether the stored rows of the batch's keys were found in a {@link KeyLocations}, no file read. */
  boolean located;
  /** Of the rows to write, those replacing a stored row found there, with where it was (by identity). */
  private Map<Object[], KeyLocations.Stored> relocated = Map.of();
  /** What the rows written are sorted by ({@link #sort}); null for a table without a key. */
  private KeyOrder order;
  /** What ranks a stored row, and what keys the rows written: the index moves on with them ({@link #moveOn}). */
  private Ranks ranks;
  private KeyColumns key;
  /** The on-disk size of the files read (of which only the key and ordering columns are read). */
  long bytesOfFilesRead;
  /** Batch keys the table provably does not hold ({@link TableKeys}): inserted without a file read. */
  int keysKnownAbsent;
  /** Candidate files by key range that their key filter ruled out: not read. */
  int filesSkippedByFilter;
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
   * Merges the batch into the table's files: of each file that may hold a batch key only the key
   * and ordering columns are read, streamed, and the rows a change replaces or deletes are found
   * by position. With deletion vectors ({@code vectors}) those positions are deleted by the
   * file's new vector ({@link PendingWrite#deleteRows}, on top of its current one), and the
   * changed rows go to the new file with the inserts; without, the file is copied without them,
   * streamed too, with the changed rows of its keys at its end ({@link PendingWrite#rewrite}),
   * and the commit removes it. So a merge holds one Parquet batch per lane of the files it reads,
   * the batch, and what the batch's keys found, whatever the size of the table or of its files.
   *
   * @param reader reads the key and ordering columns ({@link #columnsRead}) with row positions
   * @param cut the batch's truncate: every stored row ranked below it goes; null without one
   * @param known every key the table may hold ({@link TableKeys}), or null: a batch key it does
   *     not hold is inserted without looking for it in any file
   */
  static TableMerge merge(
      PositionedRowReader reader, PendingWrite out, List<TableFile> files, RowLayout layout, MergeBatch batch,
      DeleteHistory deleted, boolean vectors, ChangeOrder cut, KeyFilters filters, TableKeys known) {
    return merge(reader, out, files, layout, batch, deleted, vectors, cut, filters, known, null);
  }

  /**
   * @param locations where the table's keys are, or null: when it describes the table this
   *     commit is planned on, the batch's stored rows are found in it and no file is read
   *     (only with deletion vectors and without a truncate)
   */
  static TableMerge merge(
      PositionedRowReader reader, PendingWrite out, List<TableFile> files, RowLayout layout, MergeBatch batch,
      DeleteHistory deleted, boolean vectors, ChangeOrder cut, KeyFilters filters, TableKeys known,
      KeyLocations locations) {
    TableMerge m = new TableMerge();
    m.rows.ensureCapacity(batch.latest.size()); // a row per key, about: not grown a few dozen times
    List<TableFile> holding = withoutEmptied(files, out);
    KeyOrder order = order(batch);
    m.order = order;
    Ranks ranks = new Ranks(layout, cut);
    m.ranks = ranks;
    m.key = batch.keyColumns().size() == 1 ? batch.keyColumns().get(0) : null;
    boolean collectWritten = deleted.forgetsRewrittenKeys();
    List<FileDeletes> found = null;
    if (locations != null && vectors && cut == null && m.key != null
        && locations.describes(out.baseVersion(), m.key)) {
      m.relocated = new IdentityHashMap<>(batch.latest.size());
      found = FileDeletes.located(locations, holding, batch, ranks, collectWritten, m.relocated);
    }
    if (found != null) {
      m.located = true;
      m.settle(found, out, vectors, Set.of());
      m.insertMissing(batch, deleted, order, ranks);
      return m;
    }
    // Only the keys the table may hold are looked for: the others are inserted whatever the files say.
    Map<List<Column>, List<List<Object>>> searched = keysByColumns(layout, batch, cut == null ? known : null);
    m.keysKnownAbsent = batch.latest.size() - searched.values().stream().mapToInt(List::size).sum();
    // A truncate may remove rows of any file; else only files that may hold a searched key are read.
    List<TableFile> candidates = cut != null ? holding
        : searched.values().stream().allMatch(List::isEmpty) ? List.of() : FilePruning.candidates(holding, searched);
    // Key filters answer for one set of key columns (not while the record key's fields change),
    // and only for the batch's keys (not when a truncate reads every file).
    KeyColumns filtered = filters != null && cut == null && batch.keyColumns().size() == 1 ? batch.keyColumns().get(0) : null;
    List<List<Object>> batchKeys = filtered == null ? List.of() : searched.values().iterator().next();
    // Each change is written once, however many stored rows it replaced (a key held twice, or
    // key columns that changed): copy-on-write, into the rewrite of the first file that claims it.
    Set<MergeBatch.Change> claimed = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    // Made here, before the lanes start, and only read by them.
    Utf8Keys stringKeys = cut == null ? batch.stringKeys() : null;
    List<FileDeletes> scanned = ParallelFiles.map(candidates, LANES, file -> {
      KeyFilter building = null;
      if (filtered != null) {
        Optional<KeyFilter> filter = filters.find(file, filtered.names());
        if (filter.isPresent() && batchKeys.stream().noneMatch(filter.get()::mayContain)) {
          return null; // none of the batch's keys can be in the file: not read
        }
        building = filter.isEmpty() && file.physicalRows() >= 0 ? KeyFilter.forKeys(file.physicalRows()) : null;
      }
      KeyFilter built = building;
      FileDeletes f = FileDeletes.of(file, reader, batch, stringKeys, ranks, built, filtered, collectWritten);
      if (built != null) {
        filters.save(file, filtered.names(), built);
      }
      if (f.emptied()) {
        out.removeWhole(file); // a truncate left none of its rows: nothing to copy or delete by vector
      } else if (f.positions.length > 0 && !vectors) {
        // On this lane: streamed as the read was. The changed rows have the keys of rows the file
        // held, so the file keeps its key range and later merges still skip it.
        List<Object[]> changedHere = new ArrayList<>();
        f.upserts.stream().filter(claimed::add).forEach(c -> changedHere.add(c.row()));
        order.sort(changedHere);
        out.rewrite(file, f.positions, changedHere);
      }
      return f;
    });
    List<FileDeletes> merged = scanned.stream().filter(java.util.Objects::nonNull).toList();
    m.filesSkippedByFilter = candidates.size() - merged.size();
    for (FileDeletes f : merged) {
      m.filesRead++;
      m.bytesOfFilesRead += Math.max(0, f.file.size());
    }
    // Only copy-on-write claims changes: with deletion vectors none is looked up in the (synchronized) set.
    m.settle(merged, out, vectors, claimed.isEmpty() ? Set.of() : claimed);
    m.insertMissing(batch, deleted, order, ranks);
    return m;
  }

  /** Deletes or rewrites what each file's changes replace, and collects the rows they write. */
  private void settle(List<FileDeletes> merged, PendingWrite out, boolean vectors, Set<MergeBatch.Change> rewrote) {
    // Sized for the changes found: grown from the default, it was rehashed a dozen times per follow.
    int found = merged.stream().mapToInt(f -> f.upserts.size()).sum();
    Set<MergeBatch.Change> changed = Collections.newSetFromMap(new IdentityHashMap<>(found));
    for (FileDeletes f : merged) {
      if (f.emptied()) {
        deletes.putAll(f.deletes);
        written.addAll(f.written);
        addChanged(f, rewrote, changed); // written to the new file: no rewrite claimed them
      } else if (f.positions.length > 0) {
        if (vectors) {
          out.deleteRows(f.file, f.positions);
          filesWithDeletes++;
          rowsDeleted += f.positions.length;
        } else {
          rewritten.add(f.file);
          rowsRewritten += Math.max(0, f.file.rows());
          bytesRewritten += f.file.size();
        }
        deletes.putAll(f.deletes);
        written.addAll(f.written);
        addChanged(f, rewrote, changed);
      }
    }
  }

  /**
   * The locations of the table's keys, read from {@code files} (the table at {@code version}),
   * each row ranked as a merge ranks it; empty when they cannot be kept ({@link KeyLocations#read}).
   */
  static Optional<KeyLocations> locate(
      PositionedRowReader reader, List<TableFile> files, RowLayout layout, KeyColumns key, long version) {
    Ranks ranks = new Ranks(layout, null);
    return KeyLocations.read(reader, files, key, version, ranks::of);
  }

  /**
   * This merge's commit landed at {@code newVersion}, right on top of the version {@code
   * locations} describes: they move on with the keys it deleted and the rows it wrote into
   * {@code files} ({@code placed}: this merge's rows in the order they fill them). False when they
   * cannot (then they describe nothing any more).
   */
  boolean moveOn(KeyLocations locations, List<Object[]> placed, List<WrittenFile> files, long newVersion) {
    // Only a merge that found its stored rows there: a truncate or a copy-on-write rewrite moves
    // rows no key of the batch names.
    if (!located || newVersion != locations.version() + 1) {
      return false;
    }
    return locations.committed(deletes.keySet(), key, placed, relocated, ranks::of, files, newVersion);
  }

  /**
   * The files that hold a live row. One whose deletion vector deletes every row (written before
   * lakesink removed such files, or by another engine) holds nothing a change could find: it is
   * not read, and it goes with this commit, as a file a merge empties does.
   */
  private static List<TableFile> withoutEmptied(List<TableFile> files, PendingWrite out) {
    List<TableFile> holding = new ArrayList<>(files.size());
    for (TableFile f : files) {
      if (f.rows() == 0 && f.hasDeletionVector()) {
        out.removeWhole(f);
      } else {
        holding.add(f);
      }
    }
    return holding;
  }

  /**
   * Adds the rows the file's changes write to the new file: each change once (a key the table
   * held twice is found twice), none a copy-on-write rewrite wrote already ({@code claimed}), in
   * the order the file was read. A file lakesink wrote holds its rows in key order, so its changes
   * come out as one sorted run, which the sort of the rows to write (TimSort) merges instead of
   * sorting them again; gathered in a set first, they came out in no order at all.
   */
  private void addChanged(FileDeletes f, Set<MergeBatch.Change> claimed, Set<MergeBatch.Change> changed) {
    for (MergeBatch.Change c : f.upserts) {
      if (!claimed.contains(c) && changed.add(c)) {
        rows.add(c.row());
      }
    }
  }

  /**
   * Rows written by one lane at most; more (a snapshot's commit, its keys provably new) are cut,
   * in key order, into one file per lane, written at once: both cores encode Parquet, and each
   * file holds a narrower key range.
   */
  static final int ROWS_PER_LANE = 100_000;

  /**
   * Sorts rows this merge writes by the batch's first key, in place: a file lakesink writes holds
   * its rows in key order, so its key range stays narrow and later merges skip it. Not done by the
   * merge itself: rows a commit takes over with another table's file ({@link SourceFile}) are in
   * that file's order, and sorting them was wasted.
   */
  List<Object[]> sort(List<Object[]> toWrite) {
    if (order != null) {
      order.sort(toWrite);
    }
    return toWrite;
  }

  /** Writes the rows to write (sorted by key) as new files of the commit, on the lanes when there are many. */
  void writeRows(PendingWrite out) {
    sort(rows);
    int lanes = Math.min(LANES, Math.max(1, rows.size() / ROWS_PER_LANE));
    if (lanes == 1) {
      out.write(rows);
      return;
    }
    List<List<Object[]>> parts = new ArrayList<>();
    int per = (rows.size() + lanes - 1) / lanes;
    for (int i = 0; i < rows.size(); i += per) {
      parts.add(rows.subList(i, Math.min(rows.size(), i + per)));
    }
    ParallelFiles.map(parts, lanes, part -> {
      out.write(part);
      return null;
    });
  }

  /** The columns a merge with deletion vectors reads: every key column of the batch, and the ordering ones. */
  static List<String> columnsRead(MergeBatch batch) {
    LinkedHashSet<String> names = new LinkedHashSet<>(batch.keyColumnNames());
    names.addAll(List.of(ChangelogColumns.TS_MS, ChangelogColumns.RANK_TS_MS, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET));
    return List.copyOf(names);
  }

  /** Rows sorted by the batch's first key; a batch without one (a truncate alone) has nothing to sort: no slots, all equal. */
  private static KeyOrder order(MergeBatch batch) {
    return batch.keyColumns().isEmpty() ? new KeyOrder(new int[0]) : new KeyOrder(batch.keyColumns().get(0));
  }

  /**
   * Adds the changes of keys the table does not hold (any more). Only those that would insert a
   * row are looked up in the delete history, all at once.
   */
  private void insertMissing(MergeBatch batch, DeleteHistory deleted, KeyOrder order, Ranks ranks) {
    // With no delete known (a snapshot load) there is nothing to look up, and inserted keys are
    // only remembered to forget their deletes: either set would be garbage the size of the batch.
    boolean none = deleted.knowsNone();
    List<RowKey> inserts = new ArrayList<>();
    if (!none) {
      batch.latest.forEach((key, changes) -> {
        if (!changes.found && changes.writes()) {
          inserts.add(key);
        }
      });
    }
    Map<RowKey, ChangeOrder> deletedAt = inserts.isEmpty() ? Map.of() : deleted.deletedAt(inserts);
    Set<RowKey> inserted = none || !deleted.forgetsRewrittenKeys() ? null : written;
    batch.latest.forEach((key, changes) -> {
      // A key the table does not hold (any more): its remembered delete, if any, is what to outrank.
      MergeBatch.Win win = changes.found ? null : changes.over(deletedAt.get(key), batch.floor);
      if (win != null) {
        applied(List.of(key), win, rows, deletes, inserted, ranks);
        if (win.change().deletes()) {
          deletedAbsent.add(key);
        }
      }
    });
  }

  /** One file's rows a batch replaces or deletes, by position. */
  private static final class FileDeletes {
    final TableFile file;
    final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
    final Set<RowKey> written = new HashSet<>();
    final List<MergeBatch.Change> upserts = new ArrayList<>();
    long[] positions;
    /** The positions found so far ({@link #add}), before they are {@link #positions}. */
    private long[] found = new long[16];
    private int foundCount;
    /** The file's live rows read, and how many of them a truncate removes. */
    long liveRows;
    long truncated;

    private FileDeletes(TableFile file) {
      this.file = file;
    }

    /** Whether a truncate removed every live row of the file: it goes whole. */
    boolean emptied() {
      return truncated > 0 && positions.length == liveRows;
    }

    /**
     * What each file's rows are to the batch, found in {@code locations} instead of read: the
     * files holding a stored row of a batch key, each with the positions the batch replaces or
     * deletes. Null when a key cannot be looked up there ({@link KeyLocations#find}) or a location
     * names a file the table does not hold: then nothing is noted as found, and the files are read.
     */
    static List<FileDeletes> located(KeyLocations locations, List<TableFile> holding, MergeBatch batch, Ranks ranks,
        boolean collectWritten, Map<Object[], KeyLocations.Stored> relocated) {
      Map<String, TableFile> byPath = new HashMap<>();
      holding.forEach(f -> byPath.put(f.path(), f));
      List<Map.Entry<RowKey, MergeBatch.Changes>> entries = new ArrayList<>(batch.latest.size());
      List<KeyLocations.Stored> stored = new ArrayList<>(batch.latest.size());
      if (!lookUp(locations, batch, byPath.keySet(), entries, stored)) {
        return null;
      }
      // The loops are methods of their own, called once per follow: C2 compiles each loop's
      // method on the stack and again whole, and a long method with both was compiled four times.
      Map<String, FileDeletes> files = new LinkedHashMap<>();
      for (int i = 0; i < entries.size(); i++) {
        KeyLocations.Stored at = stored.get(i);
        FileDeletes f = files.computeIfAbsent(at.path(), p -> new FileDeletes(byPath.get(p)));
        f.located(batch, entries.get(i), at, ranks, collectWritten, relocated);
      }
      List<FileDeletes> out = new ArrayList<>(files.size());
      for (FileDeletes f : files.values()) {
        f.positions = f.found();
        Arrays.sort(f.positions); // in file order, as a read finds them
        f.liveRows = -1; // not read: no truncate asks
        out.add(f);
      }
      return out;
    }

    /**
     * Finds each batch key's stored row in {@code locations}; false when one cannot be looked up
     * there, or its file is not the table's (then nothing is noted as found).
     */
    private static boolean lookUp(KeyLocations locations, MergeBatch batch, Set<String> paths,
        List<Map.Entry<RowKey, MergeBatch.Changes>> entries, List<KeyLocations.Stored> stored) {
      for (Map.Entry<RowKey, MergeBatch.Changes> e : batch.latest.entrySet()) {
        KeyLocations.Stored at = locations.find(e.getKey());
        if (at == KeyLocations.UNKNOWN || at != null && !paths.contains(at.path())) {
          return false;
        }
        if (at != null) {
          entries.add(e);
          stored.add(at);
        }
      }
      return true;
    }

    /** A batch key's stored row, found at {@code at} in this file: what of its changes wins over it. */
    private void located(MergeBatch batch, Map.Entry<RowKey, MergeBatch.Changes> entry, KeyLocations.Stored at, Ranks ranks,
        boolean collectWritten, Map<Object[], KeyLocations.Stored> relocated) {
      List<RowKey> keys = new ArrayList<>(1);
      MergeBatch.Win win = batch.over(entry, at.rank(), keys); // notes the key as found, too
      if (win == null) {
        return; // written by a later change than the batch's
      }
      add(at.position());
      noteWin(win, keys, ranks, collectWritten);
      if (!win.change().deletes()) {
        relocated.put(win.change().row(), at);
      }
    }

    /** A position of the file the batch replaces or deletes. */
    private void add(long position) {
      if (foundCount == found.length) {
        found = Arrays.copyOf(found, foundCount * 2);
      }
      found[foundCount++] = position;
    }

    /** The positions added, in the order they were. */
    private long[] found() {
      return Arrays.copyOf(found, foundCount);
    }

    /** A change wins over a stored row of the file: its keys deleted at its rank, or its row written. */
    private void noteWin(MergeBatch.Win win, List<RowKey> keys, Ranks ranks, boolean collectWritten) {
      if (win.change().deletes()) {
        keys.forEach(k -> deletes.put(k, win.rank()));
      } else {
        ranks.stamp(win);
        upserts.add(win.change());
        if (collectWritten) {
          written.addAll(keys);
        }
      }
    }

    /**
     * @param stringKeys the batch's keys when they are one string column (tested as bytes, without a string), or null
     * @param building a key filter to fill with every live row's key, or null
     * @param filtered the key columns {@code building} is for
     * @param collectWritten whether the keys of the rows the batch writes are collected ({@link DeleteHistory#forgetsRewrittenKeys})
     */
    static FileDeletes of(TableFile file, PositionedRowReader reader, MergeBatch batch, Utf8Keys stringKeys,
        Ranks ranks, KeyFilter building, KeyColumns filtered, boolean collectWritten) {
      FileDeletes f = new FileDeletes(file);
      // The batch's entry of the row a key test just wanted: its row comes to the sink right after
      // the test (PositionedRowReader#forEachStringKey, #forEachLongKey), so the sink takes it from here.
      Object[] found = {null};
      PositionedRowReader.RowSink sink = (row, position) -> {
        @SuppressWarnings("unchecked")
        Map.Entry<RowKey, MergeBatch.Changes> entry = (Map.Entry<RowKey, MergeBatch.Changes>) found[0];
        found[0] = null;
        if (ranks.truncated(row)) {
          f.truncated++;
          f.add(position); // its key is not found: a batch change of it is inserted
          return;
        }
        if (ranks.cuts() && !batch.holdsKeyOf(row)) {
          return; // a truncate reads every row: one of no batch key is not ranked
        }
        List<RowKey> keys = new ArrayList<>(1);
        // Either notes the keys found, too.
        MergeBatch.Win win = entry != null ? batch.over(entry, ranks.of(row), keys) : batch.over(row, ranks.of(row), keys);
        if (win == null) {
          return; // written by a later change than the batch's
        }
        f.add(position);
        f.noteWin(win, keys, ranks, collectWritten);
      };
      // Without a truncate, a row matters only when its key is one of the batch's: the ordering
      // columns of the others (most of the file) are never read, and a single integer or string
      // key is tested without a row or a key object.
      LongKeySet longKeys = ranks.cuts() ? null : batch.longKeys();
      if (stringKeys != null) {
        reader.forEachStringKey(file, batch.keyColumns().get(0).names().get(0), (utf8, offset, length, isNull) -> {
          if (building != null && !isNull) {
            building.addUtf8(utf8, offset, length);
          }
          f.liveRows++;
          int slot = isNull ? -1 : stringKeys.find(utf8, offset, length);
          if (slot < 0) {
            return null;
          }
          found[0] = stringKeys.itemAt(slot);
          return stringKeys.keyAt(slot);
        }, sink);
      } else if (longKeys != null) {
        LongKeySet.Walk keysOfFile = longKeys.walk();
        reader.forEachLongKey(file, batch.keyColumns().get(0).names().get(0), (key, isNull) -> {
          if (building != null && !isNull) {
            building.addLong(key);
          }
          f.liveRows++;
          if (isNull || !keysOfFile.contains(key)) {
            return false;
          }
          found[0] = longKeys.itemOf(key);
          return true;
        }, sink);
      } else {
        List<String> first = ranks.cuts() ? List.of() : batch.keyColumnNames();
        reader.forEach(file, first, probe -> {
          if (building != null) {
            RowKey key = filtered.keyOf(probe);
            if (key != null) {
              building.add(key.values());
            }
          }
          f.liveRows++;
          return ranks.cuts() || batch.holdsKeyOf(probe);
        }, sink);
      }
      f.positions = f.found();
      return f;
    }
  }

  /** @param written where the keys of a written change go; null when nobody needs them */
  private static void applied(
      List<RowKey> keys, MergeBatch.Win win, List<Object[]> out, Map<RowKey, ChangeOrder> deletes, Set<RowKey> written, Ranks ranks) {
    if (win.change().deletes()) {
      keys.forEach(k -> deletes.put(k, win.rank()));
    } else {
      ranks.stamp(win);
      out.add(win.change().row());
      if (written != null) {
        written.addAll(keys);
      }
    }
  }

  /** Once committed: the deletes are remembered, and keys written again are no longer deleted. */
  void remember(DeletedKeys deleted) {
    deletes.forEach(deleted::deleted);
    written.forEach(deleted::reinserted);
  }

  /** Once committed: the deletes are folded into what a kept table knows of its changelog's deletes. */
  void remember(KnownDeletes known) {
    deletes.forEach((key, at) -> known.deleted(key, at, !deletedAbsent.contains(key)));
  }

  /** Where a stored row ranks, from its ordering columns (null when it predates them). */
  private static final class Ranks {
    private final int ts;
    private final int rank;
    private final int partition;
    private final int offset;
    private final ChangeOrder cut;

    Ranks(RowLayout layout, ChangeOrder cut) {
      ts = layout.slot(ChangelogColumns.TS_MS);
      rank = layout.slot(ChangelogColumns.RANK_TS_MS);
      partition = layout.slot(ChangelogColumns.PARTITION);
      offset = layout.slot(ChangelogColumns.OFFSET);
      this.cut = cut;
    }

    /** Whether the batch has a truncate: every row of every file is looked at whole. */
    boolean cuts() {
      return cut != null;
    }

    /** Whether the batch's truncate removes the row: it ranks below the truncate. */
    boolean truncated(Object[] row) {
      return cut != null && cut.isAfter(of(row));
    }

    /** A stored row's rank: its {@code __rank_ts_ms}, or its {@code __ts_ms} when that is null (written before the column). */
    /** Writes the rank a winning change has into its row: a later batch ranks the stored row by it. */
    void stamp(MergeBatch.Win win) {
      win.change().row()[rank] = win.rank().tsMs();
    }

    ChangeOrder of(Object[] row) {
      return ChangeOrder.ofValues(row[rank] != null ? row[rank] : row[ts], row[partition], row[offset]);
    }
  }

  /** The batch's keys per key column set; with {@code known}, only those the table may hold. */
  private static Map<List<Column>, List<List<Object>>> keysByColumns(RowLayout layout, MergeBatch batch, TableKeys known) {
    Map<List<Column>, List<List<Object>>> out = new LinkedHashMap<>();
    for (KeyColumns k : batch.keyColumns()) {
      List<Column> columns = k.names().stream().map(n -> layout.columns().get(layout.slot(n))).toList();
      out.put(columns, known == null ? batch.keys(k) : batch.keys(k, known::mayHold));
    }
    return out;
  }
}
