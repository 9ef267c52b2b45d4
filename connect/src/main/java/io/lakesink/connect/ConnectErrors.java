package io.lakesink.connect;

import io.lakesink.error.ConfigurationException;
import java.util.Comparator;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;

/** Every message the connector words itself; each names what is wrong and what to change. */
final class ConnectErrors {
  private ConnectErrors() {}

  static ConfigException missing(String key, String why) {
    return new ConfigException("Connector setting '" + key + "' is required: " + why + ".");
  }

  static ConfigException invalid(String key, String problem, String fix) {
    return new ConfigException("Connector setting '" + key + "' " + problem + ": " + fix + ".");
  }

  /**
   * Runs a check of the shared modules (storage, catalog, registry settings), whose messages name
   * the standalone worker's YAML keys, and turns its refusal into Connect's configuration error
   * naming the connector's keys. The modules never put a secret's value in a message.
   */
  static <T> T translating(Supplier<T> check) {
    try {
      return check.get();
    } catch (ConfigurationException e) {
      throw new ConfigException(connectKeys(e.getMessage()));
    }
  }

  static String connectKeys(String message) {
    String m = message;
    // Longest YAML key first: storage.client_secret must not be rewritten as storage.client….
    for (Map.Entry<String, String> e : ConnectorSettings.YAML_KEYS.entrySet().stream()
        .sorted(Comparator.comparingInt((Map.Entry<String, String> x) -> x.getValue().length()).reversed()).toList()) {
      m = m.replace(e.getValue(), e.getKey());
    }
    return m;
  }

  /** A REST request for lakesink's status of a connector the cluster does not have. */
  static String noSuchConnector(String name) {
    return "Connector '" + name + "' does not exist in this Connect cluster: GET /connectors lists the connectors.";
  }

  /** The record value is not bytes: the converters are not the ones lakesink decodes from. */
}
