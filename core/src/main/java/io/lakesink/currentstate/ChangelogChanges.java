package io.lakesink.currentstate;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Changelog rows turned back into the change events they record, for the MERGE engine: the
 * source columns as the row image, {@code __op} as the operation ({@code __deleted} makes a
 * delete of a row without one), {@code __ts_ms} and the Kafka position as its rank. A row
 * without a Kafka position (a backfill's) gets the lowest one, so it ranks below every streamed
 * change of the same time, as its nulls rank in the view; the kept table stores it as null again.
 */
final class ChangelogChanges {
  /** Stands for a null {@code __partition} / {@code __offset}: below every real value. */
  static final int NO_PARTITION = Integer.MIN_VALUE;
  static final long NO_OFFSET = Long.MIN_VALUE;

  private ChangelogChanges() {}

  /**
   * @param label what positions name as their topic (in error messages)
   * @param columns the changelog's columns
   */
  static List<ChangeEvent> of(String label, List<Column> columns, List<Map<String, Object>> rows) {
    List<Column> source = columns.stream().filter(c -> !ChangelogColumns.NAMES.contains(c.name())).toList();
    RowSchema schema = new RowSchema(source, true);
    List<ChangeEvent> out = new ArrayList<>(rows.size());
    for (Map<String, Object> row : rows) {
      Object partition = row.get(ChangelogColumns.PARTITION);
      Object offset = row.get(ChangelogColumns.OFFSET);
      SourcePosition position = new SourcePosition(label,
          partition == null ? NO_PARTITION : ((Number) partition).intValue(),
          offset == null ? NO_OFFSET : ((Number) offset).longValue());
      Object ts = row.get(ChangelogColumns.TS_MS);
      Long tsMs = ts == null ? null : ((Number) ts).longValue();
      Operation op = Operation.fromCode((String) row.get(ChangelogColumns.OP));
      if (op == Operation.TRUNCATE) {
        out.add(ChangeEvent.truncate(position, tsMs, 0));
        continue;
      }
      if (Boolean.TRUE.equals(row.get(ChangelogColumns.DELETED))) {
        op = Operation.DELETE; // the view filters on __deleted, whatever __op says
      } else if (op == Operation.DELETE) {
        op = Operation.UPDATE; // not deleted in the changelog: the view shows it
      }
      Object[] values = new Object[source.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.get(source.get(i).name());
      }
      out.add(new ChangeEvent(position, op, tsMs, schema, values, List.of(), 0));
    }
    return out;
  }
}
