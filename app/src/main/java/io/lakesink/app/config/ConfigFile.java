package io.lakesink.app.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.List;
import java.util.Map;

/**
 * The shape of {@code lakesink.yaml}, as Jackson binds it: every key a user may write, and no
 * other (unknown keys are refused while binding). Values that need more than a type — sizes,
 * durations, words from a fixed list — stay text here; {@link ConfigValidator} reads them and
 * builds the {@link WorkerConfig}. Nothing here prints values: several hold secrets.
 */
record ConfigFile(
    KafkaSection kafka,
    StorageSection storage,
    DeliverySection delivery,
    List<SubscriptionSection> subscriptions,
    RegistrySection schemaRegistry,
    CatalogSection catalog,
    Map<String, CatalogSection> catalogs,
    StatusSection status,
    MaintenanceSection maintenance) {

  /** The top-level sections whose scalar keys {@code LAKESINK_*} variables may override. */
  static final Map<String, Class<?>> SECTIONS = Map.of(
      "kafka", KafkaSection.class,
      "storage", StorageSection.class,
      "delivery", DeliverySection.class,
      "schema_registry", RegistrySection.class,
      "catalog", CatalogSection.class,
      "status", StatusSection.class,
      "maintenance", MaintenanceSection.class);

  record KafkaSection(String bootstrapServers, String groupId, String instanceId, Map<String, String> properties) {
    @Override
    public String toString() {
      return "KafkaSection";
    }
  }

  /** Keys of both storage types; {@link ConfigValidator} refuses those of the other type. */
  record StorageSection(
      String type,
      String path,
      String prefix,
      String container,
      String connectionString,
      String account,
      String tenantId,
      String clientId,
      String clientSecret,
      String endpoint,
      String authorityHost,
      Boolean allowInsecureHttp) {
    @Override
    public String toString() {
      return "StorageSection";
    }
  }

  record DeliverySection(
      String flushInterval, String flushRows, String flushBytes, String mergeScanLimitMb, String maxBufferBytes,
      String mergeDeletionVectors) {}

  record SubscriptionSection(
      String topic,
      String topicPattern,
      String table,
      String mode,
      @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> primaryKey,
      String format,
      Boolean includeMetadataColumns,
      List<ColumnSection> columns,
      CurrentStateSection currentState,
      String catalog) {}

  /** A subscription's {@code current_state: {build, schema, refresh_lag, object, history}}. */
  record CurrentStateSection(Boolean build, String schema, String refreshLag, String object, Boolean history) {}

  /** One column of a mapping: {@code {source, name, cast, primary_key}}, or just the source name. */
  record ColumnSection(String source, String name, String cast, Boolean primaryKey) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static ColumnSection ofSource(String source) {
      return new ColumnSection(source, null, null, null);
    }
  }

  record RegistrySection(
      String url, String username, String password, String trustStore, String trustStorePassword,
      Boolean allowInsecureHttp, String timeout) {
    @Override
    public String toString() {
      return "RegistrySection";
    }
  }

  /** Keys of both catalog types (unity, and iceberg_rest under catalogs:); {@link ConfigValidator} refuses the other type's. */
  record CatalogSection(
      String type,
      String workspaceUrl,
      String clientId,
      String clientSecret,
      String catalog,
      String schema,
      Boolean allowUnauthenticatedLocalServer,
      String warehouseId,
      String currentState,
      String uri,
      String warehouse,
      String namespace,
      String token,
      String oauth2ServerUri,
      String scope) {
    @Override
    public String toString() {
      return "CatalogSection";
    }
  }

  record StatusSection(Boolean enabled, String host, Integer port) {}

  /** Whether the worker optimizes and vacuums its tables by itself (docs/maintenance.md). */
  record MaintenanceSection(Boolean enabled) {}
}
