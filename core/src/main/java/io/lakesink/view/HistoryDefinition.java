package io.lakesink.view;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The history view {@code <table>_HISTORY} as lakesink builds it on a SQL warehouse: the
 * statement of {@link HistoryView} with a comment that marks it as lakesink's (so it only ever
 * replaces its own) and fingerprints what it depends on (so it is replaced when that changes).
 *
 * @param changelog the changelog's name, qualified
 * @param view the history view's name, qualified
 * @param key the columns versions are tracked per (not empty)
 * @param columns the changelog's column names, in table order
 */
public record HistoryDefinition(
    List<String> changelog, List<String> view, List<String> key, boolean includeMetadataColumns, List<String> columns) {
  /** Every history view lakesink builds has a comment starting with this. */
  public static final String MARKER = "lakesink-history:v1";

  public HistoryDefinition {
    changelog = List.copyOf(changelog);
    view = List.copyOf(view);
    key = List.copyOf(key);
    columns = List.copyOf(columns);
  }

  public static boolean ours(String comment) {
    return comment != null && comment.startsWith(MARKER);
  }

  public String viewName() {
    return CurrentStateView.qualified(view);
  }

  public String changelogName() {
    return CurrentStateView.qualified(changelog);
  }

  public String comment() {
    return MARKER + " changelog=" + changelogName() + " fingerprint=" + fingerprint()
        + " (built by lakesink; replaced when the changelog's columns, key or settings change)";
  }

  /** The statement that creates (or replaces) the view, without a trailing semicolon. */
  public String statement() {
    return "CREATE OR REPLACE VIEW " + viewName() + "\nCOMMENT '" + CurrentStateDefinition.literal(comment()) + "'\nAS\n"
        + HistoryView.query(changelogName(), key, includeMetadataColumns);
  }

  /** Twelve hex digits of a SHA-256 over what the view depends on. */
  public String fingerprint() {
    String basis = String.join("\u0000", HistoryView.query(changelogName(), key, includeMetadataColumns), String.join(",", columns));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every JVM has SHA-256", e);
    }
  }
}
