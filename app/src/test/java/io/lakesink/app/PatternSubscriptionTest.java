package io.lakesink.app;

import static io.lakesink.app.RebalanceTest.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.CommandLineTest.Output;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.storage.TableStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code topic_pattern} entry delivers every matching topic to a table of its own: the topics
 * there at start, and one created while the worker runs; a heartbeat topic it matches is left out,
 * and two topics whose tables would be one are refused with both named.
 */
@Timeout(300)
class PatternSubscriptionTest {
  @TempDir Path dir;

  private static String change(int id) {
    return "{\"before\":null,\"after\":{\"id\":" + id + "},\"source\":{\"ts_ms\":1},\"op\":\"c\",\"ts_ms\":2}";
  }

  private static void send(String topic, int partition, int... ids) {
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      for (int id : ids) {
        SharedKafka.send(producer, topic, partition, "{\"id\":" + id + "}", change(id));
      }
      producer.flush();
    }
  }

  private WorkerHarness harness(String regex) {
    WorkerHarness h = new WorkerHarness(dir.resolve("tables"));
    // Pattern subscriptions list the topics this often: a new topic is found within a second.
    h.kafkaExtra = "  properties:\n    metadata.max.age.ms: \"500\"\n";
    h.subscribe("- {topic_pattern: '" + regex + "'}\n");
    return h;
  }

  /** The ids a table holds, sorted; empty while the table does not exist. */
  private static List<Object> ids(WorkerHarness h, String table) {
    TableStorage storage = Pipeline.storage(h.config().storage());
    DeltaTable t = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(table));
    try {
      return DeltaTableReader.readAll(t).stream().map(r -> r.get("id")).sorted().collect(Collectors.toList());
    } catch (RuntimeException e) {
      return List.of(); // not written yet
    }
  }

  private static Optional<WorkerStatus.PatternMatches> matches(RebalanceTest.RunningWorker w) {
    return w.worker.status().patterns().stream().findFirst();
  }

  @Test
  void eachMatchingTopicIsItsOwnTableExactlyOnceAndANewTopicIsPickedUpWhileRunning() throws Exception {
    String p = SharedKafka.uniqueName("pat");
    String customers = p + ".inv.customers";
    String orders = p + ".inv.orders";
    String heartbeat = "__debezium-heartbeat." + p;
    String items = p + ".inv.items";
    String salesCustomers = p + ".sales.customers"; // its table would be customers_APPEND, which is taken
    SharedKafka.broker().createTopic(customers, 2);
    SharedKafka.broker().createTopic(orders, 1);
    SharedKafka.broker().createTopic(heartbeat, 1);
    SharedKafka.broker().createTopic(p + ".other.notes", 1); // not matched
    send(customers, 0, 1, 2);
    send(customers, 1, 3);
    send(orders, 0, 10, 11);

    WorkerHarness h = harness("__debezium-heartbeat\\." + p + "|" + p + "\\.(inv|sales)\\..*");
    TableStorage storage = Pipeline.storage(h.config().storage());
    RebalanceTest.RunningWorker w =
        new RebalanceTest.RunningWorker(Pipeline.worker(h.config(), storage, FlushHook.NONE, Clock.systemUTC()));
    try {
      awaitCondition(() -> ids(h, "customers_APPEND").size() == 3 && ids(h, "orders_APPEND").size() == 2,
          "the topics there at start are delivered");
      WorkerStatus.PatternMatches m = matches(w).orElseThrow();
      assertEquals(Map.of(customers, "customers_APPEND", orders, "orders_APPEND"), m.matched(), "status lists what matched");
      assertTrue(m.skipped().get(heartbeat).contains("heartbeat"), "the heartbeat topic is left out by its name: " + m);
      assertFalse(m.skipped().containsKey(p + ".other.notes"), m.toString());

      // Created after the worker started: found by the next listing, delivered to its own table.
      SharedKafka.broker().createTopic(items, 1);
      SharedKafka.broker().createTopic(salesCustomers, 1);
      send(items, 0, 20, 21);
      send(salesCustomers, 0, 99);
      awaitCondition(() -> ids(h, "items_APPEND").size() == 2, "the topic created while running is delivered");
      m = matches(w).orElseThrow();
      assertEquals("items_APPEND", m.matched().get(items));
      String refused = m.skipped().get(salesCustomers);
      assertTrue(refused != null && refused.contains(salesCustomers) && refused.contains("from topic " + customers),
          "the clash names both topics: " + m);
      assertTrue(w.worker.status().subscriptions().stream().anyMatch(s -> s.table().table().equals("items_APPEND")),
          "the new table has its status entry");
      send(customers, 0, 4);
      awaitCondition(() -> ids(h, "customers_APPEND").size() == 4, "the existing tables keep flowing");
    } finally {
      w.stop();
    }
    assertEquals(List.of("1", "2", "3", "4"), ids(h, "customers_APPEND").stream().map(String::valueOf).toList(),
        "the clashing topic's record never reached the table");

    // Restarted, the clash is refused at start, naming both topics.
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.runToEnd());
    assertTrue(e.getMessage().contains("'subscriptions[0].topic_pattern' matches topic " + salesCustomers)
        && e.getMessage().contains("from topic " + customers), e.getMessage());

    // With the regex narrowed, a restart resumes every table from its Delta log: nothing twice.
    WorkerHarness narrowed = harness(p + "\\.inv\\..*");
    send(orders, 0, 12);
    assertEquals(0, narrowed.runToEnd());
    assertEquals(4, ids(narrowed, "customers_APPEND").size());
    assertEquals(3, ids(narrowed, "orders_APPEND").size());
    assertEquals(2, ids(narrowed, "items_APPEND").size());
  }

  @Test
  void checkListsTheMatchedTopicsAndRefusesTwoTopicsForOneTable() throws Exception {
    String p = SharedKafka.uniqueName("patcheck");
    for (String t : new String[] {p + ".a.t", p + ".a.u", p + ".b.t"}) {
      SharedKafka.broker().createTopic(t, 1);
    }
    Output clash = CommandLineTest.run("check", "--config", config(p + "\\..*").toString());
    assertEquals(ExitCode.CHECK_FAILED.code, clash.exit(), clash.out() + clash.err());
    assertTrue(clash.out().contains("FAIL  kafka: the topic patterns — Configuration key 'subscriptions[0].topic_pattern'"
        + " matches topic " + p + ".b.t, whose table t_APPEND is already written from topic " + p + ".a.t"), clash.out());

    Output run = CommandLineTest.run("run", "--config", config(p + "\\..*").toString(), "--stop-at-end");
    assertEquals(ExitCode.CONFIGURATION.code, run.exit(), run.out() + run.err());
    assertTrue(run.err().contains("matches topic " + p + ".b.t") && run.err().contains("from topic " + p + ".a.t"), run.err());

    Output fine = CommandLineTest.run("check", "--config", config(p + "\\.a\\..*").toString());
    assertEquals(Main.OK, fine.exit(), fine.out() + fine.err());
    assertTrue(fine.out().contains("ok    kafka: subscriptions[0].topic_pattern '" + p + "\\.a\\..*' matches 2 topics"), fine.out());
    assertTrue(fine.out().contains(p + ".a.t → t_APPEND") && fine.out().contains(p + ".a.u → u_APPEND"), fine.out());
  }

  private Path config(String regex) throws Exception {
    Path config = dir.resolve("lakesink.yaml");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "%s", group_id: %s}
        storage: {type: local, path: "%s"}
        status: {enabled: false}
        subscriptions:
          - {topic_pattern: '%s', mode: changelog}
        """.formatted(SharedKafka.bootstrap(), SharedKafka.uniqueName("pattern"), dir.resolve("tables"), regex));
    return config;
  }
}
