package io.lakesink.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * The lakesink sink connector: writes Debezium change events into Delta tables, exactly once,
 * with the same core as the standalone worker. Every task gets the same configuration; Connect
 * spreads the topics' partitions over the tasks, and each task writes the tables of the
 * partitions it owns (the Delta log's per-partition offsets let tasks share one table).
 */
public final class LakesinkSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    check(new ConnectorSettings(props));
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return LakesinkSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int i = 0; i < maxTasks; i++) {
      configs.add(props);
    }
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return ConnectorSettings.DEF;
  }

  /**
   * Connect's per-key checks, then the ones across keys (a local path for local storage, a
   * complete Azure or Unity Catalog setting, a registry for Avro), reported on the key that
   * chose them so {@code PUT /connector-plugins/…/config/validate} shows where to look.
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    boolean perKeyErrors = config.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty());
    if (perKeyErrors) {
      return config;
    }
    try {
      check(new ConnectorSettings(connectorConfigs));
    } catch (ConfigException e) {
      String key = keyOf(e.getMessage());
      config.configValues().stream().filter(v -> v.name().equals(key)).findFirst()
          .ifPresent((ConfigValue v) -> v.addErrorMessage(e.getMessage()));
    }
    return config;
  }

  /** The checks that need several keys, without touching storage or the network. */
  static void check(ConnectorSettings s) {
    if (s.storageType().equals("local")) {
      s.localPath();
    } else {
      ConnectErrors.translating(() -> io.lakesink.storage.azure.AzureStorageSettings.fromConfig(s.azureSection()));
    }
    if (s.catalogType().equals("unity")) {
      ConnectErrors.translating(() -> io.lakesink.catalog.unity.UnitySettings.fromConfig(s.unitySection()));
    }
    s.schemaRegistry();
    if (s.keepsTable() && s.subscription("t").primaryKey().isEmpty()) {
      // A kept table is per key from its first record; the view can wait for the record keys.
      throw new ConfigException(ConnectorSettings.CURRENT_STATE_OBJECT + "=table needs primary.key (the key columns):"
          + " lakesink keeps the current-state table per key from the first record on. Set primary.key, or use "
          + ConnectorSettings.CURRENT_STATE_OBJECT + "=view.");
    }
  }

  /** The key a cross-key message is about: the first key of ours it names, else storage.type. */
  private static String keyOf(String message) {
    return ConnectorSettings.DEF.names().stream()
        .filter(k -> message.contains("'" + k + "'") || message.contains(k + " "))
        .max(java.util.Comparator.comparingInt(String::length))
        .orElse(ConnectorSettings.STORAGE_TYPE);
  }
}
