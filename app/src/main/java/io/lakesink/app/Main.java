package io.lakesink.app;

import io.lakesink.app.backfill.BackfillSources;
import io.lakesink.error.ConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code lakesink} command line; the exit codes are {@link ExitCode}'s.
 *
 * <p>A command's first description line is its summary in the command list, and picocli wraps
 * every line itself: each line is whole sentences, never a manual line break
 * ({@code CommandLineTest} checks).
 */
@Command(
    name = "lakesink",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Delivers Debezium change events from Kafka into Delta Lake tables.",
    subcommands = {
      Main.InitCli.class, Main.Run.class, Main.DemoCommand.class, Main.Check.class, Main.Views.class, Main.Show.class,
      Main.HandOffCommand.class, Main.RegisterCommand.class, Main.UnregisterCommand.class,
      Main.Status.class, Main.Quarantine.class, Main.BackfillCli.class, Main.MaintainCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:crashed (unexpected error)",
      "2:usage error",
      "3:a table is quarantined",
      "4:configuration error",
      "5:check failed / no worker answers / init could not read the broker or found no table topic",
      "6:the final flush failed",
      "7:stopped before the final flush finished",
      "8:a worker-level fault (run --stop-at-end)",
      "9:a backfill stopped before the end (run it again to resume)"
    })
