package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(300)
class CommandLineTest {
  @TempDir Path dir;

  record Output(int exit, String out, String err) {}

  static Output run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.run(args);
      return new Output(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void runThenViewsAndShowReadTheConfiguration() throws Exception {
    String topic = SharedKafka.newTopic("cli", DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(SharedKafka.bootstrap(), topic);
    Path config = dir.resolve("lakesink.yaml");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "%s", group_id: cli}
        storage: {type: local, path: "%s"}
        status: {host: 127.0.0.1, port: 0}
        subscriptions:
          - {topic: %s, table: orders, primary_key: [id], include_metadata_columns: false}
        """.formatted(SharedKafka.bootstrap(), dir.resolve("tables"), topic));

    assertEquals(Main.OK, run("run", "--config", config.toString(), "--stop-at-end").exit());

    Output views = run("views", "--config", config.toString());
    assertEquals(Main.OK, views.exit());
    assertTrue(views.out().contains("SELECT * EXCEPT (`__op`, `__ts_ms`, `__deleted`"), views.out());

    Output show = run("show", "--config", config.toString(), "--table", "orders");
    assertEquals(Main.OK, show.exit());
    assertTrue(show.out().contains("(5 rows"), show.out());
    assertTrue(show.out().contains("status=cancelled") && !show.out().contains("__op"), show.out());
  }

  @Test
  void aKeptCurrentStateTableIsWrittenByRunAndReadByShow() throws Exception {
    String topic = SharedKafka.newTopic("cli-kept", DemoChangeStream.PARTITIONS);
    DemoChangeStream.produce(SharedKafka.bootstrap(), topic);
    Path config = dir.resolve("kept.yaml");
    Path tables = dir.resolve("kept-tables");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "%s", group_id: cli-kept}
        storage: {type: local, path: "%s"}
        status: {host: 127.0.0.1, port: 0}
        subscriptions:
          - {topic: %s, table: orders, primary_key: [id], include_metadata_columns: false, current_state: {object: table}}
        """.formatted(SharedKafka.bootstrap(), tables, topic));

    assertEquals(Main.OK, run("run", "--config", config.toString(), "--stop-at-end").exit());
    assertTrue(Files.isDirectory(tables.resolve("lakesink/orders/_delta_log")), "the kept table beside the changelog");

    Output show = run("show", "--config", config.toString(), "--table", "orders");
    assertEquals(Main.OK, show.exit());
    assertTrue(show.out().contains("(5 rows") && show.out().contains("lakesink/orders version"), show.out());
    assertTrue(show.out().contains("status=cancelled") && !show.out().contains("__op") && !show.out().contains("__offset"),
        show.out());

    Output views = run("views", "--config", config.toString());
    assertEquals(Main.OK, views.exit());
    assertTrue(views.out().contains("orders is a Delta table lakesink keeps from the changelog"), views.out());
    assertTrue(views.out().contains("CREATE OR REPLACE VIEW `orders_HISTORY` AS"), views.out());
  }

  @Test
  void checkTestsStorageKafkaAndCatalogWithoutDelivering() throws Exception {
    String topic = SharedKafka.newTopic("check", 1);
    Path config = dir.resolve("check.yaml");
    String yaml = """
        kafka: {bootstrap_servers: "%s"}
        storage: {type: local, path: "%s"}
        subscriptions:
          - {topic: %s, table: t}
        """;
    Files.writeString(config, yaml.formatted(SharedKafka.bootstrap(), dir.resolve("tables"), topic));
    Output ok = run("check", "--config", config.toString());
    assertEquals(Main.OK, ok.exit(), ok.out() + ok.err());
    assertTrue(ok.out().contains("ok    storage") && ok.out().contains("ok    kafka") && ok.out().contains("ok    catalog: none"), ok.out());

    Files.writeString(config, yaml.formatted(SharedKafka.bootstrap(), dir.resolve("tables"), "no-such-topic"));
    Output missing = run("check", "--config", config.toString());
    assertEquals(ExitCode.CHECK_FAILED.code, missing.exit());
    assertTrue(missing.out().contains("FAIL  kafka") && missing.out().contains("no-such-topic"), missing.out());
  }

  @Test
  void mistakesExitWithUsageAndAMessage() throws Exception {
    Output none = run();
    assertEquals(ExitCode.USAGE.code, none.exit());
    assertTrue(none.err().contains("Usage: lakesink"), none.err());
    Output unknown = run("frobnicate");
    assertEquals(ExitCode.USAGE.code, unknown.exit());
    assertTrue(unknown.err().contains("Unmatched argument at index 0: 'frobnicate'"), unknown.err());
    Output noConfig = run("run");
    assertEquals(ExitCode.USAGE.code, noConfig.exit());
    assertTrue(noConfig.err().contains("Missing required option: '--config=FILE'"), noConfig.err());
    Output noTable = run("quarantine", "release", "--config", "x.yaml");
    assertEquals(ExitCode.USAGE.code, noTable.exit());
    assertTrue(noTable.err().contains("Missing required option: '--table=NAME'"), noTable.err());
    Output noAction = run("quarantine", "--config", "x.yaml");
    assertEquals(ExitCode.USAGE.code, noAction.exit());
  }

