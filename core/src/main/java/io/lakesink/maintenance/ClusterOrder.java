package io.lakesink.maintenance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order a MERGE table's rows are written in by optimize, so that each file covers a narrow
 * range of the key and a merge's file pruning reads few files: sorted on a one-column key, along
 * a Z-order curve for several (the bits of each column's rank interleaved), so every key column
 * keeps some locality.
 */
final class ClusterOrder {
  private ClusterOrder() {}

  /** Sorts {@code rows} in place on the values at {@code keySlots}. */
  static void sort(List<Object[]> rows, int[] keySlots) {
    if (keySlots.length == 1) {
      int k = keySlots[0];
      rows.sort((a, b) -> compare(a[k], b[k]));
      return;
    }
    long[] z = zValues(rows, keySlots);
    List<Integer> order = indexes(rows.size());
    Comparator<Integer> byZ = Comparator.comparingLong(i -> z[i]);
    order.sort(byZ.thenComparing((i, j) -> compareKeys(rows.get(i), rows.get(j), keySlots)));
    List<Object[]> sorted = new ArrayList<>(rows.size());
    for (Integer i : order) {
      sorted.add(rows.get(i));
    }
    rows.clear();
    rows.addAll(sorted);
  }

  /**
   * 0 to {@code n - 1} in a list: sorted as a list, so TimSort gets an {@code Object[]} as from
   * every other sort of the worker (an {@code Integer[]} made the JIT recompile TimSort's code,
   * compiled for the one, at the other's first store: see {@code merge.KeyOrder#sort}).
   */
  private static List<Integer> indexes(int n) {
    List<Integer> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(i);
    }
    return out;
  }

  /** Each row's Z-value: per key column the value's rank, scaled to the same bit width, interleaved. */
  static long[] zValues(List<Object[]> rows, int[] keySlots) {
    int bits = Math.min(31, 63 / keySlots.length);
    long[][] scaled = new long[keySlots.length][];
    for (int c = 0; c < keySlots.length; c++) {
      scaled[c] = scaledRanks(rows, keySlots[c], bits);
    }
    long[] z = new long[rows.size()];
    for (int r = 0; r < z.length; r++) {
      long v = 0;
      for (int b = bits - 1; b >= 0; b--) {
        for (int c = 0; c < keySlots.length; c++) {
          v = (v << 1) | ((scaled[c][r] >>> b) & 1);
        }
      }
      z[r] = v;
    }
    return z;
  }

  /** The rank of each row's value among the column's distinct values, spread over {@code bits} bits. */
  private static long[] scaledRanks(List<Object[]> rows, int slot, int bits) {
    List<Integer> order = indexes(rows.size());
    order.sort((i, j) -> compare(rows.get(i)[slot], rows.get(j)[slot]));
    long[] rank = new long[rows.size()];
    long distinct = 0;
    for (int i = 0; i < order.size(); i++) {
      if (i > 0 && compare(rows.get(order.get(i - 1))[slot], rows.get(order.get(i))[slot]) != 0) {
        distinct++;
      }
      rank[order.get(i)] = distinct;
    }
    long levels = distinct + 1;
    long top = 1L << bits;
    for (int i = 0; i < rank.length; i++) {
      // Spread ranks over the full width so that each column weighs the same in the curve.
      rank[i] = levels <= 1 ? 0 : (long) ((double) rank[i] / levels * top);
    }
    return rank;
  }

  private static int compareKeys(Object[] a, Object[] b, int[] slots) {
    for (int s : slots) {
      int c = compare(a[s], b[s]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** Nulls first; strings in code point order, as Parquet statistics order them. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    if (a instanceof String s && b instanceof String t) {
      return io.lakesink.event.StringOrder.compare(s, t);
    }
    return ((Comparable) a).compareTo(b);
  }
}