public final class Main implements Callable<Integer> {
  static final int OK = ExitCode.OK.code;
  static final int USAGE = ExitCode.USAGE.code;
  static final int TABLES_FAILED = ExitCode.TABLES_QUARANTINED.code;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Chosen before the first logger exists: logback reads this once, at start.
    if ("json".equalsIgnoreCase(System.getenv("LAKESINK_LOG_FORMAT")) && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "logback-json.xml");
    }
    System.exit(run(args));
  }

  /** Parses and runs one command line; returns the exit code. */
  static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    // Read System.out/err now, not when the class loads: tests capture them per call.
    cli.setOut(new PrintWriter(System.out, true));
    cli.setErr(new PrintWriter(System.err, true));
    // picocli asks this mapper for usage errors too, not only for what a command threw.
    cli.setExitCodeExceptionMapper(e -> e instanceof CommandLine.ParameterException ? ExitCode.USAGE.code
        : e instanceof ConfigurationException ? ExitCode.CONFIGURATION.code : ExitCode.CRASHED.code);
    // Always the command's usage after the message: picocli's default leaves it out when it
    // has a spelling suggestion, and the suggestion alone does not show the other options.
    cli.setParameterExceptionHandler((e, ignored) -> {
      CommandLine wrong = e.getCommandLine();
      wrong.getErr().println(e.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(e, wrong.getErr());
      wrong.usage(wrong.getErr());
      return ExitCode.USAGE.code;
    });
    cli.setExecutionExceptionHandler((e, line, parsed) -> {
      if (e instanceof ConfigurationException) {
        line.getErr().println("Configuration error: " + e.getMessage());
        return ExitCode.CONFIGURATION.code;
      }
      // A bug or an environment problem: the stack trace is what a report needs.
      line.getErr().println("lakesink crashed: " + e);
      e.printStackTrace(System.err);
      return ExitCode.CRASHED.code;
    });
    return cli.execute(args);
  }

  /** {@code lakesink} alone: the usage, and a usage exit code since nothing was asked. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCode.USAGE.code;
  }

  static final class ConfigOption {
    @Option(names = "--config", paramLabel = "FILE", required = true, description = "the worker's YAML configuration")
    Path file;
  }

  @Command(name = "init", mixinStandardHelpOptions = true,
      description = {"Write a starter configuration with one subscription per Debezium table topic of a Kafka cluster.",
          "It skips Kafka's internal topics and Debezium's heartbeat, transaction and schema-change topics, and reads"
              + " one record of each table topic for its key (primary_key) and its format (JSON or Avro)."
              + " Storage is left for you to fill in; secrets are written as $${env:NAME} references."})
  static final class InitCli implements Callable<Integer> {
    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,HOST:PORT...]",
        description = "the Kafka brokers (default: kafka.bootstrap_servers of --config)")
    String bootstrap;

    @Option(names = "--config", paramLabel = "FILE",
        description = "an existing configuration to take the kafka: section (security settings) and schema_registry: from")
    Path config;

    @Option(names = "--schema-registry-url", paramLabel = "URL", description = "the schema registry, to read the fields of Avro keys")
    String registryUrl;

    @Option(names = "--include", paramLabel = "REGEX", description = "only topics whose whole name matches; repeatable")
    List<String> include = new ArrayList<>();

    @Option(names = "--exclude", paramLabel = "REGEX", description = "leave out topics whose whole name matches; repeatable")
    List<String> exclude = new ArrayList<>();

    @Option(names = "--output", paramLabel = "FILE", description = "where to write the configuration (default: standard output)")
    Path output;

    @Option(names = "--force", description = "replace the file of --output if it exists")
    boolean force;

    @Option(names = "--sample-timeout", paramLabel = "DURATION", defaultValue = "10s",
        description = "how long to wait for the topics' first records: 500ms, 10s, 2m (default: ${DEFAULT-VALUE})")
    String sampleTimeout;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m)").matcher(sampleTimeout.strip());
      if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--sample-timeout " + sampleTimeout + ": write e.g. 500ms, 10s or 2m.");
      }
      long n = Long.parseLong(m.group(1));
      java.time.Duration timeout = switch (m.group(2)) {
        case "ms" -> java.time.Duration.ofMillis(n);
        case "m" -> java.time.Duration.ofMinutes(n);
        default -> java.time.Duration.ofSeconds(n);
      };
      return InitCommand.run(new InitCommand.Request(bootstrap, config, registryUrl, patterns("--include", include),
          patterns("--exclude", exclude), output, force, timeout), io.lakesink.app.config.ConfigLoader.fromSystemEnvironment(), System.err);
    }

    private List<java.util.regex.Pattern> patterns(String option, List<String> texts) {
      List<java.util.regex.Pattern> patterns = new ArrayList<>();
      for (String t : texts) {
        try {
          patterns.add(java.util.regex.Pattern.compile(t));
        } catch (java.util.regex.PatternSyntaxException e) {
          throw new CommandLine.ParameterException(spec.commandLine(),
              option + " " + t + " is not a Java regular expression (" + e.getDescription() + ").");
        }
      }
      return patterns;
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true,
      description = {"Deliver the subscriptions until stopped (SIGTERM/SIGINT: flush, commit, leave the group, exit).",
          "Shutdown timeout: LAKESINK_SHUTDOWN_TIMEOUT or -Dlakesink.shutdown.timeout (default 30s)."})
  static final class Run implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--stop-at-end", description = "catch up to the end offsets seen at start, then exit")
    boolean stopAtEnd;

    @Override
    public Integer call() {
      return Commands.run(config.file, stopAtEnd);
    }
  }

  @Command(name = "demo", mixinStandardHelpOptions = true,
      description = "Start a local Kafka broker with a sample change stream and deliver it into Delta tables in DIR.")
  static final class DemoCommand implements Callable<Integer> {
    @Option(names = "--data", paramLabel = "DIR", defaultValue = "demo-data", description = "where the tables go (default: ${DEFAULT-VALUE})")
    String data;

    @Override
    public Integer call() {
      return Demo.run(data);
    }
  }

  @Command(name = "check", mixinStandardHelpOptions = true,
      description = "Test the connections to storage, Kafka and the catalog, delivering nothing; exit 5 when a step fails.")
  static final class Check implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Override
    public Integer call() {
      return Commands.check(config.file);
    }
  }

  @Command(name = "views", mixinStandardHelpOptions = true, description = "Print each subscription's current-state view SQL.")
  static final class Views implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Override
    public Integer call() {
      return Commands.views(config.file);
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Print a table's current state from storage.")
  static final class Show implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", required = true, description = "the subscription's table")
    String table;

    @Override
    public Integer call() {
      return Commands.show(config.file, table);
    }
  }

  @Command(name = "handoff", mixinStandardHelpOptions = true,
      description = {"Move a table's catalog entry to another entry, with zero bytes copied and never two owners.",
          "It fences the writers, unregisters at the source, registers at the destination and records the new owner."
              + " Each step is journaled beside the table: after a crash, the same command resumes."
              + " See docs/catalog-handoff.md."})
  static final class HandOffCommand implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", required = true, description = "the subscription's table")
    String table;

    @Option(names = "--to", paramLabel = "CATALOG[.NAMESPACE.NAME]", required = true,
        description = "the destination: a named catalog (default: the catalog: block), optionally with the entry's full name")
    String to;

    @Option(names = "--dry-run", description = "print the plan (and which steps are done), change nothing")
    boolean dryRun;

    @Override
    public Integer call() {
      return HandOffCommands.handoff(config.file, table, to, dryRun);
    }
  }

  @Command(name = "register", mixinStandardHelpOptions = true,
      description = "Create again the catalog entry a table records as its owner (after someone removed it).")
  static final class RegisterCommand implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", required = true, description = "the subscription's table")
    String table;

    @Override
    public Integer call() {
      return HandOffCommands.register(config.file, table);
    }
  }

  @Command(name = "unregister", mixinStandardHelpOptions = true,
      description = "Delete the catalog entry a table records as its owner; the files stay.")
  static final class UnregisterCommand implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", required = true, description = "the subscription's table")
    String table;

    @Override
    public Integer call() {
      return HandOffCommands.unregister(config.file, table);
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Print a running worker's status (from its status.host and status.port); exit 5 when none answers.")
  static final class Status implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Override
    public Integer call() {
      return Commands.status(config.file);
    }
  }

  @Command(name = "maintain", mixinStandardHelpOptions = true,
      description = {"Optimize, vacuum and clean the log of the configured tables now.",
          "All three unless --optimize or --vacuum; prints files and bytes before and after. Safe beside a running worker."})
  static final class MaintainCommand implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", description = "only this subscription's table (default: every table)")
    String table;

    @Option(names = "--optimize", description = "compact small files (and cluster MERGE tables on their primary key)")
    boolean optimize;

    @Option(names = "--vacuum", description = "delete files no version inside the retention references")
    boolean vacuum;

    @Option(names = "--dry-run", description = "print what would be done, change nothing")
    boolean dryRun;

    @Option(names = "--retention-hours", paramLabel = "HOURS",
        description = "vacuum retention (default: the table's delta.deletedFileRetentionDuration, 168 h)")
    Long retentionHours;

    @Option(names = "--force", description = "allow a vacuum retention under 1 hour (no reader or writer may be running)")
    boolean force;

    @Override
    public Integer call() {
      if (retentionHours != null && retentionHours < 0) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--retention-hours must not be negative");
      }
      return Maintain.run(config.file, new Maintain.Request(java.util.Optional.ofNullable(table), optimize, vacuum, dryRun,
          java.util.Optional.ofNullable(retentionHours).map(java.time.Duration::ofHours), force), System.out);
    }
  }

  @Command(name = "quarantine", mixinStandardHelpOptions = true, description = "List or release quarantined tables.",
      subcommands = {Quarantine.ListCommand.class, Quarantine.Release.class})
  static final class Quarantine implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: list or release.");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List quarantined tables and why.")
    static final class ListCommand implements Callable<Integer> {
      @CommandLine.Mixin ConfigOption config;

      @Override
      public Integer call() {
        return Commands.quarantine(config.file, "list", null);
      }
    }

    @Command(name = "release", mixinStandardHelpOptions = true,
        description = "Release a table; a running worker resumes it within 10 s.")
    static final class Release implements Callable<Integer> {
      @CommandLine.Mixin ConfigOption config;

      @Option(names = "--table", paramLabel = "NAME", required = true, description = "the quarantined table")
      String table;

      @Override
      public Integer call() {
        return Commands.quarantine(config.file, "release", table);
      }
    }
  }

  @Command(name = "backfill", mixinStandardHelpOptions = true,
      description = {"Load rows that never went through Kafka into a subscription's table, beside a running worker.",
          "MERGE tables get only the keys they lack; changelog tables get the rows as __op='r' at __ts_ms=0."
              + " Progress is kept in the table's log: the same command resumes. See docs/backfill.md.",
          "JDBC credentials: " + BackfillSources.JDBC_USER_ENV + ", " + BackfillSources.JDBC_PASSWORD_ENV + "."})
  static final class BackfillCli implements Callable<Integer> {
    @CommandLine.Mixin ConfigOption config;

    @Option(names = "--table", paramLabel = "NAME", required = true, description = "the subscription's table")
    String table;

    @Option(names = "--from", paramLabel = "SOURCE", required = true, description = "jdbc, csv, jsonl or parquet")
    String from;

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "JDBC URL (jdbc:postgresql://host/db); no password in it")
    String jdbcUrl;

    @Option(names = "--query", paramLabel = "SQL", description = "the rows to load; say ORDER BY so a resumed run reads them in the same order")
    String query;

    @Option(names = "--source-table", paramLabel = "NAME", description = "load a whole source table, in primary key order")
    String sourceTable;

    @Option(names = "--file", paramLabel = "PATH", description = "a file or a glob (archive/*.csv); repeatable")
    java.util.List<String> files = new java.util.ArrayList<>();

    @Option(names = "--batch-rows", paramLabel = "N", defaultValue = "10000", description = "rows per commit (default: ${DEFAULT-VALUE})")
    int batchRows;

    @Option(names = "--id", paramLabel = "ID", description = "the backfill's id in the table's log (default: derived from the table and the source)")
    String id;

    @Option(names = "--check-only", description = "run the render check and write nothing")
    boolean checkOnly;

    @Option(names = "--skip-check", description = "write without the render check (rows changed at the source since the stream delivered them)")
    boolean skipCheck;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      BackfillSources.Kind kind;
      try {
        kind = BackfillSources.Kind.valueOf(from.toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--from " + from + ": use jdbc, csv, jsonl or parquet.");
      }
      if (batchRows < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--batch-rows must be at least 1.");
      }
      if (id != null && !id.matches("[A-Za-z0-9_.-]{1,100}")) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--id: 1 to 100 letters, digits, '.', '_' or '-'.");
      }
      if (checkOnly && skipCheck) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--check-only and --skip-check exclude each other.");
      }
      return BackfillCommand.run(new BackfillCommand.Request(config.file, table,
          new BackfillSources.Spec(kind, jdbcUrl, query, sourceTable, files), id, batchRows, checkOnly, skipCheck));
    }
  }

  /** The version Maven built, from a filtered resource (the classes run unpackaged from bin/lakesink). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("/lakesink-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      // The build time tells two builds of one snapshot version apart.
      String built = p.getProperty("built", "");
      return new String[] {"lakesink " + p.getProperty("version", "(unknown version)")
          + (built.isEmpty() || built.startsWith("$") ? "" : " (built " + built + ")")};
    }
  }
}
