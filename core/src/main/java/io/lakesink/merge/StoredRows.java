package io.lakesink.merge;

import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The rows a table holds for some keys, found as a merge finds them: only the files whose key
 * statistics may hold one are read ({@link FilePruning}), and keys compare in the form the table
 * stores them ({@link StorageForm}). What a backfill uses to insert only the keys a MERGE table
 * lacks and to compare its rows with the ones the stream delivered.
 */
public final class StoredRows {
  private final List<Column> key;

  /** @param key the key columns, with their types in the table */
  public StoredRows(List<Column> key) {
    this.key = List.copyOf(key);
  }

  /**
   * A row's key as the table stores it, or null when a key value is empty (null, or an empty
   * string), as a merge treats it.
   *
   * @param value the row's value of a column, by name
   */
  public List<Object> keyOf(Function<String, Object> value) {
    List<Object> out = new ArrayList<>(key.size());
    for (Column c : key) {
      Object v = value.apply(c.name());
      if (v == null || (v instanceof String s && s.isEmpty())) {
        return null;
      }
      out.add(StorageForm.of(v, c.type()));
    }
    return out;
  }

  /** A value in the form the table stores it, so equal values compare equal. */
  public static Object storageForm(Object value, Column column) {
    return value == null ? null : StorageForm.of(value, column.type());
  }

  /** The table's rows holding one of {@code keys} (from {@link #keyOf}), by key; keys it lacks are absent. */
  public Map<List<Object>, List<Map<String, Object>>> find(DeltaTable table, Collection<List<Object>> keys) {
    Map<List<Object>, List<Map<String, Object>>> out = new HashMap<>();
    if (keys.isEmpty()) {
      return out;
    }
    Set<List<Object>> wanted = new HashSet<>(keys);
    List<TableFile> files = FilePruning.candidates(table.files(), Map.of(key, List.copyOf(wanted)));
    for (TableFile file : files) {
      for (Map<String, Object> row : table.read(file)) {
        List<Object> k = keyOf(row::get);
        if (k != null && wanted.contains(k)) {
          out.computeIfAbsent(k, x -> new ArrayList<>(1)).add(row);
        }
      }
    }
    return out;
  }
}
