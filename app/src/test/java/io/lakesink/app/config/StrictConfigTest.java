package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import io.lakesink.event.ColumnType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typo-proof parts of the configuration; every test here fails on the old loader. */
class StrictConfigTest {
  static final String MINIMAL = ConfigLoaderTest.MINIMAL;

  final ConfigLoader loader = new ConfigLoader(Map.of("HOSTNAME", "worker-7.example")::get);

  @Test
  void wordsAreTheDocumentedLowercaseOnes() {
    assertMessage(sub("mode: MERGE"), "'subscriptions[0].mode' is 'MERGE': use changelog or merge");
    assertMessage(MINIMAL + "  - {topic: a, table: b}\n  - {topic: c, table: d, mode: mrege}\n",
        "'subscriptions[2].mode' is 'mrege': use changelog or merge");
    assertMessage(sub("format: JSON"), "'subscriptions[0].format' is 'JSON': use auto, json or avro");
  }

  @Test
  void aKeyWrittenTwiceIsRefused() {
    assertMessage(MINIMAL + "status: {port: 1}\nstatus: {port: 2}\n", "writes key 'status' twice in one mapping (the second near line 6)");
    assertMessage(MINIMAL.replace("path: /data", "path: /data, path: /other"), "writes key 'path' twice");
    assertMessage(MINIMAL.replace("k:9092\"}", "k:9092\", properties: {fetch.min.bytes: }}"), "'kafka.properties.fetch.min.bytes' has no value");
  }

  @Test
  void valuesOfTheWrongShapeAreRefusedWithTheirPath() {
    assertMessage(MINIMAL + "status: {port: 9400.5}\n", "'status.port' is '9400.5': write a whole number");
    assertMessage(MINIMAL + "status: {enabled: 1}\n", "'status.enabled'");
    assertMessage(MINIMAL + "status: {enabled: sometimes}\n", "'status.enabled' is 'sometimes': use true or false");
    assertMessage(MINIMAL.replace("k:9092\"}", "k:9092\", properties: {sasl.jaas.config: {nested: s3cret}}}"),
        "'kafka.properties.sasl.jaas.config' is not a single value");
    assertMessage(sub("primary_key: {a: b}"), "'subscriptions[0].primary_key[0]' is not a single value");
    assertMessage(MINIMAL + "status: {hots: 0.0.0.0}\n", "'status.hots' is not a known key: known keys here are [enabled, host, port]");
    assertMessage(MINIMAL.replace("subscriptions:", "subscription:"), "'subscription' is not a known key");
    assertMessage(MINIMAL.replace("kafka: {bootstrap_servers: \"k:9092\"}", "kafka: k:9092"), "'kafka' is not a mapping");
    assertMessage(MINIMAL.replace("- {topic: db.orders, table: orders}", "- db.orders"), "'subscriptions[0]' is not a mapping");
    assertMessage(MINIMAL.replace("- {topic: db.orders, table: orders}", "topic: db.orders"), "'subscriptions' is not a list");
  }

