package io.lakesink.backfill;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.RowLayout;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.mapping.ColumnMapping;
import io.lakesink.mapping.ColumnRule;
import io.lakesink.merge.StoredRows;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Source rows rendered into table rows by the stream's own code: each row becomes a change event
 * ({@code r}, at {@code __ts_ms = 0}), goes through the subscription's column mapping
 * ({@link ColumnMapping}: select, rename, cast) and is placed and fitted into the table's columns
 * ({@link RowLayout}), as {@code ChangelogRows} and {@code MergeDelivery} do. Only the text of
 * untyped sources needs a step of its own: it is read in the type of its column
 * ({@link TextValues}).
 *
 * <p>Rows rank below every streamed change: no Kafka position, and {@code __ts_ms = 0} in a
 * changelog (as the view needs it), none in a MERGE table. A backfill never adds a column: a
 * source column the table lacks is refused.
 */
final class BackfillRows {
  /**
   * The source time of a backfilled changelog row: below any change the stream delivers with a
   * source time, as the view ranks them.
   */
  static final long TS_MS = 0L;

  private final Subscription subscription;
  private final String table;
  private final List<Column> tableColumns;
  private final Map<String, Column> byName = new HashMap<>();
  private final List<Column> metadata;
  private final ColumnMapping mapping;
  private final Map<String, ColumnRule> ruleBySource = new HashMap<>();
  private final StoredRows key;
  private final String positionLabel;
  /** Per untyped source shape: the same columns, typed by the table. */
  private final Map<RowSchema, RowSchema> typedShapes = new IdentityHashMap<>();

  /** Rendered rows in table order, with their keys (null for an empty key). */
  record Rendered(List<Column> columns, List<Object[]> rows, List<List<Object>> keys, Set<String> sourceColumns) {}

  BackfillRows(Subscription subscription, List<Column> tableColumns, String backfillId) {
    this.subscription = subscription;
    this.table = subscription.targetTable();
    this.tableColumns = List.copyOf(tableColumns);
    tableColumns.forEach(c -> byName.put(c.name(), c));
    // The mode's metadata columns as the table has them (a mapped MERGE table has no __op).
    this.metadata = tableColumns.stream().filter(c -> ChangelogColumns.NAMES.contains(c.name())).toList();
    this.mapping = new ColumnMapping(table, subscription.columns());
    subscription.columns().forEach(r -> ruleBySource.putIfAbsent(r.source(), r));
    List<Column> keyColumns = new ArrayList<>();
    for (String k : subscription.primaryKey()) {
      Column c = byName.get(k);
      if (c == null) {
        throw Errors.backfillKeyColumnMissing(table, k);
      }
      keyColumns.add(c);
    }
    this.key = new StoredRows(keyColumns);
    this.positionLabel = "backfill " + backfillId;
  }

  StoredRows key() {
    return key;
  }

