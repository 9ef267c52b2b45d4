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
      Object v = slots[0] < row.length ? row[slots[0]] : null;
      return v == null || (v instanceof String s && s.isEmpty()) ? null : new RowKey(names, List.of(StorageForm.of(v, types[0])));
    }
    Object[] values = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      Object v = slots[i] < row.length ? row[slots[i]] : null;
      if (v == null || (v instanceof String s && s.isEmpty())) {
        return null;
      }
      values[i] = StorageForm.of(v, types[i]);
    }
    return new RowKey(names, Arrays.asList(values));
  }

  /** A key: which columns, and their values. Rows match when both are equal. */
  record RowKey(List<String> columns, List<Object> values) {
    // By index, not by the lists' own equals and hashCode: those take an iterator per call, and a
    // merge compares a key for every row it reads and every map it looks one up in.
    @Override
    public boolean equals(Object o) {
      if (this == o) {
        return true;
      }
      if (!(o instanceof RowKey k) || values.size() != k.values.size()) {
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
      int h = 1;
      for (int i = 0; i < values.size(); i++) {
        h = 31 * h + java.util.Objects.hashCode(values.get(i));
      }
      return h;
    }
  }
}
