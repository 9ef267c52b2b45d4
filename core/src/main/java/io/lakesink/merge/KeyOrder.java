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
    this.slots = key.slots();
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
      return FilePruning.compareCodePoints(s, t);
    }
    if (x.getClass() == y.getClass() && x instanceof Comparable c) {
      return c.compareTo(y);
    }
    // Values of one column share a type; anything else only needs a consistent order.
    return x.getClass().getName().compareTo(y.getClass().getName());
  }
}
