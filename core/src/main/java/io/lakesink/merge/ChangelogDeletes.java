package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The delete history of a changelog, read from the changelog itself: for keys a table kept from
 * it does not hold, where each key's latest delete ranks. The changelog keeps every delete, so
 * this forgets nothing, across restarts too, unlike {@link DeletedKeys}.
 *
 * <p>Only the changelog files that may hold a delete of one of the keys are read: those whose
 * statistics say they hold a delete (or say nothing) and whose key range may hold one of them;
 * of those only the key, {@code __deleted} and ordering columns, streamed. Keys that grow with
 * time (the usual insert of a new key) fall outside every older file's range and read nothing.
 * Truncates are not looked up here: the table records the latest it applied.
 */
final class ChangelogDeletes implements DeleteHistory {
  private final DeltaTable changelog;
  private final List<TableFile> files;
  private final List<Column> columns;
  /** Files read by lookups, for the status and tests. */
  int filesRead;

  /** @param files the changelog's files (at the version the batch was read up to) */
  ChangelogDeletes(DeltaTable changelog, List<TableFile> files) {
    this.changelog = changelog;
    this.files = files;
    this.columns = changelog.columns().orElse(List.of());
  }

  @Override
  public Map<RowKey, ChangeOrder> deletedAt(Collection<RowKey> keys) {
    Map<RowKey, ChangeOrder> out = new HashMap<>();
    Map<List<String>, List<RowKey>> byColumns = new LinkedHashMap<>();
    keys.forEach(k -> byColumns.computeIfAbsent(k.columns(), c -> new ArrayList<>()).add(k));
    byColumns.forEach((names, ofColumns) -> lookUp(names, ofColumns, out));
    return out;
  }

  private void lookUp(List<String> names, List<RowKey> keys, Map<RowKey, ChangeOrder> out) {
    if (names.stream().anyMatch(n -> slot(n) < 0)) {
      return; // the changelog never had these columns: no delete of such a key
    }
    List<Column> keyColumns = names.stream().map(n -> columns.get(slot(n))).toList();
    List<TableFile> holdingDeletes = files.stream().filter(f -> !Boolean.FALSE.equals(f.max().get(ChangelogColumns.DELETED))).toList();
    List<TableFile> candidates =
        FilePruning.candidates(holdingDeletes, Map.of(keyColumns, keys.stream().map(RowKey::values).toList()));
    if (candidates.isEmpty()) {
      return;
    }
    KeyColumns located = new KeyColumns(names, names.stream().mapToInt(this::slot).toArray(),
        keyColumns.stream().map(Column::type).toArray(io.lakesink.event.ColumnType[]::new));
    java.util.Set<RowKey> wanted = new java.util.HashSet<>(keys);
    List<String> read = new ArrayList<>(names);
    read.addAll(List.of(ChangelogColumns.DELETED, ChangelogColumns.TS_MS, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET));
    PositionedRowReader reader = changelog.positionedReader(columns, read);
    int deleted = slot(ChangelogColumns.DELETED);
    int ts = slot(ChangelogColumns.TS_MS);
    int partition = slot(ChangelogColumns.PARTITION);
    int offset = slot(ChangelogColumns.OFFSET);
    List<Map<RowKey, ChangeOrder>> found = ParallelFiles.map(candidates, TableMerge.LANES, file -> {
      Map<RowKey, ChangeOrder> here = new HashMap<>();
      reader.forEach(file, List.of(ChangelogColumns.DELETED), probe -> Boolean.TRUE.equals(probe[deleted]), (row, position) -> {
        RowKey key = located.keyOf(row);
        if (key != null && wanted.contains(key)) {
          ChangeOrder at = new ChangeOrder(
              row[ts] == null ? null : ((Number) row[ts]).longValue(),
              row[partition] == null ? null : ((Number) row[partition]).intValue(),
              row[offset] == null ? null : ((Number) row[offset]).longValue());
          here.merge(key, at, (a, b) -> a.isAfter(b) ? a : b);
        }
      });
      return here;
    });
    filesRead += candidates.size();
    found.forEach(m -> m.forEach((k, at) -> out.merge(k, at, (a, b) -> a.isAfter(b) ? a : b)));
  }

  private int slot(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