  @Test
  void messagesNeverRepeatASecret() {
    String yaml = MINIMAL.replace("k:9092\"}", "k:9092\", properties: {sasl.jaas.config: {password: hunter2-secret}}}");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> loader.parse(yaml, "test"));
    assertFalse(e.getMessage().contains("hunter2-secret"), e.getMessage());
    WorkerConfig c = loader.parse(MINIMAL.replace("k:9092\"}", "k:9092\", properties: {sasl.jaas.config: hunter2-secret}}")
        + "schema_registry: {url: \"https://r:8081\", username: u, password: reg-secret-9}\n", "test");
    assertFalse(c.toString().contains("hunter2-secret"), c.toString());
    assertFalse(c.toString().contains("reg-secret-9"), c.toString());
  }

  @Test
  void anUnknownCastIsRefusedNamingTheColumnAndTheWords() {
    assertMessage(sub("columns: [{source: amt, cast: numbr}]"),
        "'subscriptions[0].columns[0].cast' is 'numbr' for column amt of subscription subscriptions[0] (topic db.orders):"
            + " use one of int, integer, long, bigint, float, double, bool, boolean, date, datetime, timestamp, string, text, varchar, decimal");
    assertMessage(sub("columns: [{source: amt, cast: Long}]"), "'subscriptions[0].columns[0].cast' is 'Long'");
    WorkerConfig c = loader.parse(sub("columns: [{source: a, cast: string}, {source: b, cast: timestamp}]"), "test");
    assertEquals(ColumnType.STRING, c.subscriptions().get(0).columns().get(0).cast());
    assertEquals(ColumnType.TIMESTAMP, c.subscriptions().get(0).columns().get(1).cast());
  }

  @Test
  void sizesTakeAUnitAndABareNumberIsTheKeysUnit() {
    assertEquals(512L << 20, delivery("merge_scan_limit_mb: 512MB").merge().scanLimitBytes(), "512MB is 512 MiB, not 512 TiB");
    assertEquals(512L << 20, delivery("merge_scan_limit_mb: 512").merge().scanLimitBytes());
    assertEquals(2048L << 20, delivery("merge_scan_limit_mb: 2GiB").merge().scanLimitBytes());
    assertEquals(64L << 10, delivery("flush_bytes: 64kb").delivery().bytes());
    assertEquals(1000, delivery("flush_bytes: 1000").delivery().bytes(), "flush_bytes without unit is bytes");
    assertMessage(MINIMAL + "delivery: {merge_scan_limit_mb: 512KB}\n", "not a whole number of MiB");
    assertMessage(MINIMAL + "delivery: {flush_bytes: 1.5GB}\n", "'delivery.flush_bytes' is '1.5GB': write a positive whole number of bytes, or one with a unit: B, KB, MB, GB, KiB, MiB or GiB");
    assertMessage(MINIMAL + "delivery: {flush_bytes: 64M}\n", "'delivery.flush_bytes' is '64M'");
    assertMessage(MINIMAL + "delivery: {flush_bytes: 0}\n", "'delivery.flush_bytes' is '0'");
    assertMessage(MINIMAL + "delivery: {flush_bytes: -5MB}\n", "'delivery.flush_bytes' is '-5MB'");
    assertMessage(MINIMAL + "delivery: {merge_scan_limit_mb: 99999999999999GB}\n", "'delivery.merge_scan_limit_mb'");
    assertMessage(MINIMAL + "delivery: {flush_rows: 10MB}\n", "'delivery.flush_rows' is '10MB': write a positive whole number");
  }

  @Test
  void durationsNeedAUnit() {
    assertEquals(Duration.ofHours(1), delivery("flush_interval: 1h").delivery().interval());
    assertEquals(Duration.ofMinutes(5), delivery("flush_interval: 5m").delivery().interval());
    assertMessage(MINIMAL + "delivery: {flush_interval: 10}\n", "'delivery.flush_interval' is '10': write a positive whole number with a unit (ms, s, m or h)");
    assertMessage(MINIMAL + "delivery: {flush_interval: 10S}\n", "'delivery.flush_interval' is '10S'");
    assertMessage(MINIMAL + "delivery: {flush_interval: 1.5s}\n", "'delivery.flush_interval' is '1.5s'");
  }

  @Test
  void staticMembershipFromInstanceId() {
    assertNull(loader.parse(MINIMAL, "test").kafka().instanceId());
    WorkerConfig c = loader.parse(MINIMAL.replace("k:9092\"}", "k:9092\", instance_id: lakesink-1}"), "test");
    assertEquals("lakesink-1", c.kafka().instanceId());
    assertEquals("worker-7.example",
        loader.parse(MINIMAL.replace("k:9092\"}", "k:9092\", instance_id: auto}"), "test").kafka().instanceId());
    assertMessage(MINIMAL.replace("k:9092\"}", "k:9092\", instance_id: \"my worker\"}"), "'kafka.instance_id' is 'my worker'");
    assertMessage(MINIMAL.replace("k:9092\"}", "k:9092\", instance_id: a, properties: {group.instance.id: b}}"), "keep one of the two");
  }

  @Test
  void theStatusEndpointListensOnLoopbackUnlessOpened() {
    assertEquals("127.0.0.1", loader.parse(MINIMAL, "test").status().host());
    assertEquals("0.0.0.0", loader.parse(MINIMAL + "status: {host: 0.0.0.0}\n", "test").status().host());
  }

  @Test
  void keysOfTheOtherStorageOrCatalogTypeAreRefused() {
    assertMessage(MINIMAL.replace("path: /data", "path: /data, container: lake"), "'storage.container' only applies to storage type azure");
    assertMessage(MINIMAL.replace("path: /data", "path: /data, allow_insecure_http: true"), "'storage.allow_insecure_http' only applies to storage type azure");
    assertMessage(MINIMAL + "catalog: {type: none, workspace_url: \"https://x\"}\n", "'catalog.workspace_url' only applies to catalog type unity");
    assertMessage(MINIMAL + "catalog: {type: Unity}\n", "'catalog.type' is 'Unity': use none or unity");
  }

  private WorkerConfig delivery(String line) {
    return loader.parse(MINIMAL + "delivery: {" + line + "}\n", "test");
  }

  private static String sub(String extra) {
    return MINIMAL.replace("table: orders}", "table: orders, " + extra + "}");
  }

  private void assertMessage(String yaml, String expected) {
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> loader.parse(yaml, "test"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
