package io.lakesink.kafka.decode;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.RowSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The row schemas of rows without a schema, by their field names, shared by all rows of the
 * same fields (bounded: a stream whose fields keep changing must not grow it without end).
 */
final class UntypedSchemas {
  private final Map<List<String>, RowSchema> schemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  // The most recently used entry: a row with the same fields needs no lookup. It stays the
  // cache's most recent entry until another lookup, which replaces it here.
  private List<String> lastNames = List.of();
  private RowSchema last = untyped(List.of());

  RowSchema of(List<String> names) {
    RowSchema schema = schemas.computeIfAbsent(names, UntypedSchemas::untyped);
    lastNames = names;
    last = schema;
    return schema;
  }

  List<String> lastNames() {
    return lastNames;
  }

  RowSchema last() {
    return last;
  }

  private static RowSchema untyped(List<String> names) {
    List<Column> columns = new ArrayList<>(names.size());
    names.forEach(n -> columns.add(new Column(n, ColumnType.STRING)));
    return new RowSchema(columns, false);
  }
}
