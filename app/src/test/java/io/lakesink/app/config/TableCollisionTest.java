package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two subscriptions never write the same Delta table (or a table and a view of one name). */
class TableCollisionTest {
  final ConfigLoader loader = new ConfigLoader(Map.<String, String>of()::get);

  private static String config(String... subscriptions) {
    StringBuilder s = new StringBuilder("kafka: {bootstrap_servers: \"k:9092\"}\nstorage: {type: local, path: /data}\nsubscriptions:\n");
    for (int i = 0; i < subscriptions.length; i++) {
      s.append("  - {topic: t").append(i).append(", ").append(subscriptions[i]).append("}\n");
    }
    return s.toString();
  }

  /** Fails on the old code: x's changelog is x_APPEND, the very table the merge subscription writes. */
  @Test
  void aChangelogAndAMergeTableOfTheSameNameCollide() {
    String m = message(config("table: x", "table: x_APPEND, mode: merge"));
    assertTrue(m.contains("'subscriptions[1].table' is 'x_APPEND' (merge: writes table x_APPEND"), m);
    assertTrue(m.contains("collides on x_APPEND with subscriptions[0] (table 'x', changelog: writes table x_APPEND and view x)"), m);
    assertTrue(m.contains("give each subscription its own table"), m);
  }

  @Test
  void aChangelogNamedLikeAnotherChangelogTableCollides() {
    message(config("table: x", "table: x_APPEND"));
    message(config("table: x_APPEND", "table: x, mode: merge"));
  }

  @Test
  void namesDifferingOnlyInCaseOrPunctuationCollide() {
    message(config("table: Orders", "table: orders, mode: merge"));
    message(config("table: my-table", "table: my_table"));
  }

  @Test
  void distinctTablesAreAccepted() {
    assertEquals(3, loader.parse(config("table: x", "table: y, mode: merge", "table: x_history"), "test").subscriptions().size());
  }

  @Test
  void theSameTopicTwiceIsRefused() {
    String yaml = "kafka: {bootstrap_servers: \"k:9092\"}\nstorage: {type: local, path: /data}\nsubscriptions:\n"
        + "  - {topic: a, table: x}\n  - {topic: a, table: y}\n";
    String m = message(yaml);
    assertTrue(m.contains("'subscriptions[1].topic' repeats topic a of subscriptions[0]"), m);
  }

  private String message(String yaml) {
    return assertThrows(ConfigurationException.class, () -> loader.parse(yaml, "test")).getMessage();
  }
}
