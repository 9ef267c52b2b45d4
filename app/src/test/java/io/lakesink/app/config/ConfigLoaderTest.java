package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.error.ConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
  static final String MINIMAL = """
      kafka: {bootstrap_servers: "k:9092"}
      storage: {type: local, path: /data}
      subscriptions:
        - {topic: db.orders, table: orders}
      """;

  final ConfigLoader loader = new ConfigLoader(Map.of("SASL", "s3cret-jaas", "DIR", "/tables")::get);

  @Test
  void defaultsFillWhatIsLeftOut() {
    WorkerConfig c = loader.parse(MINIMAL, "test");
    assertEquals("lakesink", c.kafka().groupId());
    assertEquals("lakesink", c.storage().prefix());
    assertEquals(Duration.ofSeconds(10), c.delivery().interval());
    var s = c.subscriptions().get(0);
    assertEquals(DeliveryMode.CHANGELOG, s.mode());
    assertEquals(List.of(), s.primaryKey());
    assertTrue(s.includeMetadataColumns());
    assertEquals("orders_APPEND", s.targetTable());
  }

  @Test
  void maintenanceIsOnUnlessTurnedOff() {
    assertTrue(loader.parse(MINIMAL, "test").maintenance());
    assertFalse(loader.parse(MINIMAL + "maintenance: {enabled: false}\n", "test").maintenance());
    assertMessage(MINIMAL + "maintenance: {enable: false}\n", "'maintenance.enable' is not a known key");
  }

  @Test
  void everyKeyIsRead() {
    WorkerConfig c = loader.parse("""
        kafka:
          bootstrap_servers: a:1,b:2
          group_id: g
          properties: {security.protocol: SASL_SSL, sasl.jaas.config: "${env:SASL}"}
        storage: {type: local, path: "${env:DIR}", prefix: p/q}
        delivery: {flush_interval: 500ms, flush_rows: 1000, flush_bytes: 64MB}
        subscriptions:
          - {topic: t, table: "my-table", mode: changelog, primary_key: [a, b], format: json, include_metadata_columns: false}
        """, "test");
    assertEquals("s3cret-jaas", c.kafka().properties().get("sasl.jaas.config"));
    assertFalse(c.kafka().toString().contains("s3cret"), "settings print without secret values");
    assertEquals("/tables", c.storage().path());
    assertEquals(Duration.ofMillis(500), c.delivery().interval());
    assertEquals(1000, c.delivery().rows());
    assertEquals(64L << 20, c.delivery().bytes());
    assertEquals(List.of("a", "b"), c.subscriptions().get(0).primaryKey());
    assertEquals("my_table_APPEND", c.subscriptions().get(0).targetTable());
    assertFalse(c.subscriptions().get(0).includeMetadataColumns());
  }

  @Test
  void newMergeTablesGetDeletionVectorsUnlessTheKeySaysOtherwise() {
    assertEquals(io.lakesink.merge.MergeSettings.DeletionVectors.NEW_TABLES, loader.parse(MINIMAL, "test").merge().deletionVectors());
    WorkerConfig all = loader.parse(MINIMAL + "delivery: {merge_deletion_vectors: all, merge_scan_limit_mb: 256}\n", "test");
    assertEquals(io.lakesink.merge.MergeSettings.DeletionVectors.ALL, all.merge().deletionVectors());
    assertEquals(256L << 20, all.merge().scanLimitBytes());
    assertEquals(io.lakesink.merge.MergeSettings.DeletionVectors.NONE,
        loader.parse(MINIMAL + "delivery: {merge_deletion_vectors: none}\n", "test").merge().deletionVectors());
    assertMessage(MINIMAL + "delivery: {merge_deletion_vectors: sometimes}\n",
        "'delivery.merge_deletion_vectors' is 'sometimes': use new_tables, all or none");
  }

  @Test
  void columnMappingIsReadAndItsFlagsMakeTheKey() {
    WorkerConfig c = loader.parse(MINIMAL.replace("table: orders}", """
        table: orders, columns: [{source: id, name: order_id, cast: long, primary_key: true}, status, {source: amt, cast: decimal}]}"""), "test");
    var s = c.subscriptions().get(0);
    assertEquals(List.of("order_id"), s.primaryKey());
    assertEquals(List.of(
        new io.lakesink.mapping.ColumnRule("id", "order_id", io.lakesink.event.ColumnType.BIGINT, true),
        new io.lakesink.mapping.ColumnRule("status", "status", null, false),
        new io.lakesink.mapping.ColumnRule("amt", "amt", io.lakesink.event.ColumnType.STRING, false)), s.columns());
    assertMessage(MINIMAL.replace("table: orders}", "table: orders, primary_key: [x], columns: [{source: id, primary_key: true}]}"), "declare the key in one place");
    assertMessage(MINIMAL.replace("table: orders}", "table: orders, columns: [{source: a, name: b}, {source: c, name: b}]}"), "repeats column b");
    assertMessage(MINIMAL.replace("table: orders}", "table: orders, columns: [{name: b}]}"), "'subscriptions[0].columns[0].source' is required");
  }

  @Test
  void errorsNameTheKeyAndTheFix() {
    assertMessage("kafka: {}\nstorage: {type: local, path: x}\nsubscriptions: [{topic: t, table: t}]", "'kafka.bootstrap_servers' is required");
    assertMessage(MINIMAL.replace("table: orders", "table: orders, primary_keys: [id]"), "'subscriptions[0].primary_keys' is not a known key");
    assertMessage(MINIMAL.replace("table: orders", "table: orders, mode: upsert"), "'subscriptions[0].mode' is 'upsert': use changelog or merge");
    assertMessage(MINIMAL.replace("type: local, path: /data", "type: s3"), "'storage.type' is 's3'");
    assertMessage(MINIMAL.replace("type: local, path: /data", "type: local"), "'storage.path' is required");
    assertMessage(MINIMAL + "delivery: {flush_interval: soon}\n", "'delivery.flush_interval' is 'soon'");
    assertMessage(MINIMAL.replace("k:9092", "${env:NOPE}"), "environment variable NOPE, which is not set");
    assertMessage(MINIMAL + "  - {topic: db.orders, table: other}\n", "repeats topic db.orders");
    assertMessage(MINIMAL + "  - {topic: b, table: orders}\n", "give each subscription its own table");
    assertMessage("kafka: [", "not valid YAML");
  }

  private void assertMessage(String yaml, String expected) {
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> loader.parse(yaml, "test"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
