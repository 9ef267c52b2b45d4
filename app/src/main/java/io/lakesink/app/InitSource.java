package io.lakesink.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where {@code lakesink init} connects: the broker of {@code --bootstrap-servers}, with the
 * {@code kafka:} (and {@code schema_registry:}) settings of an existing file given with
 * {@code --config}. That file need not be a whole configuration yet (it may have no
 * subscriptions: init is what writes them), so only these two sections are read, with {@code
 * ${env:NAME}} replaced for connecting and kept as written for the generated file.
 *
 * @param bootstrap the brokers to connect to, references resolved
 * @param properties {@code kafka.properties} to connect with, references resolved (secrets)
 * @param written the {@code kafka:} keys as the file wrote them ({@code bootstrap_servers} as given)
 * @param writtenProperties {@code kafka.properties} as the file wrote them
 * @param writtenRegistry the {@code schema_registry:} keys as the file wrote them; empty for none
 * @param registry the schema registry to read Avro keys' schemas from, or null
 * @param configFile the file of {@code --config}, or null
 */
record InitSource(
    String bootstrap,
    Map<String, String> properties,
    Map<String, String> written,
    Map<String, String> writtenProperties,
    Map<String, String> writtenRegistry,
    SchemaRegistrySettings registry,
    String configFile) {

  /**
   * @param bootstrapOption {@code --bootstrap-servers}, or null (then the file's)
   * @param configFile {@code --config}, or null
   * @param registryUrl {@code --schema-registry-url}, or null (then the file's, if any)
   */
  static InitSource of(String bootstrapOption, Path configFile, String registryUrl, ConfigLoader env) {
    JsonNode root = configFile == null ? null : read(configFile);
    JsonNode kafka = root == null ? null : root.get("kafka");
    Map<String, String> written = scalars(kafka);
    written.remove("properties");
    if (bootstrapOption != null) {
      written.put("bootstrap_servers", bootstrapOption);
    }
    if (written.get("bootstrap_servers") == null) {
      throw new ConfigurationException(Errors.initNoBroker());
    }
    Map<String, String> writtenProperties = scalars(kafka == null ? null : kafka.get("properties"));
    writtenProperties.values().removeIf(java.util.Objects::isNull); // the loader refuses them; init ignores them
    Map<String, String> properties = new LinkedHashMap<>();
    writtenProperties.forEach((k, v) -> properties.put(k, env.substitute(v, "kafka.properties." + k)));
    Map<String, String> writtenRegistry = scalars(root == null ? null : root.get("schema_registry"));
    if (registryUrl != null) {
      writtenRegistry.put("url", registryUrl);
    }
    return new InitSource(env.substitute(written.get("bootstrap_servers"), "kafka.bootstrap_servers"), properties,
        written, writtenProperties, writtenRegistry, registry(writtenRegistry, env), configFile == null ? null : configFile.toString());
  }

  private static SchemaRegistrySettings registry(Map<String, String> written, ConfigLoader env) {
    if (written.get("url") == null) {
      return null;
    }
    Map<String, String> r = new LinkedHashMap<>();
    written.forEach((k, v) -> r.put(k, env.substitute(v, "schema_registry." + k)));
    // The registry's own timeout is left at its default: init reads a handful of schemas once.
    return new SchemaRegistrySettings(r.get("url"), r.get("username"), r.get("password"), r.get("trust_store"),
        r.get("trust_store_password"), Boolean.parseBoolean(r.get("allow_insecure_http")), null);
  }

  private static JsonNode read(Path file) {
    try {
      JsonNode root = new YAMLMapper().readTree(Files.readString(file));
      if (root == null || !root.isObject()) {
        throw new ConfigurationException("The configuration " + file + " must be a YAML mapping (with a kafka: section for init).");
      }
      return root;
    } catch (IOException e) {
      throw new ConfigurationException("Cannot read the configuration " + file + " (" + e.getMessage() + "): check --config.");
    }
  }

  /** A mapping's scalar values as text, in the file's order; nested sections keep their key with a null value. */
  private static Map<String, String> scalars(JsonNode node) {
    Map<String, String> m = new LinkedHashMap<>();
    if (node != null && node.isObject()) {
      node.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().isValueNode() && !e.getValue().isNull()
          ? e.getValue().asText() : null));
    }
    return m;
  }

  @Override
  public String toString() {
    return "InitSource[bootstrap=" + bootstrap + ", properties=" + properties.keySet() + "]";
  }
}
