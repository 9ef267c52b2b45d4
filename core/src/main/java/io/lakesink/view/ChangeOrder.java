package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.ChangeEvent;
import java.util.Comparator;
import java.util.Map;

/**
 * Where a change ranks among the changes of its key: its rank time ({@link RankTimes}: the
 * highest {@code __ts_ms} of its key's changes up to it in its Kafka partition), then {@code
 * __partition}, then {@code __offset}, each unknown value ranking lowest. The source time alone
 * is not a total order, so the Kafka position breaks ties. The current-state view and MERGE
 * delivery share this rule, so a merged table and the view over the same changes agree.
 *
 * @param tsMs the rank time; {@link #of(ChangeEvent)} gives a change's own time, which its key's
 *     earlier changes in the partition may raise ({@link #raisedTo})
 */
public record ChangeOrder(Long tsMs, Integer partition, Long offset) implements Comparable<ChangeOrder> {
  /** What a row without any ordering column ranks as: below every change. */
  public static final ChangeOrder UNKNOWN = new ChangeOrder(null, null, null);

  private static final Comparator<ChangeOrder> ORDER =
      Comparator.comparing(ChangeOrder::tsMs, Comparator.nullsFirst(Comparator.<Long>naturalOrder()))
          .thenComparing(ChangeOrder::partition, Comparator.nullsFirst(Comparator.<Integer>naturalOrder()))
          .thenComparing(ChangeOrder::offset, Comparator.nullsFirst(Comparator.<Long>naturalOrder()));

  /** A change's own order (its own time); a change without a Kafka position (a backfill's) has none. */
  public static ChangeOrder of(ChangeEvent e) {
    int partition = e.position().partition();
    long offset = e.position().offset();
    return new ChangeOrder(e.tsMs(), partition == Integer.MIN_VALUE ? null : partition, offset == Long.MIN_VALUE ? null : offset);
  }

  /**
   * The order of a stored row (changelog or merged table); missing columns read as unknown. A
   * merged row's rank time is {@code __rank_ts_ms}; without it (a changelog row, or a row written
   * before the column existed) its own {@code __ts_ms}.
   */
  public static ChangeOrder of(Map<String, Object> row) {
    Object ts = row.get(ChangelogColumns.RANK_TS_MS) != null ? row.get(ChangelogColumns.RANK_TS_MS) : row.get(ChangelogColumns.TS_MS);
    return ofValues(ts, row.get(ChangelogColumns.PARTITION), row.get(ChangelogColumns.OFFSET));
  }

  /** The order of stored ordering values (any numbers, null unknown). */
  public static ChangeOrder ofValues(Object ts, Object partition, Object offset) {
    // Values read or written are boxed already as the record holds them: taken as they are, not
    // unboxed and boxed again (two objects per stored row a follow ranks).
    return new ChangeOrder(
        ts == null ? null : ts instanceof Long l ? l : Long.valueOf(((Number) ts).longValue()),
        partition == null ? null : partition instanceof Integer i ? i : Integer.valueOf(((Number) partition).intValue()),
        offset == null ? null : offset instanceof Long l ? l : Long.valueOf(((Number) offset).longValue()));
  }

  /** This change ranked at least at {@code rankTime}: what an earlier change of its key in its partition makes it. */
  public ChangeOrder raisedTo(Long rankTime) {
    Long raised = RankTimes.max(tsMs, rankTime);
    return java.util.Objects.equals(raised, tsMs) ? this : new ChangeOrder(raised, partition, offset);
  }

  /** Whether both came from the same Kafka partition (both without one too): their ranks then follow their offsets. */
  public boolean samePartition(ChangeOrder other) {
    return java.util.Objects.equals(partition, other.partition);
  }

  /** Whether this change ranks above {@code other}. */
  public boolean isAfter(ChangeOrder other) {
    return compareTo(other) > 0;
  }

  @Override
  public int compareTo(ChangeOrder other) {
    return ORDER.compare(this, other);
  }
}
