package io.lakesink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/**
 * What {@code PUT /connector-plugins/…/config/validate} answers: checks across keys land on the
 * key to change, name it as the connector spells it, and never repeat a secret. (Runs before
 * packaging in no cluster; the cluster tests load the plugin from its archive.)
 */
class ConnectorValidationTest {
  private static Map<String, String> base() {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.lakesink.connect.LakesinkSinkConnector");
    c.put("topics", "orders");
    c.put("storage.type", "local");
    c.put("storage.path", "/tmp/lake");
    return c;
  }

  private static List<String> errors(Config config, String key) {
    return config.configValues().stream().filter(v -> v.name().equals(key)).findFirst().map(ConfigValue::errorMessages)
        .orElseThrow();
  }

  private static long errorCount(Config config) {
    return config.configValues().stream().mapToLong(v -> v.errorMessages().size()).sum();
  }

  @Test
  void aCompleteLocalConfigurationIsValid() {
    assertEquals(0, errorCount(new LakesinkSinkConnector().validate(base())));
  }

  /** The task maintains its tables as the worker does, unless told not to. */
  @Test
  void maintenanceIsOnByDefaultWithClusteringStepsSizedToTheMergeLimit() {
    Map<String, String> c = base();
    c.put("merge.scan.limit.mb", "200");
    var on = new ConnectorSettings(c).maintenance();
    assertTrue(on.enabled());
    assertEquals((200L << 20) / 25, on.settings().clusterStepBytes());
    c.put("maintenance.enabled", "false");
    assertFalse(new ConnectorSettings(c).maintenance().enabled());
  }

  @Test
  void localStorageWithoutAPathIsReportedOnStoragePath() {
    Map<String, String> c = base();
    c.remove("storage.path");
    List<String> errors = errors(new LakesinkSinkConnector().validate(c), "storage.path");
    assertEquals(1, errors.size());
    assertTrue(errors.get(0).contains("'storage.path' is required"), errors.get(0));
  }

  @Test
  void azureMessagesNameTheConnectorsKeysAndNeverTheSecret() {
    Map<String, String> c = base();
    c.put("storage.type", "azure");
    c.put("storage.container", "lake");
    c.put("storage.connection.string", "DefaultEndpointsProtocol=http;AccountName=a;AccountKey=SECRETKEY==;BlobEndpoint=http://x");
    Config config = new LakesinkSinkConnector().validate(c);
    String all = config.configValues().stream().flatMap(v -> v.errorMessages().stream()).reduce("", String::concat);
    assertEquals(1, errorCount(config), all);
    assertTrue(all.contains("storage.connection.string") || all.contains("storage.allow.insecure.http"), all);
    assertFalse(all.contains("connection_string") || all.contains("allow_insecure_http"), "the YAML spelling leaked: " + all);
    assertFalse(all.contains("SECRETKEY"), all);
  }

  @Test
  void mergeDeletionVectorsTakeTheDocumentedWords() {
    assertEquals(io.lakesink.merge.MergeSettings.DeletionVectors.NEW_TABLES, new ConnectorSettings(base()).merge().deletionVectors());
    Map<String, String> c = base();
    c.put("merge.deletion.vectors", "all");
    assertEquals(io.lakesink.merge.MergeSettings.DeletionVectors.ALL, new ConnectorSettings(c).merge().deletionVectors());
    c.put("merge.deletion.vectors", "sometimes");
    assertEquals(1, errors(new LakesinkSinkConnector().validate(c), "merge.deletion.vectors").size());
  }

  @Test
  void avroWithoutARegistryIsRefused() {
    Map<String, String> c = base();
    c.put("format", "avro");
    assertEquals(1, errors(new LakesinkSinkConnector().validate(c), "schema.registry.url").size());
  }

  @Test
  void secretsArePasswordsAndEveryKeyIsDocumented() {
    for (String key : List.of("storage.connection.string", "storage.client.secret", "catalog.client.secret",
        "schema.registry.password", "schema.registry.trust.store.password")) {
      assertEquals(ConfigDef.Type.PASSWORD, ConnectorSettings.DEF.configKeys().get(key).type, key);
    }
    ConnectorSettings.DEF.configKeys().values().forEach(k ->
        assertTrue(k.documentation != null && !k.documentation.isBlank(), k.name + " has no documentation"));
  }

  /** current_state.object=table keeps the current-state table of changelog tables; it needs a key. */
  @Test
  void theKeptCurrentStateTableIsAChangelogSettingThatNeedsAKey() {
    Map<String, String> c = base();
    assertFalse(new ConnectorSettings(c).keepsTable(), "a view by default");
    c.put("current_state.object", "table");
    List<String> noKey = errors(new LakesinkSinkConnector().validate(c), "primary.key");
    assertEquals(1, noKey.size(), noKey.toString());
    assertTrue(noKey.get(0).contains("current_state.object=table needs primary.key"), noKey.get(0));
    c.put("primary.key", "id");
    assertEquals(0, errorCount(new LakesinkSinkConnector().validate(c)));
    assertTrue(new ConnectorSettings(c).keepsTable());
    c.put("delivery.mode", "merge");
    assertFalse(new ConnectorSettings(c).keepsTable(), "a MERGE table is the current state already");
    c.put("current_state.object", "materialized_view");
    assertEquals(1, errors(new LakesinkSinkConnector().validate(c), "current_state.object").size());
  }
}
