package io.lakesink.merge;

import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one batch does to the table: the rows to write and the files they replace, plus the
 * deletes to remember once committed.
 *
 * <p>A keyed batch is merged copy-on-write: the files that may hold a batch key are read, and a
 * file is rewritten when a change applies to one of its rows. A change applies when it ranks at
 * or above the stored row ({@link ChangeOrder}): a row written by a later change stays, whatever
 * order the changes arrive in. A change of a key the table does not hold is inserted, unless a
 * later delete of that key was applied before ({@link DeletedKeys}).
 */
final class TableMerge {
  final List<Object[]> rows = new ArrayList<>();
  final List<TableFile> rewritten = new ArrayList<>();
  private final Map<RowKey, ChangeOrder> deletes = new LinkedHashMap<>();
  private final Set<RowKey> written = new HashSet<>();
  int filesRead;

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

  /** @param files the table's files, already checked against the size limit */
  static TableMerge merge(DeltaTable table, List<TableFile> files, RowLayout layout, MergeBatch batch, DeletedKeys deleted) {
    TableMerge m = new TableMerge();
    Set<RowKey> found = new HashSet<>();
    for (TableFile file : FilePruning.candidates(files, keysByColumns(layout, batch))) {
      m.filesRead++;
      List<Object[]> kept = new ArrayList<>();
      boolean touched = false;
      for (Map<String, Object> stored : table.read(file)) {
        Object[] row = layout.stored(stored);
        List<RowKey> keys = batch.keysOf(row);
        found.addAll(keys);
        MergeBatch.Change change = keys.isEmpty() ? null : batch.latestOf(keys);
        if (change == null || ChangeOrder.of(stored).isAfter(change.order())) {
          kept.add(row); // not in the batch, or written by a later change than the batch's
          continue;
        }
        touched = true;
        m.applied(keys, change, kept);
      }
      if (touched) {
        m.rewritten.add(file);
        m.rows.addAll(kept);
      }
    }
    batch.latest.forEach((key, change) -> {
      ChangeOrder deletedAt = deleted.deletedAt(key);
      if (!found.contains(key) && (deletedAt == null || !deletedAt.isAfter(change.order()))) {
        m.applied(List.of(key), change, m.rows); // a key the table does not hold (any more)
      }
    });
    return m;
  }

  private void applied(List<RowKey> keys, MergeBatch.Change change, List<Object[]> out) {
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

  private static Map<List<Column>, List<List<Object>>> keysByColumns(RowLayout layout, MergeBatch batch) {
    Map<List<Column>, List<List<Object>>> out = new LinkedHashMap<>();
    for (KeyColumns k : batch.keyColumns()) {
      List<Column> columns = k.names().stream().map(n -> layout.columns().get(layout.slot(n))).toList();
      out.put(columns, batch.keys(k));
    }
    return out;
  }
}
