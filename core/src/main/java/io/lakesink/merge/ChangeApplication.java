package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.delta.WrittenFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Applies changes read back from a changelog to a table kept from it, on a configured key, with
 * the MERGE engine ({@link MergeBatch}, {@link TableMerge}): what MERGE delivery does with a
 * batch, with two differences that make the result the current-state view's exactly. Deletes are
 * looked up in the changelog itself ({@link ChangelogDeletes}) instead of a bounded memory, and
 * the latest truncate applied is given by the caller (the table records it in its log) instead of
 * being remembered until a restart.
 *
 * <p>Applying a change the table already reflects changes nothing (it ranks at, not above, the
 * stored row, which it rewrites as it was), so a batch applied twice, or files read again, give
 * the same table.
 */
public final class ChangeApplication {
  /** What a kept table stores after the source columns: what ranks a change, and the operation. */
  public static final List<Column> METADATA = MergeDelivery.ENVELOPE;

  private final String table;
  private final DeltaTable target;
  private final RecordKeys keys;
  private final Map<String, String> properties;
  private KeyFilters filters;
  private boolean filtersTried;
  private KeyFilters changelogFilters;
  private String changelogFiltersAt = "";
  /** The changelog's deletes learnt so far, for the life of this object (the worker's). */
  private final KnownDeletes known = new KnownDeletes();
  /** Changelog files the last application read for deletes; target files it read. */
  private int changelogFilesRead;
  private int changelogFilesSkipped;
  private int targetFilesRead;
  /**
   * Where the table's keys are, as of this object's last commit ({@link KeyLocations}); null when
   * not known. Used while the table is at that version, read again from the files otherwise.
   */
  private KeyLocations located;
  /** False once a read of the table found a key held twice: its locations are not read again. */
  private boolean locatable = true;
  /** Files of the table the last application read to locate its keys ({@link #locations}). */
  private int locationsRead;
  /** Whether the last application found the stored rows in {@link #located} instead of reading files. */
  private boolean targetRowsLocated;
  /** Rows the last application took over with the changelog's file instead of writing them ({@link SourceFile}). */
  private long rowsTakenOver;

  /**
   * @param key the columns changes are matched on (required: a kept table needs a key)
   * @param properties what the table is created with
   */
  public ChangeApplication(String table, DeltaTable target, List<String> key, Map<String, String> properties) {
    if (key.isEmpty()) {
      throw new IllegalArgumentException("a kept table needs a key");
    }
    this.table = table;
    this.target = target;
    this.keys = new RecordKeys(table, key);
    this.properties = Map.copyOf(properties);
  }

  /**
   * Thrown by an application's {@code beforeCommit} to give it up just before its commit: nothing
   * of it lands (its files stay orphans, as a failed commit's do), and what this object knows of
   * the changelog's deletes stays whole.
   */
  public static class NotCommitted extends RuntimeException {
    public NotCommitted(String message) {
      super(message, null, false, false);
    }
  }

  /** The outcome of one application: the version committed, and the latest truncate the table now reflects. */
  public record Applied(long version, ChangeOrder truncatedAt) {}

  /**
   * Applies the changes in one commit to {@code target}.
   *
   * @param changelog the changelog the changes were read from, at the version they were read up to
   * @param changelogFiles its files at that version (where deletes are looked up)
   * @param truncatedAt the latest truncate the table reflects already, or null
   * @param offsets the commit's transaction identifiers, given the latest truncate it will reflect
   * @param beforeCommit run once the rows are written, before the commit is prepared (a file taken
   *     over is copied after it: an early follow's file is being written until then); it may
   *     throw {@link NotCommitted} to give the application up
   * @param source the changelog file the changes were read from, whose rows the commit takes over
   *     instead of writing them again ({@link SourceFile}); null for none
   * @throws io.lakesink.delta.CommitFencedException when the table already reflects later changes
   * @throws io.lakesink.delta.CommitConflictException when another writer committed meanwhile
   */
  public Applied apply(
      DeltaTable changelog, List<TableFile> changelogFiles, List<ChangeEvent> events, ChangeOrder truncatedAt,
      Function<ChangeOrder, CommitOffsets> offsets, Runnable beforeCommit, SourceFile source) {
    try {
      return applyOnce(changelog, changelogFiles, events, truncatedAt, offsets, beforeCommit, source);
    } catch (NotCommitted e) {
      throw e; // given up before the commit: nothing landed
    } catch (RuntimeException e) {
      known.notWhole(); // its commit may have landed without its deletes folded in
      throw e;
    }
  }

