package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A {@code topic_pattern} entry: its settings for every matching topic, its table template, and what it refuses. */
class PatternConfigTest {
  final ConfigLoader loader = new ConfigLoader(Map.<String, String>of()::get);

  private WorkerConfig parse(String entry) {
    return loader.parse("kafka: {bootstrap_servers: \"k:9092\"}\nstorage: {type: local, path: /data}\nsubscriptions:\n"
        + "  - {topic: other, table: other}\n  - " + entry + "\n", "test");
  }

  private void assertRefused(String entry, String expected) {
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> parse(entry));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void eachMatchingTopicGetsTheEntrysSettingsAndATableNamedFromTheTopic() {
    WorkerConfig c = parse("{topic_pattern: 'db1\\.inventory\\..*', mode: merge, primary_key: [id]}");
    assertEquals(List.of("other"), c.subscriptions().stream().map(Subscription::topic).toList(), "a pattern is no topic");
    TopicPattern p = c.patterns().get(0);
    assertEquals("subscriptions[1]", p.at());
    assertTrue(p.matches("db1.inventory.customers"));
    assertTrue(!p.matches("db1.inventory") && !p.matches("xdb1.inventory.customers"), "the whole name must match");
    Subscription s = p.forTopic("db1.inventory.customers");
    assertEquals("customers", s.table());
    assertEquals(DeliveryMode.MERGE, s.mode());
    assertEquals(List.of("id"), s.primaryKey());

    TopicPattern templated = parse("{topic_pattern: 'db1\\..*', table: 'inv_${table}'}").patterns().get(0);
    assertEquals("inv_customers", templated.forTopic("db1.inventory.customers").table());
    assertEquals("db1_inventory_customers_APPEND",
        parse("{topic_pattern: 'db1\\..*', table: '${topic}'}").patterns().get(0).forTopic("db1.inventory.customers").targetTable());
  }

  @Test
  void whatAPatternEntryCannotMeanIsRefused() {
    assertRefused("{topic_pattern: 'a.*', topic: a1}", "'subscriptions[1].topic' is set and so is subscriptions[1].topic_pattern");
    assertRefused("{topic_pattern: 'a.*', table: all}", "would write every matching topic into one table");
    assertRefused("{topic_pattern: 'a.(*'}", "'subscriptions[1].topic_pattern' is 'a.(*', not a regular expression");
    assertRefused("{topic_pattern: 'a.*', catalog: default}", "'subscriptions[1].catalog' is set on a topic_pattern entry");
    assertRefused("{topic_pattern: 'a.*', current_state: {build: false}}", "'subscriptions[1].current_state' is set on a topic_pattern");
    assertRefused("{topic_pattern: 'a.*', format: avro}", "schema_registry.url");
  }
}
