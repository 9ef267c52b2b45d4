package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.lakesink.merge.KeyColumns.RowKey;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A one-column key holds its value itself; keys made from a one-element list (the delete history,
 * the tests) must still meet it in every map the merge keeps.
 */
class RowKeyTest {
  private static final List<String> ID = List.of("id");

  @Test
  void aOneColumnKeyIsTheSameKeyHoweverItWasMade() {
    RowKey direct = new RowKey(ID, "k7");
    RowKey listed = new RowKey(ID, List.of("k7"));
    assertEquals(direct, listed);
    assertEquals(listed, direct);
    assertEquals(direct.hashCode(), listed.hashCode());
    assertEquals(List.of("k7").hashCode(), direct.hashCode(), "hashed as the list of its value");
    assertEquals(List.of("k7"), direct.values());
    assertEquals(1, listed.size());
    assertEquals("k7", listed.first());
  }

  @Test
  void keysDifferByValueColumnsAndWidth() {
    assertNotEquals(new RowKey(ID, 7L), new RowKey(ID, 8L));
    assertNotEquals(new RowKey(ID, 7L), new RowKey(List.of("other"), 7L));
    RowKey two = new RowKey(List.of("a", "b"), Arrays.asList(7L, "x"));
    assertEquals(two, new RowKey(List.of("a", "b"), List.of(7L, "x")));
    assertNotEquals(two, new RowKey(List.of("a", "b"), List.of(7L, "y")));
    assertNotEquals(new RowKey(List.of("a"), 7L), new RowKey(List.of("a", "b"), List.of(7L, "x")));
    assertEquals(2, two.size());
    assertEquals(7L, two.first());
  }
}
