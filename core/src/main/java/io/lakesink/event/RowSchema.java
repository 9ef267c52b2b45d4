package io.lakesink.event;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of one source row image, in source order. Decoders share one instance between all
 * rows of the same shape, so a batch rarely holds more than a handful.
 */
public final class RowSchema {
  private final List<Column> columns;
  private final Map<String, Integer> index;
  private final boolean typed;

  /**
   * @param typed false when the record carried no usable schema and every column is a string
   */
  public RowSchema(List<Column> columns, boolean typed) {
    this.columns = List.copyOf(columns);
    this.typed = typed;
    this.index = new HashMap<>(columns.size() * 2);
    for (int i = 0; i < columns.size(); i++) {
      index.put(columns.get(i).name(), i);
    }
  }

  public List<Column> columns() {
    return columns;
  }

  public int size() {
    return columns.size();
  }

  public boolean typed() {
    return typed;
  }

  /** Position of the column, or -1. */
  public int indexOf(String name) {
    Integer i = index.get(name);
    return i == null ? -1 : i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowSchema other && typed == other.typed && columns.equals(other.columns);
  }

  @Override
  public int hashCode() {
    return columns.hashCode();
  }

  @Override
  public String toString() {
    return columns.toString();
  }
}