  /**
   * @param firstPosition the source position of {@code rows.get(0)} (rows before it in the source)
   * @param ingestDate the {@code __ingest_date} of a changelog row
   */
  Rendered render(List<SourceRow> rows, long firstPosition, LocalDate ingestDate) {
    List<ChangeEvent> events = new ArrayList<>(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      events.add(event(rows.get(i), firstPosition + i));
    }
    RowLayout layout;
    try {
      layout = new RowLayout(table, tableColumns, events, metadata);
    } catch (TableFailureException e) {
      // The events carry their source position as offset: the refused row is found by it.
      long position = e.position().map(SourcePosition::offset).orElse(firstPosition);
      int index = (int) Math.max(0, Math.min(rows.size() - 1, position - firstPosition));
      throw refused(e, rows.get(index), position);
    }
    if (layout.columns().size() > tableColumns.size()) {
      throw Errors.backfillUnknownColumns(table,
          layout.columns().subList(tableColumns.size(), layout.columns().size()).stream().map(Column::name).toList());
    }
    Set<String> sourceColumns = new java.util.HashSet<>();
    events.forEach(e -> e.schema().columns().forEach(c -> sourceColumns.add(c.name())));
    List<Object[]> out = new ArrayList<>(events.size());
    List<List<Object>> keys = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      ChangeEvent e = events.get(i);
      Object[] row;
      try {
        row = layout.row(e);
      } catch (TableFailureException x) {
        throw refused(x, rows.get(i), firstPosition + i);
      }
      fillMetadata(layout, row, ingestDate);
      out.add(row);
      keys.add(key.keyOf(name -> row[layout.slot(name)]));
    }
    return new Rendered(layout.columns(), out, keys, sourceColumns);
  }

  private void fillMetadata(RowLayout layout, Object[] row, LocalDate ingestDate) {
    for (Column c : metadata) {
      int slot = layout.slot(c.name());
      row[slot] = switch (c.name()) {
        case ChangelogColumns.OP -> Operation.READ.code();
        case ChangelogColumns.DELETED -> false;
        // A merged row without any ordering value ranks below every change (ChangeOrder.UNKNOWN),
        // even one whose record carries no source time: at 0 it would outrank those for good.
        case ChangelogColumns.TS_MS -> changelog() ? TS_MS : null;
        case ChangelogColumns.INGEST_DATE -> ingestDate;
        default -> null; // __partition, __offset: no Kafka position
      };
    }
  }

  /** The row as the stream's decoders would hand it on, then through the column mapping. */
  private ChangeEvent event(SourceRow row, long position) {
    RowSchema schema = row.schema();
    Object[] values = row.values();
    if (!schema.typed()) {
      RowSchema typed = typedShapes.computeIfAbsent(schema, this::typedByTable);
      values = values.clone();
      for (int i = 0; i < values.length; i++) {
        ColumnType t = typed.columns().get(i).type();
        if (values[i] instanceof String s && t.kind() != ColumnType.Kind.STRING) {
          try {
            values[i] = TextValues.read(s, t);
          } catch (IllegalArgumentException e) {
            throw Errors.backfillRowRefused(table, place(row, position), "column " + schema.columns().get(i).name() + ": " + e.getMessage());
          }
        }
      }
      schema = typed;
    }
    ChangeEvent e = new ChangeEvent(
        new SourcePosition(positionLabel, 0, position), Operation.READ, TS_MS, schema, values, List.of(), 0);
    try {
      return mapping.apply(e);
    } catch (TableFailureException x) {
      throw refused(x, row, position);
    }
  }

  /**
   * An untyped column is read in the type of the column it lands in: its mapping's cast parses
   * the text itself, otherwise the table column of its (mapped) name says.
   */
  private RowSchema typedByTable(RowSchema source) {
    List<Column> columns = new ArrayList<>(source.size());
    for (Column c : source.columns()) {
      ColumnRule rule = ruleBySource.get(c.name());
      ColumnType type = ColumnType.STRING;
      if (rule == null || rule.cast() == null) {
        Column target = byName.get(rule == null ? c.name() : rule.name());
        if (target != null && !ChangelogColumns.NAMES.contains(target.name())) {
          type = target.type();
        }
      }
      columns.add(new Column(c.name(), type));
    }
    return new RowSchema(columns, true);
  }

  /**
   * The stream would quarantine the table for this row; a backfill refuses it and stops. The
   * stream's message names the Kafka position the row was given (a 0-based count): it names the
   * row's place instead, as the rest of the message does.
   */
  private ConfigurationException refused(TableFailureException e, SourceRow row, long position) {
    String place = place(row, position);
    String reason = e.position().map(at -> e.getMessage().replace(at.toString(), place)).orElse(e.getMessage());
    return Errors.backfillRowRefused(table, place, reason);
  }

  /** The row's place in its source; a source that cannot tell counts the rows from 1. */
  private static String place(SourceRow row, long position) {
    return row.origin() != null ? row.origin().toString() : Errors.backfillRowPlace("the backfill source", false, position + 1);
  }

  boolean changelog() {
    return subscription.mode() == DeliveryMode.CHANGELOG;
  }
}
