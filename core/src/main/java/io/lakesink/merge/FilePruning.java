package io.lakesink.merge;

import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.StringOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Keeps only the files whose key statistics may hold one of the batch's keys: a file is skipped
 * when, for some key column, no batch key falls within the file's min/max of that column.
 * Columns without usable statistics never prune.
 */
final class FilePruning {
  private FilePruning() {}

  /**
   * @param keysByColumns the batch's key values per key column set (one set, unless the record
   *     key's fields changed): a file is kept when it may hold a key of any set
   */
  static List<TableFile> candidates(List<TableFile> files, Map<List<Column>, List<List<Object>>> keysByColumns) {
    List<TableFile> out = new ArrayList<>();
    for (TableFile f : files) {
      if (keysByColumns.entrySet().stream().anyMatch(e -> mayHold(f, e.getKey(), e.getValue()))) {
        out.add(f);
      }
    }
    return out;
  }

  private static boolean mayHold(TableFile f, List<Column> keyColumns, List<List<Object>> keys) {
    for (int c = 0; c < keyColumns.size(); c++) {
      Column col = keyColumns.get(c);
      Object min = f.min().get(col.name());
      Object max = f.max().get(col.name());
      if (min == null || max == null || !prunable(col.type())) {
        continue;
      }
      boolean any = false;
      for (List<Object> key : keys) {
        if (within(key.get(c), min, max)) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  private static boolean prunable(ColumnType t) {
    return t.kind() == ColumnType.Kind.BIGINT || t.kind() == ColumnType.Kind.INT || t.kind() == ColumnType.Kind.STRING;
  }

  private static boolean within(Object v, Object min, Object max) {
    if (v instanceof Number n && min instanceof Number lo && max instanceof Number hi) {
      long x = n.longValue();
      return lo.longValue() <= x && x <= hi.longValue();
    }
    if (v instanceof String s && min instanceof String lo && max instanceof String hi) {
      // Parquet orders strings by UTF-8 bytes, which is code point order.
      return StringOrder.compare(lo, s) <= 0 && StringOrder.compare(s, hi) <= 0;
    }
    return true; // unexpected statistics: read the file rather than risk missing a row
  }
}
