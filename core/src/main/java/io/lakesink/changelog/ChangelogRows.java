package io.lakesink.changelog;

import io.lakesink.delta.AppendRequest;
import io.lakesink.error.Errors;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.types.ValueCoercion;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where change events become changelog rows: the source row image, then {@code __op},
 * {@code __deleted}, {@code __ts_ms}, {@code __partition}, {@code __offset} and
 * {@code __ingest_date}. Columns the table lacks are added at the end; values are fitted into the
 * table's existing column types or the table fails with the column named.
 */
final class ChangelogRows {
  private final String table;
  private final List<Column> columns;
  private final Map<String, Integer> index = new HashMap<>();
  /** Per row shape: where each source column lands in the table row. */
  private final Map<RowSchema, int[]> slotsBySchema = new IdentityHashMap<>();

  /** @param existing the table's columns, or empty for a table not created yet */
  ChangelogRows(String table, List<Column> existing, List<ChangeEvent> events) {
    this.table = table;
    this.columns = new ArrayList<>(existing);
    boolean newTable = existing.isEmpty();
    for (int i = 0; i < columns.size(); i++) {
      index.put(columns.get(i).name(), i);
    }
    for (ChangeEvent e : events) {
      slotsBySchema.computeIfAbsent(e.schema(), s -> placeColumns(s, e));
    }
    if (newTable) {
      for (Column c : ChangelogColumns.METADATA) {
        index.put(c.name(), columns.size());
        columns.add(c);
      }
      // Slots were computed before the metadata columns existed; they are unaffected because
      // data columns come first in a new table.
    }
  }

  private int[] placeColumns(RowSchema schema, ChangeEvent first) {
    int[] slots = new int[schema.size()];
    for (int i = 0; i < schema.size(); i++) {
      Column c = schema.columns().get(i);
      if (ChangelogColumns.NAMES.contains(c.name())) {
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

  List<Column> columns() {
    return columns;
  }

  AppendRequest request(
      List<ChangeEvent> events, LocalDate ingestDate, Map<String, Long> transactionIds, Map<String, String> properties) {
    int op = index.get(ChangelogColumns.OP);
    int deleted = index.get(ChangelogColumns.DELETED);
    int ts = index.get(ChangelogColumns.TS_MS);
    int partition = index.get(ChangelogColumns.PARTITION);
    int offset = index.get(ChangelogColumns.OFFSET);
    int day = index.get(ChangelogColumns.INGEST_DATE);
    List<Object[]> rows = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      Object[] row = new Object[columns.size()];
      int[] slots = slotsBySchema.get(e.schema());
      List<Column> source = e.schema().columns();
      for (int i = 0; i < slots.length; i++) {
        Object v = e.values()[i];
        Column target = columns.get(slots[i]);
        if (v != null && !target.type().equals(source.get(i).type())) {
          v = fit(v, source.get(i), target, e);
        }
        row[slots[i]] = v;
      }
      row[op] = e.op() == null ? null : e.op().code();
      row[deleted] = e.isDelete();
      row[ts] = e.tsMs();
      row[partition] = e.position().partition();
      row[offset] = e.position().offset();
      row[day] = ingestDate;
      rows.add(row);
    }
    return new AppendRequest(
        columns,
        ChangelogColumns.PARTITION_COLUMNS,
        Map.of(ChangelogColumns.INGEST_DATE, ingestDate),
        rows,
        transactionIds,
        properties);
  }

  private Object fit(Object v, Column source, Column target, ChangeEvent e) {
    try {
      return ValueCoercion.coerce(v, source.type(), target.type());
    } catch (ValueCoercion.DoesNotFit x) {
      throw Errors.columnTypeConflict(table, target.name(), target.type(), source.type(), v, e.position());
    }
  }
}
