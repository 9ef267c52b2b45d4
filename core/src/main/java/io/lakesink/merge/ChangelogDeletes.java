package io.lakesink.merge;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import io.lakesink.view.RankTimes;
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
 * statistics say they hold a delete (or say nothing), whose key range may hold one of them, and
 * whose delete filter (a Bloom filter of the keys of the file's deletes, built the first time the
 * file is read and kept beside it as MERGE tables keep key filters) does not rule them all out;
 * of those only the key, {@code __deleted} and ordering columns, streamed. Keys that grow with
 * time (the usual insert of a new key) fall outside every older file's range and read nothing.
 * Truncates are not looked up here: the table records the latest it applied.
 *
 * <p>A delete ranks at its rank time ({@link RankTimes}): the highest {@code __ts_ms} of its key's
 * changes up to it in its partition, which other files may hold. So the keys a delete was found
 * for are read once more, every row of them in the files whose key range may hold them (not only
 * those holding deletes), and each delete is ranked among its key's changes as the view ranks it.
 * That costs a second read only for keys deleted before and written again.
 */
final class ChangelogDeletes implements DeleteHistory {
  /**
   * What a delete filter is kept under beside the key columns: a filter of the keys of a
   * changelog file's deletes, not of all its keys (a changelog's files never get the latter: no
   * merge reads them).
   */
  static final String DELETES = "__deleted";

  private final DeltaTable changelog;
  private final List<TableFile> files;
  private final List<Column> columns;
  private final KeyFilters filters;
  /** Files read by lookups, and those their delete filter ruled out, for tests and the bench. */
  int filesRead;
  int filesSkippedByFilter;
  /** Files read again to rank the deletes found among their keys' other changes. */
  int filesReadForRanks;

  /**
   * @param files the changelog's files (at the version the batch was read up to)
   * @param filters the changelog's key filters, where each file's delete filter is kept once
   *     built; null without file access
   */
  ChangelogDeletes(DeltaTable changelog, List<TableFile> files, KeyFilters filters) {
    this.changelog = changelog;
    this.files = files;
    this.columns = changelog.columns().orElse(List.of());
    this.filters = filters;
  }

  /** The changelog forgets no delete: every key that would be inserted is looked up. */
  @Override
  public boolean knowsNone() {
    return false;
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
    List<String> filterColumns = new ArrayList<>(names);
    filterColumns.add(DELETES);
    List<List<Object>> wantedValues = keys.stream().map(RowKey::values).toList();
    StoredKeys wantedKeys = StoredKeys.of(located, wanted);
    List<Map<RowKey, ChangeOrder>> found = ParallelFiles.map(candidates, TableMerge.LANES, file -> {
      // A file's deletes never change (a changelog file is never rewritten in place): its delete
      // filter, built the first time the file is read, answers every later lookup without it.
      java.util.Optional<KeyFilter> filter = filters == null ? java.util.Optional.empty() : filters.find(file, filterColumns);
      if (filter.isPresent() && wantedValues.stream().noneMatch(filter.get()::mayContain)) {
        return null;
      }
      KeyFilter building = filters != null && filter.isEmpty() && file.rows() >= 0 ? KeyFilter.forKeys(file.rows()) : null;
      Map<RowKey, ChangeOrder> here = new HashMap<>();
      PositionedRowReader.RowSink deletes = (row, position) -> {
        if (!Boolean.TRUE.equals(row[deleted])) {
          return;
        }
        RowKey key = located.keyOf(row);
        if (key != null && building != null) {
          building.add(key.values());
        }
        if (key != null && wanted.contains(key)) {
          here.merge(key, ownOrder(row), (a, b) -> a.isAfter(b) ? a : b);
        }
      };
      if (building != null) {
        // The first read of the file: every delete's key goes into its filter.
        reader.forEachFlagged(file, ChangelogColumns.DELETED, deletes);
        filters.save(file, filterColumns, building);
      } else {
        wantedKeys.forEach(reader, file, deletes); // only the rows of the keys looked up, then their deletes
      }
      return here;
    });
    List<Map<RowKey, ChangeOrder>> looked = found.stream().filter(java.util.Objects::nonNull).toList();
    filesRead += looked.size();
    filesSkippedByFilter += candidates.size() - looked.size();
    Map<RowKey, ChangeOrder> latest = new HashMap<>();
    looked.forEach(m -> m.forEach((k, at) -> latest.merge(k, at, (a, b) -> a.isAfter(b) ? a : b)));
    if (!latest.isEmpty()) {
      out.putAll(ranked(latest.keySet(), keyColumns, located, names));
    }
  }

