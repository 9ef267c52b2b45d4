package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Spark results as plain Java values, and row-by-row comparison with readable failures. */
final class SparkRows {
  private SparkRows() {}

  /** Rows as column → value, in the Dataset's column order (Java 8 time types: LocalDate, Instant). */
  static List<Map<String, Object>> collect(Dataset<Row> df) {
    String[] names = df.schema().fieldNames();
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < names.length; i++) {
        m.put(names[i], r.get(i));
      }
      out.add(m);
    }
    return out;
  }

  /** A schema as "name type" lines (nullability checked separately), for readable diffs. */
  static List<String> describe(StructType schema) {
    List<String> out = new ArrayList<>();
    for (StructField f : schema.fields()) {
      out.add(f.name() + " " + f.dataType().sql());
    }
    return out;
  }

  static void assertSchema(List<Map.Entry<String, DataType>> expected, StructType actual, String what) {
    List<String> want = new ArrayList<>();
    expected.forEach(e -> want.add(e.getKey() + " " + e.getValue().sql()));
    assertEquals(want, describe(actual), what + ": columns and types");
    for (StructField f : actual.fields()) {
      if (!f.nullable()) {
        fail(what + ": column " + f.name() + " is not nullable; lakesink declares every column nullable");
      }
    }
  }

  /**
   * Same rows, same order after sorting both by {@code order}; on a difference, names the first
   * differing row and column instead of printing hundreds of rows.
   */
  static void assertRows(
      List<Map<String, Object>> expected, List<Map<String, Object>> actual, Comparator<Map<String, Object>> order, String what) {
    List<Map<String, Object>> e = new ArrayList<>(expected);
    List<Map<String, Object>> a = new ArrayList<>(actual);
    e.sort(order);
    a.sort(order);
    int n = Math.min(e.size(), a.size());
    for (int i = 0; i < n; i++) {
      if (!e.get(i).equals(a.get(i))) {
        StringBuilder diff = new StringBuilder();
        for (String k : union(e.get(i), a.get(i))) {
          Object ev = e.get(i).get(k);
          Object av = a.get(i).get(k);
          if (ev == null ? av != null : !ev.equals(av)) {
            diff.append("\n  ").append(k).append(": expected ").append(show(ev)).append(", Spark read ").append(show(av));
          }
        }
        fail(what + ": row " + i + " differs" + diff + "\n  expected row: " + e.get(i) + "\n  Spark's row:  " + a.get(i));
      }
    }
    assertEquals(e.size(), a.size(), what + ": number of rows (all compared rows were equal)");
  }

  private static List<String> union(Map<String, Object> x, Map<String, Object> y) {
    List<String> keys = new ArrayList<>(x.keySet());
    y.keySet().stream().filter(k -> !x.containsKey(k)).forEach(keys::add);
    return keys;
  }

  private static String show(Object v) {
    return v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")";
  }

  /** Orders changelog rows by source position. */
  static final Comparator<Map<String, Object>> BY_POSITION =
      Comparator.<Map<String, Object>>comparingInt(r -> ((Number) r.get("__partition")).intValue())
          .thenComparingLong(r -> ((Number) r.get("__offset")).longValue());

  /** Orders current-state rows by their key column {@code id}, numerically when it is a number. */
  static final Comparator<Map<String, Object>> BY_ID =
      Comparator.comparing(r -> {
        Object id = r.get("id");
        return id instanceof Number n ? n.longValue() : Long.parseLong((String) id);
      });
}