  private Applied applyOnce(
      DeltaTable changelog, List<TableFile> changelogFiles, List<ChangeEvent> events, ChangeOrder truncatedAt,
      Function<ChangeOrder, CommitOffsets> offsets, Runnable beforeCommit, SourceFile source) {
    rowsTakenOver = 0;
    Truncations.Cut cut = new Truncations(truncatedAt).cut(events);
    ChangeOrder floor = cut.floor();
    List<ChangeEvent> changes = cut.changes();
    List<Column> existing = target.columns().orElse(List.of());
    RowLayout layout = new RowLayout(table, existing, changes, METADATA);
    MergeBatch batch = new MergeBatch(changes, rowsOf(changes, layout), keysOf(changes, layout), floor);
    AppendRequest request = new AppendRequest(layout.columns(), List.of(), Map.of(), List.of(), offsets.apply(floor), properties);
    DeltaTable.PendingWrite pending = target.begin(request);
    ChangelogDeletes deletes = new ChangelogDeletes(changelog, changelogFiles, changelogFilters(changelog));
    DeleteHistory history = known.before(deletes);
    List<TableFile> files = target.files();
    boolean vectors = target.deletionVectorsEnabled();
    PositionedRowReader reader = files.isEmpty() ? null : target.positionedReader(layout.columns(), TableMerge.columnsRead(batch));
    locationsRead = 0;
    KeyLocations at = vectors && cut.at() == null ? locations(reader, files, layout, batch, pending.baseVersion()) : null;
    TableMerge merge = TableMerge.merge(reader, pending, files, layout, batch, history, vectors, cut.at(),
        files.isEmpty() ? null : keyFilters(), null, at);
    // Rows the changelog's file holds as they are are taken over with it, not written again.
    ToLongFunction<Object[]> positions = source == null || !vectors ? null : source.positions(layout.columns());
    TakenRows split = positions == null ? null : TakenRows.split(merge.rows, positions);
    List<Object[]> toWrite = merge.sort(split == null ? merge.rows : split.others());
    List<WrittenFile> written = new ArrayList<>(pending.write(toWrite));
    changelogFilesRead = deletes.filesRead;
    changelogFilesSkipped = deletes.filesSkippedByFilter;
    targetFilesRead = merge.filesRead + locationsRead;
    beforeCommit.run();
    List<Object[]> placed = toWrite; // in the order the files written hold them, for the key locations
    if (split != null && !split.taken().isEmpty()) {
      Optional<SourceFile.Held> held = source.file();
      if (held.isPresent()) {
        written.add(pending.takeOver(held.get().table(), held.get().file(), split.positions()));
        rowsTakenOver = split.taken().size();
      } else {
        written.addAll(pending.write(merge.sort(split.taken())));
      }
      placed = new ArrayList<>(toWrite);
      placed.addAll(split.taken());
    }
    // Planned from what the table held: a commit that lost a race is planned again, never moved.
    DeltaTable.PreparedAppend prepared = pending.prepare(merge.rewritten).withoutRebase();
    located = null; // from here on the table may be at another version than the one it describes
    long version = target.commit(prepared);
    merge.remember(known);
    if (at != null && merge.moveOn(at, placed, written, version)) {
      located = at;
    } else if (at != null) {
      at.drop();
    }
    targetRowsLocated = merge.located;
    return new Applied(version, floor);
  }

  /**
   * Where the table's keys are at {@code version}: the locations moved on by this object's last
   * commit when they describe it, else read from the files once (after a restart, an optimize,
   * another writer's commit; none for a table without files); null when the table cannot be
   * located ({@link KeyLocations}).
   */
  private KeyLocations locations(PositionedRowReader reader, List<TableFile> files, RowLayout layout, MergeBatch batch,
      long version) {
    if (batch.keyColumns().size() != 1 || !KeyLocations.locates(batch.keyColumns().get(0))) {
      return null;
    }
    KeyColumns key = batch.keyColumns().get(0);
    if (located != null && located.describes(version, key)) {
      return located;
    }
    if (located != null) {
      located.drop();
      located = null;
    }
    if (files.isEmpty()) {
      return KeyLocations.empty(key, version);
    }
    if (!locatable || !KeyLocations.wouldFit(files, key)) {
      return null;
    }
    locationsRead = files.size();
    Optional<KeyLocations> read = TableMerge.locate(reader, files, layout, key, version);
    locatable = read.isPresent(); // a key held twice: not written by merges alone, and not read again for nothing
    located = read.orElse(null); // kept when this application is given up before its commit: the table is still there
    return located;
  }

