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
      // The usual key: one list object holding the value, not an array and a list around it (a
      // merge holds a key per change of its batch, and makes one per stored row it reads by rows).
      Object v = stored(row, 0);
      return v == null ? null : new RowKey(names, List.of(v));
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
   * old heap by then, each lookup chasing the key, its list, the string and its bytes again.
   */
  static final class RowKey {
    private final List<String> columns;
    private final List<Object> values;
    private final int hash;

    RowKey(List<String> columns, List<Object> values) {
      this.columns = columns;
      this.values = values;
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

    List<Object> values() {
      return values;
    }

    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof RowKey k) || hash != k.hash || values.size() != k.values.size()) {
        return false;
      }
      for (int i = 0; i < values.size(); i++) {
        if (!java.util.Objects.equals(values.get(i), k.values.get(i))) {
          return false;
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
      return "RowKey[columns=" + columns + ", values=" + values + "]";
    }
  }
}
