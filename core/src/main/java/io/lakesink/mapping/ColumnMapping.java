package io.lakesink.mapping;

import io.lakesink.error.Errors;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.RowSchema;
import io.lakesink.types.Casts;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A subscription's column mapping applied to change events: only the mapped columns, renamed
 * and cast. Without rules, events pass through unchanged. Not thread-safe (caches per shape).
 */
public final class ColumnMapping {
  private final String table;
  private final List<ColumnRule> rules;
  private final Map<RowSchema, Shape> shapes = new IdentityHashMap<>();

  /** How one source row shape maps: the target schema and where each value comes from. */
  private record Shape(RowSchema target, int[] from) {}

  public ColumnMapping(String table, List<ColumnRule> rules) {
    this.table = table;
    this.rules = List.copyOf(rules);
  }

  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The key columns the mapping flags, in mapping order. */
  public List<String> primaryKey() {
    return rules.stream().filter(ColumnRule::primaryKey).map(ColumnRule::name).toList();
  }

  public ChangeEvent apply(ChangeEvent e) {
    if (rules.isEmpty()) {
      return e;
    }
    Shape shape = shapes.computeIfAbsent(e.schema(), this::shape);
    Object[] values = new Object[shape.from().length];
    for (int i = 0; i < values.length; i++) {
      int from = shape.from()[i];
      Object v = from < 0 ? null : e.values()[from];
      ColumnType target = shape.target().columns().get(i).type();
      if (v != null && !target.equals(e.schema().columns().get(from).type())) {
        try {
          v = Casts.cast(v, target);
        } catch (IllegalArgumentException x) {
          throw Errors.castFailed(table, e.schema().columns().get(from).name(), target, x.getMessage(), e.position());
        }
      }
      values[i] = v;
    }
    return new ChangeEvent(e.position(), e.op(), e.tsMs(), shape.target(), values, e.recordKeyFields(), e.sizeBytes(), e.snapshotEnd());
  }

  private Shape shape(RowSchema source) {
    List<Column> columns = new ArrayList<>(rules.size());
    List<Integer> from = new ArrayList<>(rules.size());
    for (ColumnRule rule : rules) {
      int i = source.indexOf(rule.source());
      if (i < 0 && rule.cast() == null) {
        continue; // its type is unknown until a record carries it; rows without it read null
      }
      from.add(i);
      columns.add(new Column(rule.name(), rule.cast() != null ? rule.cast() : source.columns().get(i).type()));
    }
    return new Shape(new RowSchema(columns, source.typed()), from.stream().mapToInt(Integer::intValue).toArray());
  }
}
