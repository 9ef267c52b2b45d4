package io.lakesink.app.backfill;

import io.lakesink.error.ConfigurationException;
import java.nio.file.Path;

/**
 * Every message of the backfill sources: what is wrong, where (file and line, or query row and
 * column), and what to change. Values are never quoted and URLs are shown without credentials.
 */
final class SourceErrors {
  private SourceErrors() {}

  static ConfigurationException options(String problem) {
    return new ConfigurationException(problem);
  }

  static ConfigurationException noFile(String pattern, boolean glob) {
    return new ConfigurationException("--file " + pattern + (glob ? ": no file matches." : ": no such file."));
  }

  static ConfigurationException badFile(Path file, long line, String problem) {
    return new ConfigurationException(file + (line > 0 ? " line " + line : "") + ": " + problem + "; fix the file.");
  }

  static ConfigurationException badValue(String where, long row, String column, String reason) {
    return new ConfigurationException(where + " row " + row + ": column " + column + " holds a value lakesink cannot store ("
        + reason + "). Leave it out, or convert it in the source.");
  }

  /** @param safeUrl the URL without user info or parameters */
  static ConfigurationException cannotConnect(String safeUrl, String reason, Throwable cause) {
    return new ConfigurationException("Cannot connect to " + safeUrl + " (" + reason + "): check --jdbc-url, "
        + BackfillSources.JDBC_USER_ENV + " and " + BackfillSources.JDBC_PASSWORD_ENV + ", and that the database's driver is"
        + " on the class path (the PostgreSQL driver is shipped; add others with LAKESINK_CLASSPATH).", cause);
  }

  static ConfigurationException queryFailed(String safeUrl, long row, String reason, Throwable cause) {
    return new ConfigurationException("The backfill query failed on " + safeUrl + (row > 0 ? " at row " + row : "") + ": " + reason
        + ". Check --query or --source-table.", cause);
  }
}
