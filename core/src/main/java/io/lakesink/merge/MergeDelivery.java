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
import io.lakesink.error.Errors;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MERGE delivery: each batch applied in place to {@code <table>}, one row per key, with a
 * copy-on-write rewrite of the files that hold the batch's keys. The removes, the new files and
 * the source offsets go in one Delta commit.
 *
 * <p>Per batch: the latest change of each key wins ({@link MergeBatch}); {@code c}/{@code u}/
 * {@code r} (or no operation) update or insert the row, {@code d} removes it. A table past what
 * one merge can hold is refused before anything is read ({@link MergeSizeLimit}). The rows of an
 * initial snapshot are staged and published together.
 */
public final class MergeDelivery extends BufferedDelivery {
  private static final Logger log = LoggerFactory.getLogger(MergeDelivery.class);
  /** Without a column mapping, the merged table also keeps these envelope fields. */
  static final List<Column> ENVELOPE =
      List.of(new Column(ChangelogColumns.OP, ColumnType.STRING), new Column(ChangelogColumns.TS_MS, ColumnType.BIGINT));

  private final MergeSettings settings;
  private final List<Column> metadata;
  private boolean warnedNoKey;
  private boolean snapshotEndSeen;
  private int nonSnapshotEvents;
  private long lastAcceptedMillis;

  public MergeDelivery(
      Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context, MergeSettings settings) {
    super(subscription, table, sibling, context);
    this.settings = settings;
    this.metadata = subscription.columns().isEmpty() ? ENVELOPE : List.of();
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
    List<Column> existing = table.columns().orElse(List.of());
    RowLayout layout = new RowLayout(tableName(), existing, events, metadata);
    List<Object[]> rows = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      rows.add(withEnvelope(layout, e, layout.row(e)));
    }
    List<String> key = keyColumns(layout, events);
    List<Object[]> out = new ArrayList<>();
    List<TableFile> rewritten = new ArrayList<>();
    if (key.isEmpty()) {
      // Without a key there is nothing to match on: updates accumulate, deletes are not applied.
      if (!warnedNoKey) {
        log.warn("Table {} has no primary key (none configured, none in the record key): rows are appended,"
            + " updates accumulate and deletes are not applied", tableName());
        warnedNoKey = true;
      }
      for (int i = 0; i < events.size(); i++) {
        if (events.get(i).op() != Operation.DELETE) {
          out.add(rows.get(i));
        }
      }
    } else {
      mergeInto(layout, key, events, rows, out, rewritten);
    }
    resetStaging();
    AppendRequest request = new AppendRequest(layout.columns(), List.of(), Map.of(), out, offsets, tableProperties());
    DeltaTable.PreparedAppend prepared = table.prepareAppend(request, rewritten);
    beforeCommit();
    return table.commit(prepared);
  }

  private void mergeInto(
      RowLayout layout, List<String> key, List<ChangeEvent> events, List<Object[]> rows, List<Object[]> out, List<TableFile> rewritten) {
    int[] slots = key.stream().mapToInt(layout::slot).toArray();
    MergeBatch batch = new MergeBatch(events, rows, slots);
    if (batch.emptyKeys > 0) {
      log.warn("Dropped {} rows of {} whose key {} is empty", batch.emptyKeys, tableName(), key);
    }
    List<TableFile> files = table.files();
    Set<List<Object>> found = new HashSet<>();
    if (!files.isEmpty()) {
      MergeSizeLimit.check(tableName(), files, settings.scanLimitBytes());
      List<Column> keyColumns = key.stream().map(k -> layout.columns().get(layout.slot(k))).toList();
      List<TableFile> candidates = FilePruning.candidates(files, keyColumns, batch.keys());
      for (TableFile file : candidates) {
        List<Object[]> kept = new ArrayList<>();
        boolean touched = false;
        for (Map<String, Object> stored : table.read(file)) {
          Object[] row = layout.stored(stored);
          List<Object> k = MergeBatch.key(row, slots);
          MergeBatch.Change change = k == null ? null : batch.latest.get(k);
          if (change == null) {
            kept.add(row);
            continue;
          }
          touched = true;
          found.add(k);
          if (!change.deletes()) {
            kept.add(change.row());
          }
        }
        if (touched) {
          rewritten.add(file);
          out.addAll(kept);
        }
      }
      log.debug("Merge into {}: {} files, {} read, {} rewritten", tableName(), files.size(), candidates.size(), rewritten.size());
    }
    batch.latest.forEach((k, change) -> {
      if (!found.contains(k) && !change.deletes()) {
        out.add(change.row()); // a key the table does not hold yet
      }
    });
  }

  private Object[] withEnvelope(RowLayout layout, ChangeEvent e, Object[] row) {
    if (!metadata.isEmpty()) {
      row[layout.slot(ChangelogColumns.OP)] = e.op() == null ? null : e.op().code();
      row[layout.slot(ChangelogColumns.TS_MS)] = e.tsMs();
    }
    return row;
  }

  /** The configured key, else the record key's fields; empty when there is neither. */
  private List<String> keyColumns(RowLayout layout, List<ChangeEvent> events) {
    List<String> key = subscription().primaryKey();
    if (key.isEmpty() && !events.isEmpty()) {
      key = events.get(events.size() - 1).recordKeyFields();
    }
    Set<String> names = new HashSet<>(layout.columns().stream().map(Column::name).toList());
    for (String k : key) {
      if (!names.contains(k)) {
        throw Errors.keyColumnMissing(tableName(), k, events.get(0).position());
      }
    }
    return key;
  }

  private void resetStaging() {
    snapshotEndSeen = false;
    nonSnapshotEvents = 0;
  }

  @Override
  protected Map<String, String> tableProperties() {
    return Map.of("delta.checkpointInterval", "10");
  }
}
