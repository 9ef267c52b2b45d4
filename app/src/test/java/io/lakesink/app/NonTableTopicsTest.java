package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.CommandLineTest.Output;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debezium's heartbeat, transaction-metadata and schema-change topics, subscribed by mistake, are
 * refused by {@code check} and at start, naming the topic and what it is, and nothing is delivered.
 */
@Timeout(300)
class NonTableTopicsTest {
  @TempDir Path dir;

  static final String SCHEMA_CHANGE = "{\"source\":{\"ts_ms\":1},\"ts_ms\":2,\"databaseName\":\"inventory\",\"schemaName\":null,"
      + "\"ddl\":\"CREATE TABLE t (id INT PRIMARY KEY)\",\"tableChanges\":[{\"type\":\"CREATE\",\"id\":\"inventory.t\"}]}";
  static final String BEGIN = "{\"status\":\"BEGIN\",\"id\":\"571:53195829\",\"event_count\":null,\"data_collections\":null,\"ts_ms\":1}";
  static final String CHANGE = "{\"before\":null,\"after\":{\"id\":1},\"source\":{\"ts_ms\":1},\"op\":\"c\",\"ts_ms\":2}";

  private Path config(String... topics) throws Exception {
    StringBuilder subs = new StringBuilder();
    for (int i = 0; i < topics.length; i++) {
      subs.append("  - {topic: \"").append(topics[i]).append("\", table: t").append(i).append("}\n");
    }
    Path config = dir.resolve("lakesink.yaml");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "%s", group_id: %s}
        storage: {type: local, path: "%s"}
        status: {enabled: false}
        subscriptions:
        """.formatted(SharedKafka.bootstrap(), SharedKafka.uniqueName("non-table"), dir.resolve("tables")) + subs);
    return config;
  }

  @Test
  void schemaChangeAndTransactionTopicsAreRefusedByCheckAndAtStart() throws Exception {
    String prefix = SharedKafka.uniqueName("dbserver");
    String table = prefix + ".inventory.t";
    String transactions = prefix + ".transaction";
    for (String topic : new String[] {prefix, table, transactions}) {
      SharedKafka.broker().createTopic(topic, 1);
    }
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      SharedKafka.send(producer, prefix, 0, "{\"databaseName\":\"inventory\"}", SCHEMA_CHANGE);
      SharedKafka.send(producer, table, 0, "{\"id\":1}", CHANGE);
      SharedKafka.send(producer, transactions, 0, "{\"id\":\"571:53195829\"}", BEGIN);
      producer.flush();
    }
    Path config = config(table, prefix, transactions);

    Output check = CommandLineTest.run("check", "--config", config.toString());
    assertEquals(ExitCode.CHECK_FAILED.code, check.exit(), check.out() + check.err());
    assertTrue(check.out().contains("FAIL  kafka: every subscribed topic carries table changes"), check.out());
    assertTrue(check.out().contains("'subscriptions[1].topic' is topic " + prefix + ", Debezium's schema-change topic (recognised"
        + " by its first record (partition 0, offset 0)"), check.out());
    assertTrue(check.out().contains("'subscriptions[2].topic' is topic " + transactions + ", Debezium's transaction-metadata topic"),
        check.out());
    assertFalse(check.out().contains("'subscriptions[0].topic'"), "the table topic is fine: " + check.out());

    Output run = CommandLineTest.run("run", "--config", config.toString(), "--stop-at-end");
    assertEquals(ExitCode.CONFIGURATION.code, run.exit(), run.out() + run.err());
    assertTrue(run.err().contains("'subscriptions[1].topic' is topic " + prefix + ", Debezium's schema-change topic")
        && run.err().contains("remove this subscription"), run.err());
    assertTrue(run.err().contains("'subscriptions[2].topic' is topic " + transactions + ", Debezium's transaction-metadata topic"),
        "every such topic is named at once: " + run.err());
    assertFalse(Files.exists(dir.resolve("tables")) && Files.list(dir.resolve("tables")).anyMatch(p -> p.toString().contains("t0")),
        "nothing was delivered");

    Output fine = CommandLineTest.run("check", "--config", config(table).toString());
    assertEquals(Main.OK, fine.exit(), fine.out() + fine.err());
  }

  @Test
  void aHeartbeatTopicIsRefusedByItsNameBeforeKafkaIsAsked() throws Exception {
    Path config = config("__debezium-heartbeat.dbserver1");
    for (String command : new String[] {"check", "run"}) {
      Output out = CommandLineTest.run(command, "--config", config.toString());
      assertEquals(ExitCode.CONFIGURATION.code, out.exit(), out.out() + out.err());
      assertTrue(out.err().contains("'subscriptions[0].topic' is topic __debezium-heartbeat.dbserver1, Debezium's heartbeat topic"
          + " (recognised by its name"), out.err());
    }
  }
}
