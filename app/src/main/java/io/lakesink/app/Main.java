package io.lakesink.app;

import io.lakesink.error.ConfigurationException;
import java.util.Arrays;
import java.util.List;

/** The {@code lakesink} command line. */
public final class Main {
  static final int OK = 0;
  static final int USAGE = 1;
  static final int TABLES_FAILED = 3;

  private Main() {}

  public static void main(String[] args) {
    // Chosen before the first logger exists: logback reads this once, at start.
    if ("json".equalsIgnoreCase(System.getenv("LAKESINK_LOG_FORMAT")) && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "logback-json.xml");
    }
    System.exit(run(args));
  }

  static int run(String[] args) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
      System.out.println(USAGE_TEXT);
      return args.length == 0 ? USAGE : OK;
    }
    Arguments a = new Arguments(Arrays.asList(args).subList(1, args.length));
    try {
      return switch (args[0]) {
        case "run" -> Commands.run(a.config(), a.flag("--stop-at-end"));
        case "views" -> Commands.views(a.config());
        case "status" -> Commands.status(a.config());
        case "check" -> Commands.check(a.config());
        case "show" -> Commands.show(a.config(), a.required("--table"));
        case "demo" -> Demo.run(a.value("--data", "demo-data"));
        case "quarantine" -> Commands.quarantine(a.config(), a.positional(0, "list or release"), a.value("--table", null));
        default -> {
          System.err.println("Unknown command '" + args[0] + "'.\n" + USAGE_TEXT);
          yield USAGE;
        }
      };
    } catch (ConfigurationException e) {
      System.err.println("Configuration error: " + e.getMessage());
      return USAGE;
    }
  }

  static final String USAGE_TEXT =
      """
      Usage: lakesink <command> [options]

        run   --config FILE [--stop-at-end]   deliver the subscriptions (--stop-at-end: catch up, then exit)
        check --config FILE                   connection test: storage, Kafka, catalog
        views --config FILE                   print each subscription's current-state view SQL
        status --config FILE                  print a running worker's status (from its status.port)
        show  --config FILE --table NAME      print a table's current state from storage
        demo  [--data DIR]                    local Kafka + sample change stream → Delta tables in DIR
        quarantine list    --config FILE              list quarantined tables and why
        quarantine release --config FILE --table NAME release a table (a running worker resumes it within 10 s)
      """;

  /** Minimal option parsing: {@code --name value} and flags. */
  record Arguments(List<String> args) {
    String value(String name, String fallback) {
      int i = args.indexOf(name);
      if (i < 0) {
        return fallback;
      }
      if (i + 1 >= args.size()) {
        throw new ConfigurationException("Option " + name + " needs a value.");
      }
      return args.get(i + 1);
    }

    String required(String name) {
      String v = value(name, null);
      if (v == null) {
        throw new ConfigurationException("Option " + name + " is required.\n" + USAGE_TEXT);
      }
      return v;
    }

    java.nio.file.Path config() {
      return java.nio.file.Path.of(required("--config"));
    }

    String positional(int index, String expected) {
      if (args.size() <= index || args.get(index).startsWith("--")) {
        throw new ConfigurationException("Expected " + expected + ".\n" + USAGE_TEXT);
      }
      return args.get(index);
    }

    boolean flag(String name) {
      return args.contains(name);
    }
  }
}
