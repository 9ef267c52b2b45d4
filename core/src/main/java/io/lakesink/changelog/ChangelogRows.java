package io.lakesink.changelog;

import io.lakesink.delivery.RowLayout;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Changelog rows: the source row image ({@link RowLayout}), then {@code __op},
 * {@code __deleted}, {@code __ts_ms}, {@code __partition}, {@code __offset} and
 * {@code __ingest_date}. A truncate is recorded as a row with {@code __op = 't'}, deleted, and
 * every source column null.
 */
final class ChangelogRows {
  private final RowLayout layout;

  /** @param existing the table's columns, or empty for a table not created yet */
  ChangelogRows(String table, List<Column> existing, List<ChangeEvent> events) {
    this.layout = new RowLayout(table, existing, events, ChangelogColumns.METADATA);
  }

  List<Column> columns() {
    return layout.columns();
  }

  AppendRequest request(
      List<ChangeEvent> events, LocalDate ingestDate, CommitOffsets offsets, Map<String, String> properties) {
    int op = layout.slot(ChangelogColumns.OP);
    int deleted = layout.slot(ChangelogColumns.DELETED);
    int ts = layout.slot(ChangelogColumns.TS_MS);
    int partition = layout.slot(ChangelogColumns.PARTITION);
    int offset = layout.slot(ChangelogColumns.OFFSET);
    int day = layout.slot(ChangelogColumns.INGEST_DATE);
    List<Object[]> rows = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      Object[] row = layout.row(e);
      row[op] = e.op() == null ? null : e.op().code();
      // A truncate is a row without source values: deleted, so no reader takes it for a row;
      // the view hides every change ranked below it (CurrentStateView).
      row[deleted] = e.isDelete() || e.isTruncate();
      row[ts] = e.tsMs();
      row[partition] = e.position().partition();
      row[offset] = e.position().offset();
      row[day] = ingestDate;
      rows.add(row);
    }
    return new AppendRequest(
        layout.columns(),
        ChangelogColumns.PARTITION_COLUMNS,
        Map.of(ChangelogColumns.INGEST_DATE, ingestDate),
        rows,
        offsets,
        properties);
  }
}
