package io.lakesink.testing;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds change events for tests without a decoder. */
public final class Events {
  private Events() {}

  public static ChangeEvent event(String topic, int partition, long offset, Operation op, Long ts, Map<String, Object> row) {
    List<Column> cols = new ArrayList<>();
    Object[] values = new Object[row.size()];
    int i = 0;
    for (Map.Entry<String, Object> e : row.entrySet()) {
      cols.add(new Column(e.getKey(), typeOf(e.getValue())));
      values[i++] = e.getValue();
    }
    return new ChangeEvent(
        new SourcePosition(topic, partition, offset), op, ts, new RowSchema(cols, true), values, List.of("id"), 100);
  }

  public static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static ColumnType typeOf(Object v) {
    if (v instanceof Long) return ColumnType.BIGINT;
    if (v instanceof Integer) return ColumnType.INT;
    if (v instanceof Boolean) return ColumnType.BOOLEAN;
    if (v instanceof Double) return ColumnType.DOUBLE;
    return ColumnType.STRING;
  }
}
