package io.lakesink.migration;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.TableNames;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitFencedException;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.error.Errors;
import io.lakesink.event.Column;
import io.lakesink.event.Operation;
import io.lakesink.types.ValueCoercion;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription's MERGE → changelog migration, in three steps that each may run again:
 *
 * <ol>
 *   <li>{@link #copy}: the merged rows go into {@code <table>_APPEND} in one commit carrying the
 *       transaction id {@link #transactionId}, so a copy that landed is never repeated. Each row
 *       keeps its {@code __ts_ms}, reads as a snapshot row ({@code __op = r}, not deleted), and has
 *       no {@code __partition}/{@code __offset}: the view ranks unknown positions lowest, so any
 *       later change of the key outranks it, on a tie of {@code __ts_ms} too.
 *   <li>RENAME: the catalog moves the MERGE table's entry to {@code <table>_PRE_CHANGELOG}.
 *   <li>VIEW_BUILT: the catalog builds the current-state object under the original name.
 * </ol>
 *
 * The copy runs when the worker starts, before any of its changelog deliveries: nothing newer is
 * written to the changelog before it lands. The other two steps run on the catalog thread, where
 * the view is built and retried ({@link MigratingCatalog}).
 */
public final class ChangelogMigration {
  private static final Logger log = LoggerFactory.getLogger(ChangelogMigration.class);

  private final String table;
  private final DeltaTable merged;
  private final DeltaTable changelog;
  private final MigrationJournal journal;
  private final MigrationHook hook;
  private final Clock clock;
  private volatile MigrationJournal.Entry reached; // null until the copy is recorded

  /**
   * @param table the subscription's (sanitized) table name
   * @param merged the table the subscription wrote in merge mode
   * @param changelog the table it writes now, {@code <table>_APPEND}
   */
  public ChangelogMigration(String table, DeltaTable merged, DeltaTable changelog, MigrationJournal journal,
      MigrationHook hook, Clock clock) {
    this.table = table;
    this.merged = merged;
    this.changelog = changelog;
    this.journal = journal;
    this.hook = hook;
    this.clock = clock;
    this.reached = journal.load(table).orElse(null);
  }

  /** The Delta transaction id of the copy commit in the changelog. */
  public static String transactionId(String table) {
    return "lakesink/migration/" + table;
  }

  public String table() {
    return table;
  }

  /** The last step recorded, if any. */
  public Optional<MigrationStep> step() {
    MigrationJournal.Entry e = reached;
    return e == null ? Optional.empty() : Optional.of(e.step());
  }

  /**
   * Whether there is something left to do: the migration started and is not over, or there is a
   * MERGE table of lakesink's at the subscription's merge location. lakesink's MERGE tables are
   * recognised by what they hold, never by name: the ranking columns every merged row keeps
   * ({@code __ts_ms}, {@code __partition}, {@code __offset}), none of the changelog's own
   * ({@code __deleted}, {@code __ingest_date}), and no partitioning.
   */
  public boolean pending() {
    MigrationJournal.Entry e = reached;
    if (e != null) {
      return e.step() != MigrationStep.VIEW_BUILT;
    }
    Optional<List<Column>> columns = merged.columns();
    if (columns.isEmpty()) {
      return false;
    }
    List<String> names = columns.get().stream().map(Column::name).toList();
    return names.containsAll(List.of(ChangelogColumns.TS_MS, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET))
        && !names.contains(ChangelogColumns.DELETED) && !names.contains(ChangelogColumns.INGEST_DATE)
        && merged.partitionColumns().isEmpty();
  }

  /**
   * Step 1, on the thread that starts the worker: copies the merged rows into the changelog
   * unless a copy already landed.
   *
   * @throws io.lakesink.error.TableFailureException when a merged value does not fit the
   *     changelog's column (nothing is copied)
   */
  public void copy() {
    if (reached != null) {
      return;
    }
    String id = transactionId(table);
    changelog.refresh();
    Long landed = changelog.transactionVersions(List.of(id)).get(id);
    if (landed == null) {
      landed = copyOnce(id);
    } else {
      log.info("The rows of MERGE table {} were copied into {} before (version {} of {}): not copied again",
          table, TableNames.changelog(table), landed, table);
    }
    hook.tookEffect(table, MigrationStep.COPIED);
    record(MigrationStep.COPIED, landed);
  }

  private long copyOnce(String id) {
    merged.refresh();
    long version = merged.version();
    List<Column> source = merged.columns().orElseThrow();
    MigrationRows rows = new MigrationRows(table, source, changelog.columns().orElse(List.of()));
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    // The fence (from -1) lets the commit land only while no copy is recorded: two workers
    // starting at once copy once.
    CommitOffsets offsets = new CommitOffsets(Map.of(id, version), Map.of(id, -1L));
    AppendRequest request = new AppendRequest(rows.columns(), ChangelogColumns.PARTITION_COLUMNS,
        Map.of(ChangelogColumns.INGEST_DATE, today), List.of(), offsets, ChangelogDelivery.TABLE_PROPERTIES);
    long copied = 0;
    try {
      DeltaTable.PendingWrite write = changelog.begin(request);
      // One file's rows in memory at a time, whatever the size of the MERGE table.
      for (TableFile file : merged.files()) {
        List<Object[]> batch = new ArrayList<>();
        for (Map<String, Object> row : merged.read(file)) {
          batch.add(rows.row(row, today));
        }
        write.write(batch);
        copied += batch.size();
      }
      long committed = changelog.commit(write.prepare(List.of()));
      log.info("Copied {} rows of MERGE table {} (version {}) into {} in commit {}, each at its own __ts_ms and ranked"
          + " below every later change", copied, table, version, TableNames.changelog(table), committed);
    } catch (CommitFencedException e) {
      log.info("Another worker copied MERGE table {} into {} first", table, TableNames.changelog(table));
    }
    return version;
  }

  /**
   * Steps 2 and 3, on the catalog thread, resumed from the journal: renames the MERGE table's
   * entry, then builds the current-state object. Before the copy is recorded it only asks for the
   * object, which reports the MERGE table still holding the name.
   */
  public CurrentStateResult advance(TableCatalog catalog, CatalogTable table) {
    MigrationJournal.Entry e = reached;
    if (e == null) {
      return catalog.buildCurrentState(table);
    }
    if (e.step() == MigrationStep.COPIED) {
      CurrentStateResult moved = catalog.moveFormerMergeTable(table);
      if (!(moved instanceof CurrentStateResult.UpToDate)) {
        return moved;
      }
      hook.tookEffect(this.table, MigrationStep.RENAMED);
      record(MigrationStep.RENAMED, e.mergeVersion());
    }
    CurrentStateResult built = catalog.buildCurrentState(table);
    if (built instanceof CurrentStateResult.UpToDate && reached.step() != MigrationStep.VIEW_BUILT) {
      hook.tookEffect(this.table, MigrationStep.VIEW_BUILT);
      record(MigrationStep.VIEW_BUILT, e.mergeVersion());
      log.info("MERGE → changelog migration of {} done: its rows are in {}, the table is kept as {}_PRE_CHANGELOG, and"
          + " {} is its current-state object", this.table, TableNames.changelog(this.table), this.table, this.table);
    }
    return built;
  }

  private void record(MigrationStep step, long mergeVersion) {
    MigrationJournal.Entry entry = new MigrationJournal.Entry(table, step, mergeVersion, clock.instant());
    journal.save(entry);
    reached = entry;
  }

  /** Merged rows as changelog rows, in the changelog's column order. */
  private static final class MigrationRows {
    private final String table;
    private final List<Column> columns = new ArrayList<>();
    private final Map<String, Integer> index = new HashMap<>();
    private final List<Column> source;

    MigrationRows(String table, List<Column> merged, List<Column> existing) {
      this.table = table;
      existing.forEach(this::add);
      // As a delivery lays out a table: a new changelog gets the source columns, then the
      // metadata; an existing one keeps its order and gains what it lacks at the end.
      this.source = merged.stream().filter(c -> !ChangelogColumns.NAMES.contains(c.name())).toList();
      source.forEach(this::add);
      ChangelogColumns.METADATA.forEach(this::add);
    }

    private void add(Column c) {
      if (!index.containsKey(c.name())) {
        index.put(c.name(), columns.size());
        columns.add(c);
      }
    }

    List<Column> columns() {
      return columns;
    }

    Object[] row(Map<String, Object> merged, LocalDate today) {
      Object[] row = new Object[columns.size()];
      for (Column c : source) {
        int slot = index.get(c.name());
        Column target = columns.get(slot);
        Object v = merged.get(c.name());
        if (v != null && !target.type().equals(c.type())) {
          try {
            v = ValueCoercion.coerce(v, c.type(), target.type());
          } catch (ValueCoercion.DoesNotFit x) {
            throw Errors.migrationColumnDoesNotFit(
                table, TableNames.changelog(table), c.name(), c.type(), target.type());
          }
        }
        row[slot] = v;
      }
      row[index.get(ChangelogColumns.OP)] = Operation.READ.code();
      row[index.get(ChangelogColumns.DELETED)] = false;
      // Its rank time (__rank_ts_ms, else __ts_ms): the changelog has no column for a rank its key's
      // earlier changes raised, and the row must keep ranking where it ranked in the merged table.
      row[index.get(ChangelogColumns.TS_MS)] = io.lakesink.view.ChangeOrder.of(merged).tsMs();
      // __partition and __offset stay null: below every change that has a position.
      row[index.get(ChangelogColumns.INGEST_DATE)] = today;
      return row;
    }
  }
}
