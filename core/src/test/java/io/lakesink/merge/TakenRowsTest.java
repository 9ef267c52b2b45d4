package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A commit's rows split by the file that holds some of them: taken in file order, the rest written in their order. */
class TakenRowsTest {
  @Test
  void takesTheRowsTheFileHoldsInFileOrderAndWritesTheRest() {
    Object[] a = {"a"};
    Object[] b = {"b"};
    Object[] c = {"c"};
    Object[] d = {"d"};
    Object[] e = {"e"};
    Object[] twice = {"twice"};
    // b and twice name the same position: the second is written (never happens from one change a row).
    Map<Object[], Long> at = Map.of(a, 9L, b, 2L, c, -1L, d, 0L, e, -1L, twice, 2L);
    TakenRows split = TakenRows.split(List.of(a, b, c, d, e, twice), at::get);
    assertEquals(List.of(d, b, a), split.taken());
    assertArrayEquals(new long[] {0, 2, 9}, split.positions());
    assertEquals(List.of(c, e, twice), split.others());
    assertSame(c, split.others().get(0));
  }

  @Test
  void aPositionPastAnIntIsWritten() {
    Object[] far = {"far"};
    TakenRows split = TakenRows.split(List.<Object[]>of(far), row -> 1L << 40);
    assertEquals(List.of(), split.taken());
    assertEquals(List.<Object[]>of(far), split.others());
  }
}
