package io.lakesink.view;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything that decides one current-state object in a catalog, and the statement that builds
 * it. The object's comment starts with {@link #MARKER}, names the changelog it reads and carries
 * a fingerprint of what it was built from: its columns (a Databricks view freezes the column list
 * of {@code SELECT *} when it is created), key, hidden columns, kind and schedule. An object with
 * our marker and another fingerprint is stale and rebuilt; an object without our marker is not
 * ours and never touched.
 *
 * @param changelog catalog, schema and name of the changelog table
 * @param view catalog, schema and name of the object to build
 * @param key the columns the view ranks changes by (empty: no deduplication)
 * @param includeMetadataColumns whether {@code __op} and {@code __ts_ms} stay visible
 * @param kind view or materialized view
 * @param refreshLag the refresh lag of a materialized view (unused for a view)
 * @param columns the changelog's column names, in table order
 */
public record CurrentStateDefinition(
    List<String> changelog,
    List<String> view,
    List<String> key,
    boolean includeMetadataColumns,
    CurrentStateKind kind,
    Duration refreshLag,
    List<String> columns) {

  /** Every object lakesink builds has a comment starting with this; versioned so the format may change. */
  public static final String MARKER = "lakesink-current-state:v1";

  public CurrentStateDefinition {
    changelog = List.copyOf(changelog);
    view = List.copyOf(view);
    key = List.copyOf(key);
    columns = List.copyOf(columns);
  }

  /** Whether a catalog object's comment says lakesink built it (any fingerprint). */
  public static boolean ours(String comment) {
    return comment != null && comment.startsWith(MARKER);
  }

  public String viewName() {
    return qualified(view);
  }

  public String changelogName() {
    return qualified(changelog);
  }

  /** The comment the object carries: the marker, the changelog it reads, the fingerprint. */
  public String comment() {
    return MARKER + " changelog=" + changelogName() + " fingerprint=" + fingerprint()
        + " (built by lakesink; replaced when the changelog's columns, key or settings change)";
  }

  /** The statement that creates (or replaces) the object, without a trailing semicolon. */
  public String statement() {
    StringBuilder s = new StringBuilder("CREATE OR REPLACE ").append(kind.sql()).append(' ').append(viewName())
        .append("\nCOMMENT '").append(literal(comment())).append('\'');
    if (kind == CurrentStateKind.MATERIALIZED_VIEW) {
      s.append('\n').append(RefreshSchedule.clause(refreshLag));
    }
    return s.append("\nAS\n").append(CurrentStateView.query(changelogName(), key, includeMetadataColumns)).toString();
  }

  /**
   * The statement a person runs when lakesink has no warehouse: the same object without our
   * comment (lakesink never manages what it did not build), with a semicolon.
   */
  public String manualStatement() {
    return "CREATE OR REPLACE " + kind.sql() + " " + viewName()
        + (kind == CurrentStateKind.MATERIALIZED_VIEW ? "\n" + RefreshSchedule.clause(refreshLag) : "")
        + " AS\n" + CurrentStateView.query(changelogName(), key, includeMetadataColumns) + ";";
  }

  /** The statement that removes our object, e.g. before replacing a view by a materialized view. */
  public static String drop(CurrentStateKind kind, List<String> view) {
    return "DROP " + kind.sql() + " IF EXISTS " + qualified(view);
  }

  /** Twelve hex digits of a SHA-256 over what the object depends on. */
  public String fingerprint() {
    String basis = String.join("\u0000", kind.name(),
        kind == CurrentStateKind.MATERIALIZED_VIEW ? RefreshSchedule.clause(refreshLag) : "",
        CurrentStateView.query(changelogName(), key, includeMetadataColumns), String.join(",", columns));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every JVM has SHA-256", e);
    }
  }

  /** A Databricks SQL string literal's content: backslashes and single quotes escaped. */
  static String literal(String text) {
    return text.replace("\\", "\\\\").replace("'", "\\'");
  }

  private static String qualified(List<String> parts) {
    return CurrentStateView.qualified(parts);
  }
}
