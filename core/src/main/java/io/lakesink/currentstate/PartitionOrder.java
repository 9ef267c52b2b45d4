package io.lakesink.currentstate;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a catch-up may end one commit and start the next without applying a change before an
 * earlier change of its Kafka partition. A change's rank grows along its key's changes in its
 * partition ({@link io.lakesink.view.RankTimes}), and the merge ranks a batch against the stored
 * row only: an earlier change of the partition applied in a later commit would come too late to
 * raise the rank of the ones after it. So a commit of a catch-up ends only where no file left to
 * apply may hold a row of one of its partitions at or below the highest offset it applied (by
 * the files' {@code __partition} and {@code __offset} statistics; a file without them may hold
 * anything). Files are applied by their lowest offset first, which is commit order for the files
 * of one partition, so such boundaries come often; a commit may grow past the row limit to reach one.
 */
final class PartitionOrder {
  /** The highest offset applied so far per partition, in this catch-up. */
  private final Map<Integer, Long> highest = new HashMap<>();

  /** The files in the order they are applied: lowest {@code __offset} first (unknown first). */
  static List<TableFile> sorted(List<TableFile> files) {
    return files.stream().sorted(Comparator.comparing((TableFile f) -> number(f.min().get(ChangelogColumns.OFFSET)),
        Comparator.nullsFirst(Comparator.<Long>naturalOrder())).thenComparing(TableFile::path)).toList();
  }

  /** Notes the changes about to be applied. */
  void applying(List<ChangeEvent> changes) {
    for (ChangeEvent e : changes) {
      highest.merge(e.position().partition(), e.position().offset(), Math::max);
    }
  }

  /** Whether a commit may end before {@code rest}: none of them may hold an earlier change of a partition applied. */
  boolean mayEndBefore(List<TableFile> rest) {
    return rest.stream().noneMatch(this::mayHoldEarlier);
  }

  private boolean mayHoldEarlier(TableFile f) {
    Long minPartition = number(f.min().get(ChangelogColumns.PARTITION));
    Long maxPartition = number(f.max().get(ChangelogColumns.PARTITION));
    Long minOffset = number(f.min().get(ChangelogColumns.OFFSET));
    if (minPartition == null || maxPartition == null || minOffset == null) {
      return !highest.isEmpty(); // no statistics (or rows without a position): it may hold anything
    }
    for (Map.Entry<Integer, Long> e : highest.entrySet()) {
      if (e.getKey() >= minPartition && e.getKey() <= maxPartition && minOffset <= e.getValue()) {
        return true;
      }
    }
    return false;
  }

  private static Long number(Object v) {
    return v == null ? null : ((Number) v).longValue();
  }
}
