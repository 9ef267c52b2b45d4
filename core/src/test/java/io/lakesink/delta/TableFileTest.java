package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the size limit and optimize see of a file with a deletion vector: its live rows and their share of the bytes. */
class TableFileTest {
  static TableFile file(long rows, long deleted) {
    return new TableFile("f.parquet", 1000, rows, deleted, Map.of(), Map.of(), Map.of(), deleted > 0, null, null);
  }

  @Test
  void liveRowsAndBytesLeaveOutWhatTheVectorDeletes() {
    assertEquals(75, file(100, 25).rows());
    assertEquals(25, file(100, 25).deletedRows());
    assertEquals(750, file(100, 25).liveBytes());
    assertEquals(1000, file(100, 0).liveBytes());
    assertEquals(-1, file(-1, 0).rows(), "unknown without statistics");
    assertEquals(1000, file(-1, 0).liveBytes());
  }
}
