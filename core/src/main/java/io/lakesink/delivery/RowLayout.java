package io.lakesink.delivery;

import io.lakesink.error.Errors;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.types.ValueCoercion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where change events become table rows, for every delivery mode: the table's columns in table
 * order (a new table: source columns first, then the mode's metadata columns; an existing one:
 * its columns, then the source and metadata columns it lacks, at the end), and each event's
 * values placed and fitted into the existing column types. A value that does not fit fails the
 * table with the column named. Metadata slots are left for the mode to fill.
 *
 * <p>Not thread-safe: one per batch, used by the thread writing it.
 */
public final class RowLayout {
  private final String table;
  private final Set<String> reserved;
  private final List<Column> columns;
  private final Map<String, Integer> index = new HashMap<>();
  /** Per row shape: where each source column lands in the table row. */
  private final Map<RowSchema, int[]> slotsBySchema = new IdentityHashMap<>();
  /**
   * Per row shape: which of its columns' values need fitting into the table column's type,
   * decided once per shape instead of comparing types for every value.
   */
  private final Map<RowSchema, boolean[]> coercions = new IdentityHashMap<>();

  /**
   * @param existing the table's columns, or empty for a table not created yet
   * @param metadata the mode's own columns, placed after the source columns of a new table
   */
  public RowLayout(String table, List<Column> existing, List<ChangeEvent> events, List<Column> metadata) {
    this.table = table;
    this.reserved = Set.copyOf(metadata.stream().map(Column::name).toList());
    this.columns = new ArrayList<>(existing);
    for (int i = 0; i < columns.size(); i++) {
      index.put(columns.get(i).name(), i);
    }
    RowSchema previous = null;
    for (ChangeEvent e : events) {
      if (e.schema() != previous) { // a batch is mostly runs of one shape
        previous = e.schema();
        slotsBySchema.computeIfAbsent(previous, s -> placeColumns(s, e));
      }
    }
    // Data columns were placed first, so adding the metadata after them moves nothing. A table
    // created before its mode kept one of these columns gains it at the end: older rows read null.
    for (Column c : metadata) {
      if (!index.containsKey(c.name())) {
        index.put(c.name(), columns.size());
        columns.add(c);
      }
    }
    slotsBySchema.keySet().forEach(schema -> coercions.put(schema, coercions(schema)));
  }

  private int[] placeColumns(RowSchema schema, ChangeEvent first) {
    int[] slots = new int[schema.size()];
    for (int i = 0; i < schema.size(); i++) {
      Column c = schema.columns().get(i);
      if (reserved.contains(c.name())) {
        throw Errors.reservedColumn(table, c.name(), first.position());
      }
      Integer slot = index.get(c.name());
      if (slot == null) {
        slot = columns.size();
        columns.add(c);
        index.put(c.name(), slot);
      }
      slots[i] = slot;
    }
    return slots;
  }

  public List<Column> columns() {
    return columns;
  }

  /** The position of a column in {@link #columns}. */
  public int slot(String column) {
    return index.get(column);
  }

  // The shape of the last row made and its placement: a batch is mostly runs of one shape, and
  // two map lookups for every row showed in the writer's profile.
  private RowSchema lastSchema;
  private int[] lastSlots;
  private boolean[] lastCoerce;

  /** The event's row image in table order; metadata slots are null. */
  public Object[] row(ChangeEvent e) {
    Object[] row = new Object[columns.size()];
    if (e.schema() != lastSchema) {
      lastSlots = slotsBySchema.get(e.schema());
      lastCoerce = coercions.get(e.schema());
      lastSchema = e.schema();
    }
    int[] slots = lastSlots;
    boolean[] coerce = lastCoerce;
    List<Column> source = e.schema().columns();
    Object[] values = e.values();
    for (int i = 0; i < slots.length; i++) {
      Object v = values[i];
      if (v != null && coerce[i]) {
        Column target = columns.get(slots[i]);
        try {
          v = ValueCoercion.coerce(v, source.get(i).type(), target.type());
        } catch (ValueCoercion.DoesNotFit x) {
          throw Errors.columnTypeConflict(table, target.name(), target.type(), source.get(i).type(), e.position());
        }
      }
      row[slots[i]] = v;
    }
    return row;
  }

  private boolean[] coercions(RowSchema schema) {
    int[] slots = slotsBySchema.get(schema);
    boolean[] coerce = new boolean[slots.length];
    for (int i = 0; i < slots.length; i++) {
      coerce[i] = !columns.get(slots[i]).type().equals(schema.columns().get(i).type());
    }
    return coerce;
  }

  /** A row read back from the table, in table order (columns it predates read null). */
  public Object[] stored(Map<String, Object> values) {
    Object[] row = new Object[columns.size()];
    values.forEach((name, v) -> {
      Integer i = index.get(name);
      if (i != null) {
        row[i] = v;
      }
    });
    return row;
  }
}