  // The loops over a step's changes are methods of their own: a loop in apply() made C2 compile
  // all of apply() twice, on-stack and whole (0.75 s of compile time in a 1M-event benchmark run,
  // JFR jdk.Compilation), for a method called once per follow; the two loops alone take 0.15 s.

  /** The changes as the table's rows, with the columns that rank them and their operation. */
  private static List<Object[]> rowsOf(List<ChangeEvent> changes, RowLayout layout) {
    int op = layout.slot(ChangelogColumns.OP);
    int tsMs = layout.slot(ChangelogColumns.TS_MS);
    int rankTsMs = layout.slot(ChangelogColumns.RANK_TS_MS);
    int partition = layout.slot(ChangelogColumns.PARTITION);
    int offset = layout.slot(ChangelogColumns.OFFSET);
    List<Object[]> rows = new ArrayList<>(changes.size());
    for (ChangeEvent e : changes) {
      Object[] row = layout.row(e);
      row[op] = e.op() == null ? null : e.op().code();
      row[tsMs] = e.tsMs();
      row[rankTsMs] = e.tsMs(); // until the merge ranks it (MergeBatch)
      // A changelog row without a Kafka position (a backfill's) came with the lowest one: null again.
      row[partition] = e.position().partition() == Integer.MIN_VALUE ? null : e.position().partition();
      row[offset] = e.position().offset() == Long.MIN_VALUE ? null : e.position().offset();
      rows.add(row);
    }
    return rows;
  }

  /** Where each change's key columns are in the table's rows. */
  private List<KeyColumns> keysOf(List<ChangeEvent> changes, RowLayout layout) {
    Set<String> columnNames = new HashSet<>(layout.columns().stream().map(Column::name).toList());
    Map<List<String>, KeyColumns> located = new HashMap<>();
    List<KeyColumns> keyOfEach = new ArrayList<>(changes.size());
    // The configured key is one list for every change: located once, not hashed per change.
    List<String> lastNames = null;
    KeyColumns last = null;
    for (ChangeEvent e : changes) {
      List<String> names = keys.of(e, columnNames);
      if (names != lastNames) {
        last = located.computeIfAbsent(names, n -> KeyColumns.of(n, layout));
        lastNames = names;
      }
      keyOfEach.add(last);
    }
    return keyOfEach;
  }

  /**
   * The table is empty, and this object applies the changelog from its first version: every
   * delete passes through its merges, so none is looked up in the changelog while that lasts
   * ({@link KnownDeletes#followsFromEmpty}).
   */
  public void appliesFromEmpty() {
    known.followsFromEmpty();
  }

  /** Whether no delete is looked up in the changelog: every one passed through this object's merges. */
  public boolean knowsEveryDelete() {
    return known.whole();
  }

  /**
   * The table reflects changes this object did not apply (another worker's follow): the deletes
   * learnt here may miss theirs, so they are looked up in the changelog again.
   */
  public void forgetKnownDeletes() {
    known.forget();
  }

  /** Keys whose delete history the last applications answered without reading the changelog. */
  public long deleteLookupsAnswered() {
    return known.hits;
  }

  /** Changelog files the last application read to look up deletes. */
  public int changelogFilesRead() {
    return changelogFilesRead;
  }

  /** Changelog files the last application's delete lookups ruled out by their delete filter, unread. */
  public int changelogFilesSkipped() {
    return changelogFilesSkipped;
  }

  /** Files of the kept table the last application read. */
  public int targetFilesRead() {
    return targetFilesRead;
  }

  /** Whether the last application found the stored rows of its keys without reading the table's files. */
  public boolean targetRowsLocated() {
    return targetRowsLocated;
  }

  /** Rows the last application took over with the changelog's file instead of writing them again. */
  public long rowsTakenOver() {
    return rowsTakenOver;
  }

  /** The changelog's delete filters, made once (kept in memory between applications); null without file access. */
  private KeyFilters changelogFilters(DeltaTable changelog) {
    if (changelogFilters == null || !changelogFiltersAt.equals(changelog.location())) {
      try {
        changelogFilters = new KeyFilters(changelog.fileIO(), changelog.location());
        changelogFiltersAt = changelog.location();
      } catch (IllegalStateException noFileAccess) {
        return null;
      }
    }
    return changelogFilters;
  }

  private KeyFilters keyFilters() {
    if (!filtersTried) {
      filtersTried = true;
      try {
        filters = new KeyFilters(target.fileIO(), target.location());
      } catch (IllegalStateException noFileAccess) {
        filters = null;
      }
    }
    return filters;
  }
}
