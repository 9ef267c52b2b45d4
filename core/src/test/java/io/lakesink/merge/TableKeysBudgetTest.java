package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.ColumnType;
import io.lakesink.merge.KeyColumns.RowKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tables' key sets share one budget: a set that would go past it is not kept. */
class TableKeysBudgetTest {
  private static final KeyColumns KEY = new KeyColumns(List.of("id"), new int[] {0}, new ColumnType[] {ColumnType.STRING});

  @Test
  void aSetThatWouldPassWhatAllTablesMayHoldIsNotKept() {
    TableKeys first = withKeys("a", 50_000);
    TableKeys second = withKeys("b", 50_000);
    long both = first.bytes() + second.bytes();
    // Sets other tests left in this JVM still count until collected (which only makes room).
    long elsewhere = TableKeys.liveBytes() - both;

    assertTrue(first.fits(elsewhere + both), "both fit a budget as large as both");
    assertFalse(second.fits(both - 1), "the second does not fit beside the first in less");
    // Given up, it no longer counts: the first fits a budget without room for the second.
    assertTrue(first.fits(elsewhere + first.bytes()), "a set given up stops counting against the others");
    assertTrue(first.mayHold(new RowKey(List.of("id"), List.of("a7"))), "the set still answers for its keys");
  }

  private static TableKeys withKeys(String prefix, int n) {
    TableKeys keys = TableKeys.empty(KEY, 0);
    List<RowKey> written = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      written.add(new RowKey(List.of("id"), List.of(prefix + i)));
    }
    keys.committed(written, 1);
    return keys;
  }
}
