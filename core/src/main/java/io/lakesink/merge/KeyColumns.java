package io.lakesink.merge;

import io.lakesink.delivery.RowLayout;
import io.lakesink.event.ColumnType;
import java.util.Arrays;
import java.util.List;

/**
 * The columns one record is keyed on, located in the table's rows.
 *
 * @param names the key columns, as the primary key or the record key lists them
 * @param slots where they are in a row in table order
 * @param types their column types
 */
record KeyColumns(List<String> names, int[] slots, ColumnType[] types) {
  static KeyColumns of(List<String> names, RowLayout layout) {
    int[] slots = names.stream().mapToInt(layout::slot).toArray();
    ColumnType[] types = Arrays.stream(slots).mapToObj(s -> layout.columns().get(s).type()).toArray(ColumnType[]::new);
    return new KeyColumns(List.copyOf(names), slots, types);
  }

  /**
   * A row's key, its values as the table stores them ({@link StorageForm}), or null when a key
   * value is empty (null, or an empty string).
   */
  RowKey keyOf(Object[] row) {
    if (slots.length == 1) {
      // The usual key: the value itself, not an array and a list around it (a merge holds a key
      // per change of its batch, and makes one per stored row it reads by rows).
      Object v = stored(row, 0);
      return v == null ? null : new RowKey(names, v);
    }
    Object[] values = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      values[i] = stored(row, i);
      if (values[i] == null) {
        return null;
      }
    }
    return new RowKey(names, Arrays.asList(values));
  }

  /** The row's value of the i-th key column as the table stores it, or null when it is empty. */
  private Object stored(Object[] row, int i) {
    Object v = slots[i] < row.length ? row[slots[i]] : null;
    return v == null || (v instanceof String s && s.isEmpty()) ? null : StorageForm.of(v, types[i]);
  }

  /**
   * A key: which columns, and their values. Rows match when both are equal.
   *
   * <p>Its hash is computed once, when it is made (its values were just read, so in the CPU's
   * cache): a merge looks a key up in several maps, and its values are strings scattered over an
   * old heap by then, each lookup chasing the key, its list, the string and its bytes again. A
   * one-column key (the usual one) holds its value itself, not in a list: a follow holds a key
   * per change until its commit, and the list was an object more each that the collector copied.
   */
  static final class RowKey {
    private final List<String> columns;
    /** The first column's value: a one-column key's only one. */
    private final Object first;
    /** Every column's value; null for a one-column key. */
    private final List<Object> values;
    private final int hash;

    /** A one-column key. */
    RowKey(List<String> columns, Object value) {
      this.columns = columns;
      this.first = value;
      this.values = null;
      this.hash = 31 + java.util.Objects.hashCode(value); // as the list of the one value hashes
    }

    /** A key of any number of columns (one held as a one-column key is: the two are equal). */
    RowKey(List<String> columns, List<Object> values) {
      this.columns = columns;
      this.first = values.isEmpty() ? null : values.get(0);
      this.values = values.size() == 1 ? null : values;
      int h = 1;
      // By index, not by the list's own hashCode: that takes an iterator per call.
      for (int i = 0; i < values.size(); i++) {
        h = 31 * h + java.util.Objects.hashCode(values.get(i));
      }
      this.hash = h;
    }

    List<String> columns() {
      return columns;
    }

    /** Its values, in the order of {@link #columns} (a one-column key's made into a list at each call). */
    List<Object> values() {
      return values != null ? values : java.util.Collections.singletonList(first);
    }

    /** The first column's value: the value itself of a one-column key, which the merge's indexes take. */
    Object first() {
      return first;
    }

    /** How many columns it has. */
    int size() {
      return values == null ? 1 : values.size();
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof RowKey k) || hash != k.hash || size() != k.size()) {
        return false;
      }
      if (values == null) {
        if (!java.util.Objects.equals(first, k.first)) {
          return false;
        }
      } else {
        for (int i = 0; i < values.size(); i++) {
          if (!java.util.Objects.equals(values.get(i), k.values.get(i))) {
            return false;
          }
        }
      }
      return columns == k.columns || columns.equals(k.columns);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return "RowKey[columns=" + columns + ", values=" + values() + "]";
    }
  }
}
