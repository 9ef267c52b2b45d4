package io.lakesink.currentstate;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.Column;
import io.lakesink.merge.SourceFile;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The changelog rows a follow kept of one changelog file, by their positions in it: the file
 * holds each kept table row a change of it writes, so the table takes the file over instead of
 * encoding those rows again ({@link SourceFile}). A row to write is matched to its changelog row
 * by Kafka position, and taken only when every column of the table has the same type in the
 * changelog and the same value in that row; {@code __rank_ts_ms}, which the changelog lacks (it
 * reads null from the file, and a null ranks a row at its {@code __ts_ms}), only when the row's
 * rank time is its {@code __ts_ms}. Anything else (an operation the follow changed, a backfill's
 * row without a position, a change ranked up by an earlier one) is written as before.
 */
final class ChangelogFileRows implements SourceFile {
  private final List<Column> columns;
  private final List<String> names;
  private final List<Object[]> rows;
  private final long[] positions;
  private final long fileRows;
  private final Supplier<Optional<Held>> file;
  private final int partition;
  private final int offset;

  /**
   * @param columns the changelog's columns the rows are aligned with
   * @param kept the rows the follow kept, in file order, with their positions in the file
   * @param fileRows the rows the follow read of the file: all of it, or the file is not taken
   * @param file the file, once its commit landed
   */
  ChangelogFileRows(List<Column> columns, LatestChanges.Kept<Object[]> kept, long fileRows, Supplier<Optional<Held>> file) {
    this.columns = List.copyOf(columns);
    this.rows = kept.changes();
    this.positions = kept.numbers();
    this.fileRows = fileRows;
    this.file = file;
    this.names = this.columns.stream().map(Column::name).toList();
    this.partition = names.indexOf(ChangelogColumns.PARTITION);
    this.offset = names.indexOf(ChangelogColumns.OFFSET);
  }

  @Override
  public ToLongFunction<Object[]> positions(List<Column> tableColumns) {
    if (partition < 0 || offset < 0) {
      return null;
    }
    int[] slots = new int[tableColumns.size()];
    int rank = -1;
    for (int c = 0; c < slots.length; c++) {
      Column column = tableColumns.get(c);
      slots[c] = names.indexOf(column.name());
      if (slots[c] < 0 && column.name().equals(ChangelogColumns.RANK_TS_MS)) {
        rank = c;
      } else if (slots[c] < 0 || !columns.get(slots[c]).type().equals(column.type())) {
        return null;
      }
    }
    List<String> tableNames = tableColumns.stream().map(Column::name).toList();
    int ts = tableNames.indexOf(ChangelogColumns.TS_MS);
    int rowPartition = tableNames.indexOf(ChangelogColumns.PARTITION);
    int rowOffset = tableNames.indexOf(ChangelogColumns.OFFSET);
    Map<Integer, Offsets> index = index();
    if (ts < 0 || rowPartition < 0 || rowOffset < 0 || index == null) {
      return null;
    }
    int rankSlot = rank;
    return row -> {
      if (!(at(row, rowPartition) instanceof Integer p) || !(at(row, rowOffset) instanceof Long o)) {
        return -1;
      }
      Offsets offsets = index.get(p);
      int i = offsets == null ? -1 : offsets.find(o);
      if (i < 0) {
        return -1;
      }
      Object[] source = rows.get(i);
      for (int c = 0; c < slots.length; c++) {
        if (c == rankSlot) {
          Object rankTs = at(row, c);
          if (rankTs != null && !rankTs.equals(at(row, ts))) {
            return -1;
          }
        } else if (!Objects.equals(at(row, c), at(source, slots[c]))) {
          return -1;
        }
      }
      return positions[i];
    };
  }

  @Override
  public Optional<Held> file() {
    return file.get().filter(held -> held.file().physicalRows() == fileRows && !held.file().hasDeletionVector());
  }

  /**
   * Per partition, the kept rows' offsets (ascending, as a flush writes each partition's
   * changes) and their indexes: a row to write is found by binary search, with no map entry per
   * row. Null when a partition's offsets are not ascending (then nothing is taken).
   */
  private Map<Integer, Offsets> index() {
    Map<Integer, Offsets> index = new HashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      Object[] row = rows.get(i);
      if (at(row, partition) instanceof Integer p && at(row, offset) instanceof Long o) {
        if (!index.computeIfAbsent(p, k -> new Offsets()).add(o, i)) {
          return null;
        }
      }
    }
    return index;
  }

  private static Object at(Object[] row, int slot) {
    return slot < 0 || slot >= row.length ? null : row[slot];
  }

  /** One partition's offsets, ascending, with the index of each one's row. */
  private static final class Offsets {
    private long[] offsets = new long[64];
    private int[] rows = new int[64];
    private int size;

    boolean add(long offset, int row) {
      if (size > 0 && offsets[size - 1] >= offset) {
        return false;
      }
      if (size == offsets.length) {
        offsets = Arrays.copyOf(offsets, size * 2);
        rows = Arrays.copyOf(rows, size * 2);
      }
      offsets[size] = offset;
      rows[size++] = row;
      return true;
    }

    int find(long offset) {
      int i = Arrays.binarySearch(offsets, 0, size, offset);
      return i < 0 ? -1 : rows[i];
    }
  }
}
