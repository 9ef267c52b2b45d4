package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.config.TableNames;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL of the current-state view over a changelog table: the latest change of each key
 * (highest rank time, {@link RankTimes}, then {@code __partition}, then {@code __offset}), with keys whose
 * latest change is a delete hidden, and changes ranked below a truncate hidden. Deletes are
 * filtered after the ranking: filtering first would bring a deleted row's previous version back.
 */
public final class CurrentStateView {
  private CurrentStateView() {}

  /**
   * @param namespace catalog and schema to qualify names with (may be empty)
   * @param table the subscription's (sanitized) table name; the view takes this name
   * @param key primary key columns; empty means no deduplication, only deletes dropped
   * @param includeMetadataColumns whether {@code __op} and {@code __ts_ms} stay visible
   */
  public static String sql(List<String> namespace, String table, List<String> key, boolean includeMetadataColumns) {
    return "CREATE OR REPLACE VIEW " + qualified(namespace, table) + " AS\n"
        + query(qualified(namespace, TableNames.changelog(table)), key, includeMetadataColumns) + ";";
  }

  /**
   * The view's query over a changelog: the latest change of each key, deleted keys hidden.
   *
   * @param changelog the changelog table's name, already quoted and qualified
   */
  public static String query(String changelog, List<String> key, boolean includeMetadataColumns) {
    List<String> hidden = new ArrayList<>();
    if (!includeMetadataColumns) {
      hidden.add(ChangelogColumns.OP);
      hidden.add(ChangelogColumns.TS_MS);
    }
    hidden.addAll(
        List.of(ChangelogColumns.DELETED, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET, ChangelogColumns.INGEST_DATE));
    String except = hidden.stream().map(CurrentStateView::quote).collect(Collectors.joining(", "));
    if (key.isEmpty()) {
      // Without a key there is no key to raise a rank along: each change ranks at its own time.
      String visible = "WHERE NOT " + quote(CHANGE) + "." + quote(ChangelogColumns.DELETED) + "\n"
          + notTruncated(changelog, ChangelogColumns.TS_MS);
      return "SELECT * EXCEPT (" + except + ") FROM " + changelog + " AS " + quote(CHANGE) + "\n" + visible;
    }
    String partitionBy = key.stream().map(CurrentStateView::quote).collect(Collectors.joining(", "));
    return "SELECT * EXCEPT (" + except + ", " + quote(ChangelogColumns.RANK_TS_MS) + ") FROM (\n"
        + "  SELECT * FROM (\n"
        + "    SELECT *, " + rankTime(key) + " AS " + quote(ChangelogColumns.RANK_TS_MS) + "\n"
        + "    FROM " + changelog + "\n"
        + "  ) AS " + quote(RANKED) + "\n"
        + "  QUALIFY ROW_NUMBER() OVER (\n"
        + "    PARTITION BY " + partitionBy + "\n"
        + "    ORDER BY " + quote(ChangelogColumns.RANK_TS_MS) + " DESC NULLS LAST, "
        + quote(ChangelogColumns.PARTITION) + " DESC NULLS LAST, "
        + quote(ChangelogColumns.OFFSET) + " DESC NULLS LAST\n"
        + "  ) = 1\n"
        + ") AS " + quote(CHANGE) + "\n"
        + "WHERE NOT " + quote(CHANGE) + "." + quote(ChangelogColumns.DELETED) + "\n"
        + notTruncated(changelog, ChangelogColumns.RANK_TS_MS);
  }

  /**
   * A changelog row's rank time ({@link RankTimes}): the highest {@code __ts_ms} of its key's
   * rows up to its offset in its partition ({@code RANGE}: rows at the same offset, those
   * without a Kafka position, rank together), a truncate's own {@code __ts_ms}.
   */
  static String rankTime(List<String> key) {
    String partitionBy = key.stream().map(CurrentStateView::quote).collect(Collectors.joining(", "));
    return "CASE WHEN " + quote(ChangelogColumns.OP) + " <=> '" + Operation.TRUNCATE.code() + "' THEN "
        + quote(ChangelogColumns.TS_MS) + " ELSE MAX(" + quote(ChangelogColumns.TS_MS) + ") OVER (PARTITION BY "
        + partitionBy + ", " + quote(ChangelogColumns.PARTITION) + " ORDER BY " + quote(ChangelogColumns.OFFSET)
        + " ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) END";
  }

  /** The aliases of a change and of a truncate in the view's query. */
  private static final String CHANGE = "__change";
  private static final String TRUNCATE = "__truncate";
  private static final String RANKED = "__ranked";

  /**
   * The view's condition that no truncate ({@code __op = 't'}, a row without source values)
   * ranks above the change: a truncate hides every change ranked below it, by the order the view
   * ranks changes (a null ranks lowest), whatever partition either came from.
   *
   * @param changeTime the change's column holding its rank time
   */
  private static String notTruncated(String changelog, String changeTime) {
    return "  AND NOT EXISTS (\n"
        + "    SELECT 1 FROM " + changelog + " AS " + quote(TRUNCATE) + "\n"
        + "    WHERE " + quote(TRUNCATE) + "." + quote(ChangelogColumns.OP) + " = '" + Operation.TRUNCATE.code() + "'\n"
        + "      AND (" + above(ChangelogColumns.TS_MS, changeTime) + "\n"
        + "        OR " + same(ChangelogColumns.TS_MS, changeTime) + " AND (" + above(ChangelogColumns.PARTITION) + "\n"
        + "          OR " + same(ChangelogColumns.PARTITION) + " AND " + above(ChangelogColumns.OFFSET) + ")))";
  }

  /** The truncate's value of the column ranks above the change's: greater, or known where the change's is null. */
  private static String above(String column) {
    return above(column, column);
  }

  /** The truncate's {@code column} ranks above the change's {@code changeColumn}. */
  private static String above(String column, String changeColumn) {
    String t = quote(TRUNCATE) + "." + quote(column);
    String c = quote(CHANGE) + "." + quote(changeColumn);
    return "(" + t + " > " + c + " OR " + t + " IS NOT NULL AND " + c + " IS NULL)";
  }

  private static String same(String column) {
    return same(column, column);
  }

  private static String same(String column, String changeColumn) {
    return quote(TRUNCATE) + "." + quote(column) + " <=> " + quote(CHANGE) + "." + quote(changeColumn);
  }

  /** A Databricks SQL identifier: backquoted, backquotes doubled. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** {@code `a`.`b`.`c`}: each part quoted. */
  /** A name given as its parts, the last one the object's: {@code catalog.schema.table} quoted. */
  static String qualified(List<String> parts) {
    return qualified(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1));
  }

  public static String qualified(List<String> namespace, String name) {
    List<String> parts = new ArrayList<>(namespace);
    parts.add(name);
    return parts.stream().map(CurrentStateView::quote).collect(Collectors.joining("."));
  }
}
