package io.lakesink.view;

import static io.lakesink.view.CurrentStateView.quote;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.config.TableNames;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL of the history view {@code <table>_HISTORY} over a changelog: slowly changing dimension
 * type 2, one row per version of a key. A version is a change that is not a delete or a
 * truncate; it is valid from its rank time ({@code __valid_from}, {@link RankTimes}: its own
 * {@code __ts_ms} unless an earlier change of its key in its partition carried a later one) until
 * the next change of its key or the next truncate, whichever ranks first ({@code __valid_to}:
 * that change's rank time, a truncate's {@code __ts_ms}; null while nothing closed it), and
 * {@code __is_current} exactly when the current-state view shows it. So a key's versions follow
 * each other without gaps or overlaps, in rank order, also when a change carries an earlier
 * source time than the snapshot row it follows. A delete closes its key's version and opens
 * none; a truncate closes every version ranked below it. Ranks are {@link ChangeOrder}'s, as the
 * view's: a struct of {@code (rank time, __partition, __offset)} compares field by field with a
 * null lowest, as Spark and Databricks order structs.
 */
public final class HistoryView {
  /** The suffix of the view's name: {@code orders_HISTORY}. */
  public static final String SUFFIX = "_HISTORY";
  public static final String VALID_FROM = "__valid_from";
  public static final String VALID_TO = "__valid_to";
  public static final String IS_CURRENT = "__is_current";

  private HistoryView() {}

  /** The history view's name for a subscription's table. */
  public static String name(String table) {
    return table + SUFFIX;
  }

  /**
   * @param key the key columns versions are tracked per (required: without a key every change is
   *     its own row, which is the changelog itself)
   */
  public static String sql(List<String> namespace, String table, List<String> key, boolean includeMetadataColumns) {
    return "CREATE OR REPLACE VIEW " + CurrentStateView.qualified(namespace, name(table)) + " AS\n"
        + query(CurrentStateView.qualified(namespace, TableNames.changelog(table)), key, includeMetadataColumns) + ";";
  }

  /** The view's query over a changelog (its name already quoted and qualified). */
  public static String query(String changelog, List<String> key, boolean includeMetadataColumns) {
    if (key.isEmpty()) {
      throw new IllegalArgumentException("a history view needs a key");
    }
    List<String> hidden = new ArrayList<>();
    if (!includeMetadataColumns) {
      hidden.add(ChangelogColumns.OP);
      hidden.add(ChangelogColumns.TS_MS);
    }
    hidden.addAll(List.of(ChangelogColumns.DELETED, ChangelogColumns.PARTITION, ChangelogColumns.OFFSET,
        ChangelogColumns.INGEST_DATE, ChangelogColumns.RANK_TS_MS, NEXT_TRUNCATE, CLOSED_BY));
    String except = hidden.stream().map(CurrentStateView::quote).collect(Collectors.joining(", "));
    String ascending = quote(ChangelogColumns.RANK_TS_MS) + " ASC NULLS FIRST, " + quote(ChangelogColumns.PARTITION)
        + " ASC NULLS FIRST, " + quote(ChangelogColumns.OFFSET) + " ASC NULLS FIRST";
    String partitionBy = key.stream().map(CurrentStateView::quote).collect(Collectors.joining(", "));
    return "SELECT * EXCEPT (" + except + "),\n"
        + "  " + quote(ChangelogColumns.RANK_TS_MS) + " AS " + quote(VALID_FROM) + ",\n"
        + "  " + quote(CLOSED_BY) + ".`ts` AS " + quote(VALID_TO) + ",\n"
        + "  " + quote(CLOSED_BY) + " IS NULL AS " + quote(IS_CURRENT) + "\n"
        + "FROM (\n"
        // What closes a version: the next change of its key (a delete too), or the next truncate.
        + "  SELECT *, LEAST(\n"
        + "    LEAD(" + rank() + ") OVER (PARTITION BY " + partitionBy + " ORDER BY " + ascending + "),\n"
        + "    " + quote(NEXT_TRUNCATE) + ") AS " + quote(CLOSED_BY) + "\n"
        + "  FROM (\n"
        // The first truncate ranked above each row, over the whole changelog in rank order.
        + "    SELECT *, MIN(CASE WHEN " + quote(ChangelogColumns.OP) + " = '" + Operation.TRUNCATE.code() + "' THEN "
        + rank() + " END)\n"
        + "      OVER (ORDER BY " + ascending + " ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS "
        + quote(NEXT_TRUNCATE) + "\n"
        + "    FROM (SELECT *, " + CurrentStateView.rankTime(key) + " AS " + quote(ChangelogColumns.RANK_TS_MS)
        + " FROM " + changelog + ") AS " + quote(TIMED) + "\n"
        + "  ) AS " + quote(RANKED) + "\n"
        + "  WHERE " + quote(ChangelogColumns.OP) + " IS DISTINCT FROM '" + Operation.TRUNCATE.code() + "'\n"
        + ") AS " + quote(VERSION) + "\n"
        + "WHERE NOT " + quote(ChangelogColumns.DELETED);
  }

  private static final String NEXT_TRUNCATE = "__next_truncate";
  private static final String CLOSED_BY = "__closed_by";
  private static final String RANKED = "__ranked";
  private static final String TIMED = "__timed";
  private static final String VERSION = "__version";

  /** A change's rank as a struct: compared field by field, a null lowest. */
  private static String rank() {
    return "named_struct('ts', " + quote(ChangelogColumns.RANK_TS_MS) + ", 'p', " + quote(ChangelogColumns.PARTITION) + ", 'o', "
        + quote(ChangelogColumns.OFFSET) + ")";
  }
}
