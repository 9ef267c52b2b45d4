package io.lakesink.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeOrderTest {
  @Test
  void timeThenPartitionThenOffsetWithUnknownValuesRankingLowest() {
    List<ChangeOrder> ascending = List.of(
        ChangeOrder.UNKNOWN,
        new ChangeOrder(null, 0, 5L),
        new ChangeOrder(1L, null, null),
        new ChangeOrder(1L, 0, null),
        new ChangeOrder(1L, 0, 3L),
        new ChangeOrder(1L, 0, 4L),
        new ChangeOrder(1L, 1, 0L),
        new ChangeOrder(2L, 0, 0L));
    List<ChangeOrder> shuffled = new ArrayList<>(ascending);
    Collections.shuffle(shuffled, new java.util.Random(7));
    Collections.sort(shuffled);
    assertEquals(ascending, shuffled);
  }

  @Test
  void aStoredRowRanksByItsMetadataColumnsAndMissingOnesReadUnknown() {
    Map<String, Object> row = new HashMap<>(Map.of("__ts_ms", 5L, "__partition", 2, "__offset", 9L));
    assertEquals(new ChangeOrder(5L, 2, 9L), ChangeOrder.of(row));
    assertEquals(new ChangeOrder(5L, null, null), ChangeOrder.of(Map.of("__ts_ms", 5L)));
  }
}
