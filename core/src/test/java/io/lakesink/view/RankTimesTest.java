package io.lakesink.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RankTimesTest {
  /** A change of key {@code key}: its own order; a null key is a truncate. */
  record Row(String key, ChangeOrder own) {}

  static Map<Row, ChangeOrder> ranks(List<Row> rows) {
    return RankTimes.of(rows, Row::key, Row::own, r -> r.key() == null);
  }

  @Test
  void aKeysRankNeverGoesDownAlongItsPartitionWhateverOrderTheRowsComeIn() {
    Row snapshot = new Row("a", new ChangeOrder(200L, 0, 5L));
    Row changed = new Row("a", new ChangeOrder(150L, 0, 6L));
    Row unknown = new Row("a", new ChangeOrder(null, 0, 7L));
    Row later = new Row("a", new ChangeOrder(300L, 0, 8L));
    Row elsewhere = new Row("a", new ChangeOrder(180L, 1, 0L)); // another partition: its own time
    Row otherKey = new Row("b", new ChangeOrder(100L, 0, 9L)); // another key: its own time
    Row truncate = new Row(null, new ChangeOrder(120L, 0, 10L)); // no key: its own time
    List<Row> rows = new ArrayList<>(List.of(snapshot, changed, unknown, later, elsewhere, otherKey, truncate));
    Collections.shuffle(rows, new Random(3));
    Map<Row, ChangeOrder> rank = ranks(rows);
    assertEquals(new ChangeOrder(200L, 0, 5L), rank.get(snapshot));
    assertEquals(new ChangeOrder(200L, 0, 6L), rank.get(changed));
    assertEquals(new ChangeOrder(200L, 0, 7L), rank.get(unknown));
    assertEquals(new ChangeOrder(300L, 0, 8L), rank.get(later));
    assertEquals(new ChangeOrder(180L, 1, 0L), rank.get(elsewhere));
    assertEquals(new ChangeOrder(100L, 0, 9L), rank.get(otherKey));
    assertEquals(new ChangeOrder(120L, 0, 10L), rank.get(truncate));
    assertEquals(true, rank.get(changed).isAfter(rank.get(elsewhere)), "in its partition after the snapshot row: above 180");
  }

  @Test
  void rowsWithoutAPositionRankTogetherAtTheirHighestTime() {
    Row first = new Row("a", new ChangeOrder(0L, null, null));
    Row second = new Row("a", new ChangeOrder(5L, null, null));
    Row unknown = new Row("a", new ChangeOrder(null, null, null));
    Map<Row, ChangeOrder> rank = ranks(List.of(first, second, unknown));
    assertEquals(List.of(new ChangeOrder(5L, null, null)), List.copyOf(new java.util.HashSet<>(rank.values())));
  }
}
