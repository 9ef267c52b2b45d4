package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillSource;
import io.lakesink.config.Subscription;
import io.lakesink.mapping.ColumnRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

/** Opens the source a {@code backfill} command line names. */
public final class BackfillSources {
  public static final String JDBC_USER_ENV = "LAKESINK_BACKFILL_JDBC_USER";
  public static final String JDBC_PASSWORD_ENV = "LAKESINK_BACKFILL_JDBC_PASSWORD";

  private BackfillSources() {}

  public enum Kind { JDBC, CSV, JSONL, PARQUET }

  /** The source options of the command line; unused ones are null or empty. */
  public record Spec(Kind kind, String jdbcUrl, String query, String sourceTable, List<String> files) {}

  public static BackfillSource open(Spec spec, Subscription subscription, Function<String, String> environment) {
    if (spec.kind() == Kind.JDBC) {
      if (spec.jdbcUrl() == null) {
        throw SourceErrors.options("--from jdbc needs --jdbc-url.");
      }
      if ((spec.query() == null) == (spec.sourceTable() == null)) {
        throw SourceErrors.options("--from jdbc needs one of --query or --source-table.");
      }
      if (!spec.files().isEmpty()) {
        throw SourceErrors.options("--file is for csv, jsonl and parquet sources, not jdbc.");
      }
      Properties credentials = new Properties();
      String user = environment.apply(JDBC_USER_ENV);
      String password = environment.apply(JDBC_PASSWORD_ENV);
      if (user != null) credentials.setProperty("user", user);
      if (password != null) credentials.setProperty("password", password);
      return spec.query() != null
          ? new JdbcSource(spec.jdbcUrl(), credentials, spec.query())
          : JdbcSource.table(spec.jdbcUrl(), credentials, spec.sourceTable(), sourceKeyColumns(subscription));
    }
    if (spec.files().isEmpty()) {
      throw SourceErrors.options("--from " + spec.kind().name().toLowerCase() + " needs --file (a path or a glob).");
    }
    if (spec.jdbcUrl() != null || spec.query() != null || spec.sourceTable() != null) {
      throw SourceErrors.options("--jdbc-url, --query and --source-table are for --from jdbc only.");
    }
    List<Path> files = new ArrayList<>();
    spec.files().forEach(f -> files.addAll(SourceFiles.expand(f)));
    return switch (spec.kind()) {
      case CSV -> new CsvSource(files);
      case JSONL -> new JsonLinesSource(files);
      case PARQUET -> new ParquetSource(files);
      case JDBC -> throw new IllegalStateException("handled above");
    };
  }

  /** The source columns of the primary key: a renamed key column is ordered by its source name. */
  static List<String> sourceKeyColumns(Subscription s) {
    return s.primaryKey().stream()
        .map(k -> s.columns().stream().filter(r -> r.name().equals(k)).map(ColumnRule::source).findFirst().orElse(k))
        .toList();
  }
}