  /**
   * Where the latest delete of each key ranks, from every change of those keys: a delete's rank
   * time may come from an earlier change of its key in its partition, in any file.
   */
  private Map<RowKey, ChangeOrder> ranked(java.util.Set<RowKey> deletedKeys, List<Column> keyColumns, KeyColumns located, List<String> names) {
    List<TableFile> candidates =
        FilePruning.candidates(files, Map.of(keyColumns, deletedKeys.stream().map(RowKey::values).toList()));
    List<String> read = new ArrayList<>(names);
    read.addAll(List.of(ChangelogColumns.DELETED, ChangelogColumns.TS_MS, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET));
    PositionedRowReader reader = changelog.positionedReader(columns, read);
    int deleted = slot(ChangelogColumns.DELETED);
    StoredKeys held = StoredKeys.of(located, deletedKeys);
    List<Map<RowKey, List<Object[]>>> found = ParallelFiles.map(candidates, TableMerge.LANES, file -> {
      Map<RowKey, List<Object[]>> here = new HashMap<>();
      held.forEach(reader, file, (row, position) -> here.computeIfAbsent(located.keyOf(row), k -> new ArrayList<>()).add(row));
      return here;
    });
    filesReadForRanks += candidates.size();
    Map<RowKey, List<Object[]>> rowsOf = new HashMap<>();
    found.forEach(m -> m.forEach((k, rows) -> rowsOf.computeIfAbsent(k, x -> new ArrayList<>()).addAll(rows)));
    Map<RowKey, ChangeOrder> out = new HashMap<>();
    rowsOf.forEach((key, rows) -> {
      Map<Object[], ChangeOrder> rank = RankTimes.of(rows, row -> key, this::ownOrder, row -> false);
      for (Object[] row : rows) {
        if (Boolean.TRUE.equals(row[deleted])) {
          out.merge(key, rank.get(row), (a, b) -> a.isAfter(b) ? a : b);
        }
      }
    });
    return out;
  }

  /**
   * Some keys, and how a file's rows holding one of them are found: a one-column key (the usual)
   * is tested as the file stores it, a string by its UTF-8 bytes and an integer as a primitive,
   * without a key object or a {@code String} for every row of every file read (most hold none of
   * them; these reads were a seventh of a kept table's follow). Read-only once made: lanes share it.
   */
  private record StoredKeys(KeyColumns located, Utf8Keys strings, LongKeySet longs, java.util.Set<Object> values,
      java.util.Set<RowKey> keys) {
    static StoredKeys of(KeyColumns located, java.util.Set<RowKey> keys) {
      if (located.slots().length != 1) {
        return new StoredKeys(located, null, null, null, keys);
      }
      io.lakesink.event.ColumnType.Kind kind = located.types()[0].kind();
      List<Object> values = keys.stream().map(RowKey::first).toList();
      if (kind == io.lakesink.event.ColumnType.Kind.STRING && values.stream().allMatch(String.class::isInstance)) {
        return new StoredKeys(located, new Utf8Keys(values.stream().map(String.class::cast).toList()), null, null, keys);
      }
      if ((kind == io.lakesink.event.ColumnType.Kind.BIGINT || kind == io.lakesink.event.ColumnType.Kind.INT)
          && values.stream().allMatch(v -> v instanceof Long || v instanceof Integer)) {
        return new StoredKeys(located, null, new LongKeySet(values.stream().map(v -> ((Number) v).longValue()).toList()), null, keys);
      }
      return new StoredKeys(located, null, null, new java.util.HashSet<>(values), keys);
    }

    /** Streams the file's rows (the columns {@code reader} reads) that hold one of the keys. */
    void forEach(PositionedRowReader reader, TableFile file, PositionedRowReader.RowSink sink) {
      String column = located.names().get(0);
      if (strings != null) {
        reader.forEachStringKey(file, column, (utf8, offset, length, isNull) -> isNull ? null : strings.get(utf8, offset, length), sink);
      } else if (longs != null) {
        reader.forEachLongKey(file, column, (key, isNull) -> !isNull && longs.contains(key), sink);
      } else if (values != null) {
        int slot = located.slots()[0];
        io.lakesink.event.ColumnType type = located.types()[0];
        // A key is never null nor empty (KeyColumns.keyOf): neither value is in the set.
        reader.forEach(file, located.names(), probe -> probe[slot] != null && values.contains(StorageForm.of(probe[slot], type)), sink);
      } else {
        reader.forEach(file, located.names(), probe -> keys.contains(located.keyOf(probe)), sink);
      }
    }
  }

  /** A changelog row's own order (its own {@code __ts_ms}): what its key's earlier changes may raise. */
  private ChangeOrder ownOrder(Object[] row) {
    return ChangeOrder.ofValues(row[slot(ChangelogColumns.TS_MS)], row[slot(ChangelogColumns.PARTITION)],
        row[slot(ChangelogColumns.OFFSET)]);
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
