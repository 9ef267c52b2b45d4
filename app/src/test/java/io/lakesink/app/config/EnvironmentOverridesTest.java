package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code LAKESINK_<SECTION>_<KEY>} overrides: variable, then file, then legacy variable, then default. */
class EnvironmentOverridesTest {
  static final String MINIMAL = ConfigLoaderTest.MINIMAL;

  private static WorkerConfig load(String yaml, Map<String, String> env) {
    return new ConfigLoader(env).parse(yaml, "test");
  }

  private static String failure(String yaml, Map<String, String> env) {
    return assertThrows(ConfigurationException.class, () -> load(yaml, env)).getMessage();
  }

  @Test
  void anOverrideBeatsTheFile() {
    String yaml = MINIMAL + "delivery: {merge_scan_limit_mb: 256}\nstatus: {port: 1234}\n";
    WorkerConfig c = load(yaml, Map.of(
        "LAKESINK_DELIVERY_MERGE_SCAN_LIMIT_MB", "1GB",
        "LAKESINK_STATUS_PORT", "4321",
        "LAKESINK_KAFKA_GROUP_ID", "from-env",
        "LAKESINK_STORAGE_PATH", "/elsewhere"));
    assertEquals(1024L << 20, c.merge().scanLimitBytes());
    assertEquals(4321, c.status().port());
    assertEquals("from-env", c.kafka().groupId());
    assertEquals("/elsewhere", c.storage().path());
  }

  @Test
  void anOverriddenKeyMayReferToAnUnsetVariable() {
    String yaml = MINIMAL.replace("k:9092", "${env:BROKERS}");
    assertEquals("b:9092", load(yaml, Map.of("LAKESINK_KAFKA_BOOTSTRAP_SERVERS", "b:9092")).kafka().bootstrapServers());
    assertTrue(failure(yaml, Map.of()).contains("'kafka.bootstrap_servers' refers to environment variable BROKERS, which is not set"));
  }

  @Test
  void anOverrideFillsASectionTheFileLeavesOut() {
    WorkerConfig c = load(MINIMAL, Map.of("LAKESINK_DELIVERY_FLUSH_INTERVAL", "2s", "LAKESINK_STATUS_ENABLED", "false"));
    assertEquals(java.time.Duration.ofSeconds(2), c.delivery().interval());
    assertFalse(c.status().enabled());
  }

  @Test
  void theLegacyMergeLimitVariableOnlyFillsAGap() {
    assertEquals(100L << 20, load(MINIMAL, Map.of("DELTA_MERGE_SCAN_LIMIT_MB", "100")).merge().scanLimitBytes());
    assertEquals(200L << 20, load(MINIMAL + "delivery: {merge_scan_limit_mb: 200}\n",
        Map.of("DELTA_MERGE_SCAN_LIMIT_MB", "100")).merge().scanLimitBytes());
    assertEquals(300L << 20, load(MINIMAL + "delivery: {merge_scan_limit_mb: 200}\n",
        Map.of("DELTA_MERGE_SCAN_LIMIT_MB", "100", "LAKESINK_DELIVERY_MERGE_SCAN_LIMIT_MB", "300")).merge().scanLimitBytes());
    assertTrue(failure(MINIMAL, Map.of("DELTA_MERGE_SCAN_LIMIT_MB", "lots"))
        .contains("'delivery.merge_scan_limit_mb' is 'lots' (set by environment variable DELTA_MERGE_SCAN_LIMIT_MB)"));
  }

  @Test
  void aBadOverrideNamesItsVariable() {
    String m = failure(MINIMAL, Map.of("LAKESINK_STATUS_PORT", "http"));
    assertTrue(m.contains("'status.port' is 'http' (set by environment variable LAKESINK_STATUS_PORT)"), m);
    m = failure(MINIMAL, Map.of("LAKESINK_DELIVERY_FLUSH_INTERVAL", "soon"));
    assertTrue(m.contains("(set by environment variable LAKESINK_DELIVERY_FLUSH_INTERVAL)"), m);
  }

  @Test
  void aMisspeltOverrideIsRefused() {
    String m = failure(MINIMAL, Map.of("LAKESINK_DELIVERY_MERGE_SCAN_LIMIT", "1024"));
    assertTrue(m.contains("Environment variable LAKESINK_DELIVERY_MERGE_SCAN_LIMIT looks like a configuration override"), m);
    assertTrue(m.contains("LAKESINK_DELIVERY_MERGE_SCAN_LIMIT_MB"), m);
    m = failure(MINIMAL, Map.of("LAKESINK_SUBSCRIPTIONS_0_TABLE", "x"));
    assertTrue(m.contains("subscriptions cannot be set from the environment"), m);
    m = failure(MINIMAL, Map.of("LAKESINK_KAFKA_PROPERTIES_SASL_JAAS_CONFIG", "secret-jaas"));
    assertFalse(m.contains("secret-jaas"), m);
  }

  @Test
  void launcherAndLoggingVariablesAreNotOverrides() {
    Map<String, String> env = new HashMap<>();
    env.put("LAKESINK_JAVA_OPTS", "-Xmx1g");
    env.put("LAKESINK_LOG_FORMAT", "json");
    env.put("LAKESINK_LOG_LEVEL", "debug");
    env.put("LAKESINK_HOME", "/opt/lakesink");
    assertEquals("lakesink", load(MINIMAL, env).kafka().groupId());
  }

  @Test
  void everySingleValueKeyHasAVariable() {
    var keys = ConfigLoader.overridableKeys();
    assertTrue(keys.contains("delivery.merge_scan_limit_mb"), keys.toString());
    assertTrue(keys.contains("storage.connection_string"), keys.toString());
    assertTrue(keys.contains("kafka.instance_id"), keys.toString());
    assertFalse(keys.contains("kafka.properties"), keys.toString());
    assertEquals("LAKESINK_SCHEMA_REGISTRY_TRUST_STORE_PASSWORD",
        EnvironmentOverrides.variable("schema_registry.trust_store_password"));
  }
}
