package io.lakesink.view;

/**
 * What object the current state of a changelog is built as ({@code catalog.current_state}): a view
 * re-reads the changelog on each query; a materialized view is refreshed on a schedule and reads
 * like a table (Databricks needs a serverless or Pro warehouse for it).
 */
public enum CurrentStateKind {
  VIEW("VIEW"),
  MATERIALIZED_VIEW("MATERIALIZED VIEW");

  private final String sql;

  CurrentStateKind(String sql) {
    this.sql = sql;
  }

  /** The words in {@code CREATE OR REPLACE <sql>} and {@code DROP <sql>}. */
  public String sql() {
    return sql;
  }

  /** The configuration word: {@code view} or {@code materialized_view}. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
