package io.lakesink.backfill;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.Errors;
import io.lakesink.event.Column;
import io.lakesink.merge.StoredRows;
import io.lakesink.view.CurrentState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Before a backfill writes anything: a sample of its rendered rows compared, column by column,
 * with the rows the stream delivered for the same keys. A row passes when it equals one version
 * the stream delivered (a changelog keeps them all, a MERGE table the latest); otherwise its
 * differences from the latest version are reported. A source that renders a column differently (another name,
 * type, time zone, decimal scale, cast) is refused with the column and both values, before a
 * single row is written.
 */
final class RenderCheck {
  /** How many differing columns a refusal lists. */
  static final int MAX_DIFFERENCES = 5;

  /**
   * @param sampled rows of the sample
   * @param compared rows the stream also delivered, compared
   * @param unfilled columns of the table the source does not provide: backfilled rows hold null
   * @param refusal the differences found, as the message to show
   */
  record Result(int sampled, int compared, List<String> unfilled, Optional<String> refusal) {
    boolean passed() {
      return refusal.isEmpty();
    }
  }

  private RenderCheck() {}

  static Result run(String table, DeltaTable delta, BackfillRows.Rendered sample, StoredRows key) {
    Set<List<Object>> keys = new LinkedHashSet<>();
    sample.keys().stream().filter(Objects::nonNull).forEach(keys::add);
    Map<List<Object>, List<Map<String, Object>>> stored = key.find(delta, keys);
    List<Column> columns = sample.columns();
    Map<String, String> differences = new LinkedHashMap<>(); // first difference per column
    int compared = 0;
    for (int i = 0; i < sample.rows().size(); i++) {
      List<Object> k = sample.keys().get(i);
      List<Map<String, Object>> versions = k == null ? List.of() : streamedVersions(stored.get(k));
      if (versions.isEmpty()) {
        continue;
      }
      compared++;
      Object[] row = sample.rows().get(i);
      if (versions.stream().anyMatch(v -> differences(columns, sample.sourceColumns(), row, v).isEmpty())) {
        continue; // renders as one version the stream delivered (a changelog keeps every version)
      }
      Map<String, Object> latest = versions.get(0);
      for (Map.Entry<Column, Object[]> d : differences(columns, sample.sourceColumns(), row, latest).entrySet()) {
        differences.putIfAbsent(d.getKey().name(), "column " + d.getKey().name() + " (" + d.getKey().type() + ") of key " + k
            + ": the backfill renders " + quote(d.getValue()[0]) + ", the stream delivered " + quote(d.getValue()[1]));
      }
    }
    List<String> unfilled = columns.stream().map(Column::name)
        .filter(n -> !ChangelogColumns.NAMES.contains(n) && !sample.sourceColumns().contains(n)).toList();
    Optional<String> refusal = differences.isEmpty()
        ? Optional.empty()
        : Optional.of(Errors.backfillRenderMismatch(table, differences.values().stream().limit(MAX_DIFFERENCES).toList()));
    return new Result(sample.rows().size(), compared, unfilled, refusal);
  }

  /** The source's columns that differ between a rendered row and a stored one: column → {backfilled, delivered}. */
  private static Map<Column, Object[]> differences(List<Column> columns, Set<String> sourceColumns, Object[] row, Map<String, Object> stored) {
    Map<Column, Object[]> out = new LinkedHashMap<>();
    for (int c = 0; c < columns.size(); c++) {
      Column column = columns.get(c);
      if (ChangelogColumns.NAMES.contains(column.name()) || !sourceColumns.contains(column.name())) {
        continue;
      }
      Object backfilled = StoredRows.storageForm(row[c], column);
      Object delivered = StoredRows.storageForm(stored.get(column.name()), column);
      if (!Objects.equals(backfilled, delivered)) {
        out.put(column, new Object[] {backfilled, delivered});
      }
    }
    return out;
  }

  /**
   * The versions of a key the stream delivered, latest first as the view ranks them; none when
   * the stream never delivered it or its latest change deletes it. Rows without a Kafka position
   * were backfilled, not streamed.
   */
  private static List<Map<String, Object>> streamedVersions(List<Map<String, Object>> rows) {
    if (rows == null) {
      return List.of();
    }
    List<Map<String, Object>> streamed = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      if (r.get(ChangelogColumns.PARTITION) != null) {
        streamed.add(r);
      }
    }
    CurrentState.sortLatestFirst(streamed);
    if (streamed.isEmpty() || Boolean.TRUE.equals(streamed.get(0).get(ChangelogColumns.DELETED))) {
      return List.of();
    }
    streamed.removeIf(r -> Boolean.TRUE.equals(r.get(ChangelogColumns.DELETED)));
    return streamed;
  }

  private static String quote(Object v) {
    if (v == null) {
      return "null";
    }
    return v instanceof String s ? "'" + s + "'" : v + " (" + v.getClass().getSimpleName() + ")";
  }
}
