package io.lakesink.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * A commit's rows to write, split by a {@link SourceFile}: those the file holds (in file order,
 * with their positions) and the others, written as usual.
 */
record TakenRows(List<Object[]> others, List<Object[]> taken, long[] positions) {

  /** Splits {@code rows}; a position found twice (never, from one change per row) is written the second time. */
  static TakenRows split(List<Object[]> rows, ToLongFunction<Object[]> positionOf) {
    List<Object[]> others = new ArrayList<>();
    // Position and index in one long, sorted as primitives: positions of one flush's file are ints.
    long[] packed = new long[rows.size()];
    int n = 0;
    for (int i = 0; i < rows.size(); i++) {
      long p = positionOf.applyAsLong(rows.get(i));
      if (p < 0 || p > Integer.MAX_VALUE) {
        others.add(rows.get(i));
      } else {
        packed[n++] = p << 32 | i;
      }
    }
    java.util.Arrays.sort(packed, 0, n);
    List<Object[]> taken = new ArrayList<>(n);
    long[] positions = new long[n];
    int kept = 0;
    for (int j = 0; j < n; j++) {
      long p = packed[j] >>> 32;
      Object[] row = rows.get((int) packed[j]);
      if (kept > 0 && positions[kept - 1] == p) {
        others.add(row);
      } else {
        positions[kept++] = p;
        taken.add(row);
      }
    }
    return new TakenRows(others, taken, kept == n ? positions : java.util.Arrays.copyOf(positions, kept));
  }
}
