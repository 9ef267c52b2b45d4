package io.lakesink.merge;

import java.util.Comparator;

/**
 * Orders rows by a key, so that each file a merge writes holds one narrow key range: its min/max
 * statistics then let {@link FilePruning} skip it for batches whose keys lie elsewhere, which is
 * what keeps a skewed merge (most changes on recent keys) from rewriting old files. Strings
 * compare by code point, as Parquet's statistics order them; null (a row keyed on other columns)
 * sorts last.
 */
final class KeyOrder implements Comparator<Object[]> {
  private final int[] slots;

  KeyOrder(KeyColumns key) {
    this(key.slots());
  }

  /** @param slots where the key's columns are in a row; none: every row ranks the same */
  KeyOrder(int[] slots) {
    this.slots = slots;
  }

  @Override
  public int compare(Object[] a, Object[] b) {
    for (int slot : slots) {
      int c = compareValues(slot < a.length ? a[slot] : null, slot < b.length ? b[slot] : null);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compareValues(Object x, Object y) {
    if (x == null || y == null) {
      return x == null ? (y == null ? 0 : 1) : -1;
    }
    if (x instanceof String s && y instanceof String t) {
      return io.lakesink.event.StringOrder.compare(s, t);
    }
    if (x.getClass() == y.getClass() && x instanceof Comparable c) {
      return c.compareTo(y);
    }
    // Values of one column share a type; anything else only needs a consistent order.
    return x.getClass().getName().compareTo(y.getClass().getName());
  }

  /**
   * Sorts rows in this order (stable, as {@link java.util.List#sort}). Keyed on one column, each
   * row is first compared by the first eight characters of its string key packed into a long,
   * when they are all below U+0100 (then code point order is char order, and a shorter string's
   * zero padding sorts it first, as a prefix does): comparisons then read small objects made
   * side by side instead of following each row to its string (sorting a follow's 87,000 rows that
   * way was 8 % of the follow). Equal or unpackable prefixes are compared in full.
   */
  void sort(java.util.List<Object[]> rows) {
    if (slots.length != 1 || rows.size() < 2) {
      rows.sort(this);
      return;
    }
    int slot = slots[0];
    Keyed[] keyed = new Keyed[rows.size()];
    for (int i = 0; i < keyed.length; i++) {
      Object[] row = rows.get(i);
      keyed[i] = Keyed.of(row, slot < row.length ? row[slot] : null);
    }
    sortStably(keyed);
    for (int i = 0; i < keyed.length; i++) {
      rows.set(i, keyed[i].row);
    }
  }

  /** Rows sorted by insertion before runs are merged. */
  private static final int RUN = 32;

  /**
   * A stable merge sort of keyed rows: code of its own rather than {@link java.util.Arrays#sort}'s
   * TimSort, which the whole worker shares. C2 compiles TimSort for the array types it has seen;
   * other callers' arrays between two follows made it deoptimize at the next follow's sort
   * ({@code array_check}), and C2 compiled its merges again at every follow.
   */
  private static void sortStably(Keyed[] rows) {
    int n = rows.length;
    for (int lo = 0; lo < n; lo += RUN) {
      insertionSort(rows, lo, Math.min(lo + RUN, n));
    }
    Keyed[] from = rows;
    Keyed[] to = new Keyed[n];
    for (int width = RUN; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        if (mid == hi || compare(from[mid - 1], from[mid]) <= 0) {
          System.arraycopy(from, lo, to, lo, hi - lo); // in order already (or a lone run)
          continue;
        }
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
          // The left one on a tie: equal keys keep their order.
          to[k++] = compare(from[j], from[i]) < 0 ? from[j++] : from[i++];
        }
        System.arraycopy(from, i, to, k, mid - i);
        System.arraycopy(from, j, to, k + mid - i, hi - j);
      }
      Keyed[] merged = to;
      to = from;
      from = merged;
    }
    if (from != rows) {
      System.arraycopy(from, 0, rows, 0, n);
    }
  }

  private static void insertionSort(Keyed[] rows, int lo, int hi) {
    for (int i = lo + 1; i < hi; i++) {
      Keyed row = rows[i];
      int j = i - 1;
      while (j >= lo && compare(rows[j], row) > 0) {
        rows[j + 1] = rows[j];
        j--;
      }
      rows[j + 1] = row;
    }
  }

  private static int compare(Keyed a, Keyed b) {
    if (a.packed && b.packed) {
      int c = Long.compareUnsigned(a.prefix, b.prefix);
      if (c != 0) {
        return c;
      }
    }
    return compareValues(a.key, b.key);
  }

  /** A row with its key, and the key's first characters packed when they fit a byte each. */
  private static final class Keyed {
    final Object[] row;
    final Object key;
    final long prefix;
    final boolean packed;

    private Keyed(Object[] row, Object key, long prefix, boolean packed) {
      this.row = row;
      this.key = key;
      this.prefix = prefix;
      this.packed = packed;
    }

    static Keyed of(Object[] row, Object key) {
      if (!(key instanceof String s)) {
        return new Keyed(row, key, 0, false);
      }
      long prefix = 0;
      for (int i = 0; i < 8; i++) {
        char c = i < s.length() ? s.charAt(i) : 0;
        if (c > 0xFF) {
          return new Keyed(row, key, 0, false);
        }
        prefix = prefix << 8 | c;
      }
      return new Keyed(row, key, prefix, true);
    }
  }
}
