package io.lakesink.testing;

import io.lakesink.event.ChangeEvent;
import io.lakesink.view.ChangeOrder;
import io.lakesink.view.RankTimes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The model the MERGE and kept-table tests compare against, independent of the view's collapse:
 * the changes of a {@code k1}/{@code k2}-keyed stream replayed one by one in rank order (rank
 * time, {@link RankTimes}, then partition, then offset, unknown lowest); a delete removes its key,
 * a truncate every key.
 */
public final class ChangeModel {
  private ChangeModel() {}

  /**
   * How much later than its neighbours the generators stamp a snapshot row, now and then: a
   * Debezium snapshot row carries the time it was read, while the key's next changes, in the same
   * partition after it, carry their earlier source times (and rank above it).
   */
  public static final long SNAPSHOT_READ_LATE = 12;

  /** Each key's state as {@code "v,amount"}. */
  public static Map<String, String> replay(List<ChangeEvent> events) {
    Map<ChangeEvent, ChangeOrder> rank = RankTimes.of(events, ChangeModel::key, ChangeOrder::of, ChangeEvent::isTruncate);
    List<ChangeEvent> rankOrder = new ArrayList<>(events);
    rankOrder.sort(Comparator.comparing(rank::get));
    Map<String, String> state = new TreeMap<>();
    for (ChangeEvent e : rankOrder) {
      if (e.isTruncate()) {
        state.clear();
      } else if (e.isDelete()) {
        state.remove(key(e));
      } else {
        state.put(key(e), e.value("v") + "," + e.value("amount"));
      }
    }
    return state;
  }

  private static String key(ChangeEvent e) {
    return e.isTruncate() ? null : e.value("k1") + "/" + e.value("k2");
  }
}
