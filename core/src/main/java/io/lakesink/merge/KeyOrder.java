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
    // An Object[], not a Keyed[]: every other sort a worker runs (a list's) hands TimSort an
    // Object[], and the JIT, having compiled TimSort for one array type, threw its code away at
    // the other's first store and compiled it again, at every follow of a kept table (JFR's
    // jdk.Deoptimization in a run of 2M events: 59 of TimSort, 40 for array stores; with this, 7 and none).
    Object[] keyed = new Object[rows.size()];
    for (int i = 0; i < keyed.length; i++) {
      Object[] row = rows.get(i);
      keyed[i] = Keyed.of(row, slot < row.length ? row[slot] : null);
    }
    java.util.Arrays.sort(keyed, (x, y) -> {
      Keyed a = (Keyed) x;
      Keyed b = (Keyed) y;
      if (a.packed && b.packed) {
        int c = Long.compareUnsigned(a.prefix, b.prefix);
        if (c != 0) {
          return c;
        }
      }
      return compareValues(a.key, b.key);
    });
    for (int i = 0; i < keyed.length; i++) {
      rows.set(i, ((Keyed) keyed[i]).row);
    }
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
