package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import io.lakesink.kafka.WorkerStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which of the cluster's topics the pattern subscriptions take, and which they leave out. */
class TopicPatternsTest {
  private static TopicPatterns patterns(String... entries) {
    StringBuilder yaml = new StringBuilder("kafka: {bootstrap_servers: \"k:9092\"}\nstorage: {type: local, path: /data}\nsubscriptions:\n");
    for (String e : entries) {
      yaml.append("  - ").append(e).append('\n');
    }
    WorkerConfig config = new ConfigLoader(Map.<String, String>of()::get).parse(yaml.toString(), "test");
    return new TopicPatterns(config, null, Duration.ofSeconds(1));
  }

  private static List<String> topics(List<Subscription> subs) {
    return subs.stream().map(s -> s.topic() + "→" + s.targetTable()).toList();
  }

  @Test
  void namedTopicsHeartbeatsAndKafkasOwnAreLeftOutAndTheFirstPatternWins() {
    TopicPatterns p = patterns("{topic: db.inv.orders, table: orders_raw}", "{topic_pattern: '.*inv.*', mode: merge}",
        "{topic_pattern: 'db\\..*'}");
    List<Subscription> matched = p.match(Set.of("db.inv.orders", "db.inv.customers", "db.sales.items", "__consumer_offsets",
        "__debezium-heartbeat.db.inv", "_schemas"), true);
    assertEquals(List.of("db.inv.customers→customers", "db.sales.items→items_APPEND"), topics(matched));
    WorkerStatus.PatternMatches first = p.report().get(0);
    assertEquals(Map.of("db.inv.customers", "customers"), first.matched());
    assertEquals(Set.of("__debezium-heartbeat.db.inv"), first.skipped().keySet(), "only the heartbeat is reported: " + first);
    assertEquals(List.of(), p.match(Set.of("db.inv.orders", "db.inv.customers", "db.sales.items"), false), "each topic once");
  }

  @Test
  void aConnectorsTransactionTopicIsLeftOutByNameButATableNamedTransactionIsTaken() {
    TopicPatterns p = patterns("{topic_pattern: 'db1.*'}");
    List<Subscription> matched = p.match(Set.of("db1.inv.orders", "db1.transaction", "db1.inv.transaction"), true);
    assertEquals(List.of("db1.inv.orders→orders_APPEND", "db1.inv.transaction→transaction_APPEND"), topics(matched),
        "a table named transaction two segments below the prefix is a table");
    String why = p.report().get(0).skipped().get("db1.transaction");
    assertTrue(why != null && why.contains("transaction metadata"), "the connector's own topic is reported as skipped: " + p.report());

    // Seen alone (no table topic of its prefix yet) the name proves nothing: it is taken, and its
    // records decide (the table is quarantined at the first one, naming it).
    assertEquals(List.of("db2.transaction→transaction_APPEND"), topics(patterns("{topic_pattern: 'db2.*'}")
        .match(Set.of("db2.transaction"), true)));
  }

  @Test
  void twoTopicsForOneTableAreRefusedAtStartAndTheNewOneIsLeftOutWhileRunning() {
    ConfigurationException e = assertThrows(ConfigurationException.class,
        () -> patterns("{topic_pattern: 'db\\..*'}").match(Set.of("db.a.t", "db.b.t", "db.b.T"), true));
    assertTrue(e.getMessage().contains("matches topic db.b.t, whose table t_APPEND is already written from topic db.a.t")
        && e.getMessage().contains("matches topic db.b.T, whose table"), "every clash at once, both topics named: " + e.getMessage());

    TopicPatterns running = patterns("{topic: db.a.t, table: t}", "{topic_pattern: 'db\\..*'}");
    assertEquals(List.of(), running.match(Set.of("db.a.t"), true));
    assertEquals(List.of("db.c.u→u_APPEND"), topics(running.match(Set.of("db.a.t", "db.b.t", "db.c.u"), false)));
    String why = running.report().get(0).skipped().get("db.b.t");
    assertTrue(why.contains("db.b.t") && why.contains("from topic db.a.t (subscriptions[0])"), why);
  }
}
