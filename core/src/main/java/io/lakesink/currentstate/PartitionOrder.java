package io.lakesink.currentstate;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where a catch-up may end one commit and start the next without applying a change before an
 * earlier change of its Kafka partition. A change's rank grows along its key's changes in its
 * partition ({@link io.lakesink.view.RankTimes}), and the merge ranks a batch against the stored
 * row only: an earlier change of the partition applied in a later commit would come too late to
 * raise the rank of the ones after it. So a commit of a catch-up ends only where no file left to
 * apply may hold a row of one of its partitions at or below the highest offset it applied (by
 * each file's lowest offset per partition). Files are applied by their lowest offset first, which
 * is commit order for the files of one partition, so such boundaries come often; a commit may grow
 * past the row limit to reach one (files the changelog's optimize packed from many commits).
 *
 * <p>A file's statistics give one offset range over all its partitions, and a flush's file holds
 * rows of every partition: when the partitions' offsets lie apart (a hot partition, one added
 * later), every file left would seem to hold an earlier offset of the partition that is ahead, and
 * a long catch-up would go in one commit, held in memory at once. So a catch-up longer than one
 * commit first reads the {@code __partition} and {@code __offset} columns of its files
 * ({@link #read}): each file's lowest offset per partition. Without that (one commit's worth of
 * rows) the statistics decide; a file without them may hold anything.
 */
final class PartitionOrder {
  /** The highest offset applied so far per partition, in this catch-up (a holder: no boxed offset per change). */
  private final Map<Integer, long[]> highest = new HashMap<>();
  /** Each file's lowest offset per partition (path → partition → offset), for the files {@link #read}. */
  private final Map<String, Map<Integer, Long>> lowest;

  /** Decides by the files' statistics. */
  PartitionOrder() {
    this(Map.of());
  }

  private PartitionOrder(Map<String, Map<Integer, Long>> lowest) {
    this.lowest = lowest;
  }

  /**
   * Decides by each file's lowest offset per partition, read from the files' {@code __partition}
   * and {@code __offset} columns (a row without a position counts as partition {@link
   * ChangelogChanges#NO_PARTITION} at offset {@link ChangelogChanges#NO_OFFSET}, as it is applied).
   */
  static PartitionOrder read(DeltaTable changelog, List<Column> columns, List<TableFile> files, WrittenRows written) {
    List<String> names = columns.stream().map(Column::name).toList();
    int partition = names.indexOf(ChangelogColumns.PARTITION);
    int offset = names.indexOf(ChangelogColumns.OFFSET);
    if (partition < 0 || offset < 0) {
      return new PartitionOrder(); // no positions kept: the statistics (none) decide
    }
    PositionedRowReader reader = changelog.positionedReader(columns, List.of(ChangelogColumns.PARTITION, ChangelogColumns.OFFSET));
    Map<String, Map<Integer, Long>> lowest = new HashMap<>();
    for (TableFile f : files) {
      Map<Integer, Long> byPartition = new HashMap<>();
      Consumer<Object[]> note = row -> byPartition.merge(
          row[partition] == null ? ChangelogChanges.NO_PARTITION : ((Number) row[partition]).intValue(),
          row[offset] == null ? ChangelogChanges.NO_OFFSET : ((Number) row[offset]).longValue(), Math::min);
      // A file this worker just wrote: its positions are in the rows handed over, not read back.
      WrittenRows.Written w = written.peek(f.path());
      if (w != null && w.alignedWith(columns) && Math.max(partition, offset) < w.columns().size()) {
        w.rows().forEach(note);
      } else {
        reader.forEach(f, (row, position) -> note.accept(row));
      }
      lowest.put(f.path(), byPartition);
    }
    return new PartitionOrder(lowest);
  }

  /** The files in the order they are applied: lowest {@code __offset} first (unknown first). */
  static List<TableFile> sorted(List<TableFile> files) {
    return files.stream().sorted(Comparator.comparing((TableFile f) -> number(f.min().get(ChangelogColumns.OFFSET)),
        Comparator.nullsFirst(Comparator.<Long>naturalOrder())).thenComparing(TableFile::path)).toList();
  }

  /** Notes a change about to be applied, at this partition and offset. */
  void applying(int partition, long offset) {
    long[] h = highest.computeIfAbsent(partition, p -> new long[] {Long.MIN_VALUE});
    h[0] = Math.max(h[0], offset);
  }

  /** Whether a commit may end before {@code rest}: none of them may hold an earlier change of a partition applied. */
  boolean mayEndBefore(List<TableFile> rest) {
    return rest.stream().noneMatch(this::mayHoldEarlier);
  }

  private boolean mayHoldEarlier(TableFile f) {
    Map<Integer, Long> read = lowest.get(f.path());
    if (read != null) {
      return read.entrySet().stream().anyMatch(e -> highest.containsKey(e.getKey()) && e.getValue() <= highest.get(e.getKey())[0]);
    }
    Long minPartition = number(f.min().get(ChangelogColumns.PARTITION));
    Long maxPartition = number(f.max().get(ChangelogColumns.PARTITION));
    Long minOffset = number(f.min().get(ChangelogColumns.OFFSET));
    if (minPartition == null || maxPartition == null || minOffset == null) {
      return !highest.isEmpty(); // no statistics (or rows without a position): it may hold anything
    }
    for (Map.Entry<Integer, long[]> e : highest.entrySet()) {
      if (e.getKey() >= minPartition && e.getKey() <= maxPartition && minOffset <= e.getValue()[0]) {
        return true;
      }
    }
    return false;
  }

  private static Long number(Object v) {
    return v == null ? null : ((Number) v).longValue();
  }
}
