package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
    assertEquals(Main.USAGE, missing.exit());
    assertTrue(missing.out().contains("FAIL  kafka") && missing.out().contains("no-such-topic"), missing.out());
  }

  @Test
  void mistakesExitWithUsageAndAMessage() throws Exception {
    assertEquals(Main.USAGE, run().exit());
    Output unknown = run("frobnicate");
    assertEquals(Main.USAGE, unknown.exit());
    assertTrue(unknown.err().contains("Unknown command 'frobnicate'"));
    Output noConfig = run("run");
    assertEquals(Main.USAGE, noConfig.exit());
    assertTrue(noConfig.err().contains("--config is required"), noConfig.err());
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "kafka: {bootstrap_servers: x}\nstorage: {type: local, path: y}\nsubscriptions: [{topic: t}]\n");
    Output invalid = run("views", "--config", bad.toString());
    assertEquals(Main.USAGE, invalid.exit());
    assertTrue(invalid.err().contains("'subscriptions[0].table' is required"), invalid.err());
  }
}
