package io.lakesink.view;

/**
 * What object the current state of a changelog is built as ({@code catalog.current_state}): a view
 * re-reads the changelog on each query; a materialized view is refreshed on a schedule and reads
 * like a table (Databricks needs a serverless or Pro warehouse for it); a table is a plain Delta
 * table lakesink keeps equal to the view itself, from the changelog's new commits
 * ({@code io.lakesink.currentstate.CurrentStateTable}): no warehouse, any Delta reader.
 */
public enum CurrentStateKind {
  VIEW("VIEW"),
  MATERIALIZED_VIEW("MATERIALIZED VIEW"),
  TABLE("TABLE");

  private final String sql;

  CurrentStateKind(String sql) {
    this.sql = sql;
  }

  /** The words in {@code CREATE OR REPLACE <sql>} and {@code DROP <sql>}. */
  public String sql() {
    return sql;
  }

  /** The configuration word: {@code view}, {@code materialized_view} or {@code table}. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The kind a configuration word names, or null for none. */
  public static CurrentStateKind ofWord(String word) {
    for (CurrentStateKind kind : values()) {
      if (kind.word().equals(word == null ? null : word.trim())) {
        return kind;
      }
    }
    return null;
  }
}