  @Test
  void unknownFlagsAreRefusedWithTheCommandsUsage() {
    // The old parser ignored what it did not know: a typo silently changed nothing.
    Output typo = run("run", "--config", "x.yaml", "--stop-at-the-end");
    assertEquals(ExitCode.USAGE.code, typo.exit());
    assertTrue(typo.err().contains("Unknown option: '--stop-at-the-end'"), typo.err());
    assertTrue(typo.err().contains("Usage: lakesink run"), typo.err());
    Output stray = run("views", "--config", "x.yaml", "extra");
    assertEquals(ExitCode.USAGE.code, stray.exit());
    assertTrue(stray.err().contains("Usage: lakesink views"), stray.err());
  }

  @Test
  void configurationErrorsHaveTheirOwnExitCode() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "kafka: {bootstrap_servers: x}\nstorage: {type: local, path: y}\nsubscriptions: [{topic: t}]\n");
    Output invalid = run("views", "--config", bad.toString());
    assertEquals(ExitCode.CONFIGURATION.code, invalid.exit());
    assertTrue(invalid.err().contains("Configuration error: ") && invalid.err().contains("'subscriptions[0].table' is required"), invalid.err());
    Output absent = run("show", "--config", dir.resolve("absent.yaml").toString(), "--table", "t");
    assertEquals(ExitCode.CONFIGURATION.code, absent.exit(), absent.err());
  }

  @Test
  void everyCommandHasHelpAndTheToolAVersion() {
    for (String[] command : new String[][] {
        {"run"}, {"demo"}, {"check"}, {"views"}, {"show"}, {"status"}, {"quarantine"}, {"quarantine", "list"}, {"quarantine", "release"}, {"maintain"}, {"handoff"}, {"register"}, {"unregister"}}) {
      String[] args = java.util.Arrays.copyOf(command, command.length + 1);
      args[command.length] = "--help";
      Output help = run(args);
      assertEquals(ExitCode.OK.code, help.exit(), String.join(" ", args));
      assertTrue(help.out().contains("Usage: lakesink " + String.join(" ", command)), help.out());
    }
    assertTrue(run("run", "--help").out().contains("--stop-at-end"));
    assertTrue(run("demo", "--help").out().contains("--data=DIR"));
    Output top = run("--help");
    assertEquals(ExitCode.OK.code, top.exit());
    assertTrue(top.out().contains("Exit codes:") && top.out().contains("4   configuration error"), top.out());
    Output version = run("--version");
    assertEquals(ExitCode.OK.code, version.exit());
    assertTrue(version.out().matches("(?s)lakesink \\d+\\.\\d+\\.\\d+.*"), version.out());
  }

  /**
   * The command list shows a command's first description line (or its header): a description
   * broken by hand mid-sentence showed as "… and never two owners: fence the".
   */
  @Test
  void everyCommandSummaryIsAWholeSentenceShownWhole() {
    List<CommandLine> commands = new ArrayList<>();
    collect(new CommandLine(new Main()), commands);
    assertTrue(commands.size() > 12, "only " + commands.size() + " commands found");
    for (CommandLine c : commands) {
      CommandLine.Model.UsageMessageSpec usage = c.getCommandSpec().usageMessage();
      String name = c.getCommandSpec().qualifiedName();
      List<String> lines = new ArrayList<>(List.of(usage.header()));
      lines.addAll(List.of(usage.description()));
      assertFalse(lines.isEmpty(), name + " has no description");
      for (String line : lines) {
        String text = line.replace("%n", "").strip();
        // Every line, not only the summary: picocli wraps lines itself, so a line is whole sentences.
        assertTrue(text.endsWith("."), name + ": a description line does not end a sentence: " + text);
      }
      String summary = (usage.header().length > 0 ? usage.header()[0] : usage.description()[0]).replace("%n", "").strip();
      CommandLine parent = c.getParent();
      if (parent != null) {
        // The parent's help without its leading "lakesink"; whitespace dropped, as picocli wraps where it likes.
        List<String> args = new ArrayList<>(List.of(parent.getCommandSpec().qualifiedName().split(" ")));
        args.set(0, "--help");
        java.util.Collections.rotate(args, -1);
        String listed = run(args.toArray(String[]::new)).out().replaceAll("\\s+", "");
        assertTrue(listed.contains(c.getCommandName() + summary.replaceAll("\\s+", "")),
            name + "'s whole summary is not in the command list of " + args + ": " + listed);
      }
    }
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    into.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> collect(s, into));
  }

  @Test
  void exitCodesAreDistinct() {
    long distinct = java.util.Arrays.stream(ExitCode.values()).mapToInt(c -> c.code).distinct().count();
    assertEquals(ExitCode.values().length, distinct);
    assertEquals(0, ExitCode.OK.code);
    assertEquals(2, ExitCode.USAGE.code);
    assertEquals(3, ExitCode.TABLES_QUARANTINED.code);
  }
}
