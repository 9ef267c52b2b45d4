package io.lakesink.connect;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.merge.MergeSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.types.Password;

/**
 * The connector's configuration: every key with its type, default, validator and documentation
 * ({@link #DEF}, which Connect shows on {@code /connector-plugins/…/config} and validates), and
 * the typed settings the task runs with. Keys are the standalone worker's YAML keys written the
 * Connect way (dotted); {@link #YAML_KEYS} maps them, so messages from the shared validation name
 * the key the operator actually wrote. Secrets are {@link Type#PASSWORD}: Connect masks them in
 * its REST output and logs, and resolves config-provider references such as
 * {@code ${file:/etc/secrets.properties:azure.key}} before the task sees them.
 */
public final class ConnectorSettings extends AbstractConfig {
  static final String TABLE_NAME_FORMAT = "table.name.format";
  static final String DELIVERY_MODE = "delivery.mode";
  static final String PRIMARY_KEY = "primary.key";
  static final String FORMAT = "format";
  static final String INCLUDE_METADATA = "include.metadata.columns";
  static final String FLUSH_INTERVAL = "flush.interval.ms";
  static final String FLUSH_ROWS = "flush.max.rows";
  static final String FLUSH_BYTES = "flush.max.bytes";
  static final String BUFFER_BYTES = "buffer.max.bytes";
  static final String MERGE_LIMIT = "merge.scan.limit.mb";
  static final String MERGE_DELETION_VECTORS = "merge.deletion.vectors";
  static final String MAINTENANCE_ENABLED = "maintenance.enabled";
  static final String CURRENT_STATE_OBJECT = "current_state.object";
  static final String STORAGE_TYPE = "storage.type";
  static final String STORAGE_PATH = "storage.path";
  static final String STORAGE_PREFIX = "storage.prefix";
  static final String CATALOG_TYPE = "catalog.type";
  static final String REGISTRY_URL = "schema.registry.url";
  static final String REGISTRY_USER = "schema.registry.username";
  static final String REGISTRY_PASSWORD = "schema.registry.password";
  static final String REGISTRY_TRUST_STORE = "schema.registry.trust.store";
  static final String REGISTRY_TRUST_STORE_PASSWORD = "schema.registry.trust.store.password";
  static final String REGISTRY_INSECURE = "schema.registry.allow.insecure.http";
  static final String REGISTRY_TIMEOUT = "schema.registry.timeout.ms";

  /** Azure keys (storage.type=azure), Connect key → the storage module's key. */
  static final Map<String, String> AZURE_KEYS = ordered(
      "storage.container", "container",
      "storage.connection.string", "connection_string",
      "storage.account", "account",
      "storage.tenant.id", "tenant_id",
      "storage.client.id", "client_id",
      "storage.client.secret", "client_secret",
      "storage.endpoint", "endpoint",
      "storage.authority.host", "authority_host",
      "storage.allow.insecure.http", "allow_insecure_http");

  /** Unity Catalog keys (catalog.type=unity), Connect key → the catalog module's key. */
  static final Map<String, String> UNITY_KEYS = ordered(
      "catalog.workspace.url", "workspace_url",
      "catalog.client.id", "client_id",
      "catalog.client.secret", "client_secret",
      "catalog.catalog", "catalog",
      "catalog.schema", "schema",
      "catalog.allow.unauthenticated.local.server", "allow_unauthenticated_local_server");

  private static final List<String> SECRETS = List.of(
      "storage.connection.string", "storage.client.secret", "catalog.client.secret", REGISTRY_PASSWORD,
      REGISTRY_TRUST_STORE_PASSWORD);

  /** The YAML key of the standalone worker for each Connect key, for messages. */
  static final Map<String, String> YAML_KEYS = yamlKeys();

  public static final ConfigDef DEF = define();

  public ConnectorSettings(Map<String, String> props) {
    super(DEF, props);
  }

  private static ConfigDef define() {
    ConfigDef d = new ConfigDef();
    String g = "Tables";
    d.define(TABLE_NAME_FORMAT, Type.STRING, "${topic}", new ConfigDef.NonEmptyString(), HIGH,
        "The Delta table each topic is written to; ${topic} stands for the topic's name. The name is"
            + " sanitized (letters, digits and '_'); changelog tables get the suffix _APPEND.", g, 1, ConfigDef.Width.MEDIUM, "Table name");
    d.define(DELIVERY_MODE, Type.STRING, "changelog", ValidString.in("changelog", "merge"), HIGH,
        "changelog: one row per change, appended. merge: the table holds the current state, keyed by primary.key.",
        g, 2, ConfigDef.Width.SHORT, "Delivery mode");
    d.define(PRIMARY_KEY, Type.LIST, "", HIGH,
        "Key columns, comma separated; empty means the fields of the record key.", g, 3, ConfigDef.Width.MEDIUM, "Primary key");
    d.define(FORMAT, Type.STRING, "auto", ValidString.in("auto", "json", "avro"), MEDIUM,
        "The record values' format: json (Debezium JSON, with or without schemas), avro (Confluent-framed, needs"
            + " schema.registry.url) or auto (Avro when a value starts with the magic byte, JSON otherwise)."
            + " Applies to bytes (ByteArrayConverter, the fastest) or text (StringConverter); records that a converter"
            + " turned into Connect data (AvroConverter, JsonConverter) are read through their Connect schema whatever"
            + " this says.", g, 4, ConfigDef.Width.SHORT, "Format");
    d.define(INCLUDE_METADATA, Type.BOOLEAN, true, LOW,
        "Whether the current-state view keeps the __op and __ts_ms columns.", g, 5, ConfigDef.Width.SHORT, "Metadata columns");
    d.define(CURRENT_STATE_OBJECT, Type.STRING, "view", ValidString.in("view", "table"), MEDIUM,
        "changelog mode: view (the current state is a view over the changelog, built in Databricks) or table (lakesink"
            + " keeps the current state as a Delta table <table> beside the changelog, updated after each commit;"
            + " needs primary.key; docs/current-state-table.md).", g, 6, ConfigDef.Width.SHORT, "Current-state object");
    g = "Flushing";
    d.define(FLUSH_INTERVAL, Type.LONG, FlushPolicy.DEFAULT.interval().toMillis(), ConfigDef.Range.atLeast(1), MEDIUM,
        "A table's buffer is committed at the latest this long after its oldest event.", g, 1, ConfigDef.Width.SHORT, "Flush interval");
    d.define(FLUSH_ROWS, Type.LONG, FlushPolicy.DEFAULT.rows(), ConfigDef.Range.atLeast(1), MEDIUM,
        "… or when it holds this many rows.", g, 2, ConfigDef.Width.SHORT, "Flush rows");
    d.define(FLUSH_BYTES, Type.LONG, FlushPolicy.DEFAULT.bytes(), ConfigDef.Range.atLeast(1), MEDIUM,
        "… or this many bytes of source records.", g, 3, ConfigDef.Width.SHORT, "Flush bytes");
    d.define(BUFFER_BYTES, Type.LONG, 256L << 20, ConfigDef.Range.atLeast(1 << 20), MEDIUM,
        "What all tables of one task may buffer on the heap together; past it every table of the task is flushed."
            + " Count it once per task when sizing the Connect worker's heap.", g, 4, ConfigDef.Width.SHORT, "Task buffer");
    d.define(MERGE_LIMIT, Type.LONG, MergeSettings.DEFAULT_SCAN_LIMIT_MB, ConfigDef.Range.atLeast(1), LOW,
        "What one MERGE may hold in memory, in MiB; a bigger merge quarantines its table.", g, 5, ConfigDef.Width.SHORT, "Merge limit");
    d.define(MERGE_DELETION_VECTORS, Type.STRING, MergeSettings.DeletionVectors.NEW_TABLES.configValue(),
        ValidString.in(java.util.Arrays.stream(MergeSettings.DeletionVectors.values()).map(MergeSettings.DeletionVectors::configValue)
            .toArray(String[]::new)), LOW,
        "Which MERGE tables delete replaced rows with deletion vectors instead of rewriting files: new_tables (created"
            + " from now on), all (also turns them on for existing tables: readers then need deletion vector support),"
            + " none.", g, 6, ConfigDef.Width.SHORT, "Merge deletion vectors");
    d.define(MAINTENANCE_ENABLED, Type.BOOLEAN, true, MEDIUM,
        "Whether the task optimizes and vacuums the tables it delivers to, beside delivery (docs/maintenance.md);"
            + " false when something else maintains them.", g, 7, ConfigDef.Width.SHORT, "Maintenance");
    g = "Storage";
    d.define(STORAGE_TYPE, Type.STRING, "local", ValidString.in("local", "azure"), HIGH,
        "Where the tables are written: local (a directory every Connect worker sees) or azure (Blob Storage / ADLS Gen2).",
        g, 1, ConfigDef.Width.SHORT, "Storage type");
    d.define(STORAGE_PATH, Type.STRING, null, HIGH, "storage.type=local: the directory that holds the tables.",
        g, 2, ConfigDef.Width.LONG, "Local path");
    d.define(STORAGE_PREFIX, Type.STRING, "lakesink", LOW, "Folder (under the path, or in the container) that holds the tables.",
        g, 3, ConfigDef.Width.MEDIUM, "Prefix");
    int order = 4;
    for (String key : AZURE_KEYS.keySet()) {
      boolean flag = key.endsWith(".http");
      d.define(key, flag ? Type.BOOLEAN : SECRETS.contains(key) ? Type.PASSWORD : Type.STRING, flag ? false : null,
          key.equals("storage.container") ? HIGH : MEDIUM,
          "storage.type=azure: " + KeyDocs.of(key), g, order++, ConfigDef.Width.MEDIUM, key);
    }
    g = "Catalog";
    d.define(CATALOG_TYPE, Type.STRING, "none", ValidString.in("none", "unity"), MEDIUM,
        "none: tables are only written. unity: each table is registered in Databricks Unity Catalog.",
        g, 1, ConfigDef.Width.SHORT, "Catalog type");
    order = 2;
    for (String key : UNITY_KEYS.keySet()) {
      boolean flag = key.endsWith(".server");
      d.define(key, flag ? Type.BOOLEAN : SECRETS.contains(key) ? Type.PASSWORD : Type.STRING, flag ? false : null, MEDIUM,
          "catalog.type=unity: " + KeyDocs.of(key), g, order++, ConfigDef.Width.MEDIUM, key);
    }
    g = "Schema registry";
    d.define(REGISTRY_URL, Type.STRING, null, MEDIUM, "The schema registry for Avro records, e.g. https://registry:8081.",
        g, 1, ConfigDef.Width.LONG, "Registry URL");
    d.define(REGISTRY_USER, Type.STRING, null, LOW, "Basic-auth user name.", g, 2, ConfigDef.Width.MEDIUM, "Registry user");
    d.define(REGISTRY_PASSWORD, Type.PASSWORD, null, LOW, "Basic-auth password.", g, 3, ConfigDef.Width.MEDIUM, "Registry password");
    d.define(REGISTRY_TRUST_STORE, Type.STRING, null, LOW, "A trust store (PKCS12 or JKS) for the registry's TLS certificate.",
        g, 4, ConfigDef.Width.LONG, "Trust store");
    d.define(REGISTRY_TRUST_STORE_PASSWORD, Type.PASSWORD, null, LOW, "The trust store's password.",
        g, 5, ConfigDef.Width.MEDIUM, "Trust store password");
    d.define(REGISTRY_INSECURE, Type.BOOLEAN, false, LOW, "Allow credentials over plain http (a local emulator only).",
        g, 6, ConfigDef.Width.SHORT, "Insecure http");
    d.define(REGISTRY_TIMEOUT, Type.LONG, SchemaRegistrySettings.DEFAULT_TIMEOUT.toMillis(), ConfigDef.Range.between(1, 60_000), LOW,
        "The longest one schema lookup may hold a record, retries included.", g, 7, ConfigDef.Width.SHORT, "Registry timeout");
    return d;
  }

  /** The subscription of one topic. */
  Subscription subscription(String topic) {
    return new Subscription(
        topic,
        TableNames.sanitize(getString(TABLE_NAME_FORMAT).replace("${topic}", topic)),
        DeliveryMode.valueOf(getString(DELIVERY_MODE).toUpperCase(Locale.ROOT)),
        getList(PRIMARY_KEY),
        SourceFormat.valueOf(getString(FORMAT).toUpperCase(Locale.ROOT)),
        getBoolean(INCLUDE_METADATA));
  }

  /** Whether changelog tables also keep their current-state table ({@code current_state.object=table}). */
  boolean keepsTable() {
    return getString(CURRENT_STATE_OBJECT).equals("table")
        && DeliveryMode.valueOf(getString(DELIVERY_MODE).toUpperCase(Locale.ROOT)) == DeliveryMode.CHANGELOG;
  }

  FlushPolicy flushPolicy() {
    return new FlushPolicy(Duration.ofMillis(getLong(FLUSH_INTERVAL)), getLong(FLUSH_ROWS), getLong(FLUSH_BYTES));
  }

  MergeSettings merge() {
    return MergeSettings.DEFAULT.withScanLimitMb(getLong(MERGE_LIMIT)).withDeletionVectors(
        MergeSettings.DeletionVectors.valueOf(getString(MERGE_DELETION_VECTORS).toUpperCase(java.util.Locale.ROOT)));
  }

  /** The tables' maintenance, its clustering steps sized to what a merge may hold. */
  MaintenancePolicy maintenance() {
    MaintenancePolicy base = getBoolean(MAINTENANCE_ENABLED) ? MaintenancePolicy.DEFAULT : MaintenancePolicy.OFF;
    return base.withSettings(base.settings().withMergeMemory(merge().scanLimitBytes()));
  }

  long bufferBytes() {
    return getLong(BUFFER_BYTES);
  }

  /** The registry settings, or null without {@code schema.registry.url}; checked by the kafka module. */
  SchemaRegistrySettings schemaRegistry() {
    String url = getString(REGISTRY_URL);
    if (url == null) {
      if (getString(FORMAT).equals("avro")) {
        throw ConnectErrors.missing(REGISTRY_URL, "format=avro reads Avro, which needs the schema registry's URL");
      }
      return null;
    }
    return ConnectErrors.translating(() -> new SchemaRegistrySettings(
        url, getString(REGISTRY_USER), secret(REGISTRY_PASSWORD), getString(REGISTRY_TRUST_STORE),
        secret(REGISTRY_TRUST_STORE_PASSWORD), getBoolean(REGISTRY_INSECURE), Duration.ofMillis(getLong(REGISTRY_TIMEOUT))));
  }

  String storageType() {
    return getString(STORAGE_TYPE);
  }

  String localPath() {
    String path = getString(STORAGE_PATH);
    if (path == null || path.isBlank()) {
      throw ConnectErrors.missing(STORAGE_PATH, "storage.type=local writes the tables under this directory");
    }
    return path;
  }

  String prefix() {
    return getString(STORAGE_PREFIX);
  }

  /** The Azure section as the storage module reads it (holds secrets: never logged). */
  Map<String, Object> azureSection() {
    Map<String, Object> m = section(AZURE_KEYS);
    m.put("prefix", prefix());
    return m;
  }

  String catalogType() {
    return getString(CATALOG_TYPE);
  }

  /** The Unity section as the catalog module reads it (holds the client secret: never logged). */
  Map<String, Object> unitySection() {
    return section(UNITY_KEYS);
  }

  private Map<String, Object> section(Map<String, String> keys) {
    Map<String, Object> m = new LinkedHashMap<>();
    keys.forEach((connectKey, moduleKey) -> {
      Object v = get(connectKey);
      if (v instanceof Password p) {
        v = p.value();
      }
      if (v != null && !(v instanceof Boolean b && !b)) {
        m.put(moduleKey, String.valueOf(v));
      }
    });
    return m;
  }

  private String secret(String key) {
    Password p = getPassword(key);
    return p == null ? null : p.value();
  }

  private static Map<String, String> yamlKeys() {
    Map<String, String> m = new LinkedHashMap<>();
    AZURE_KEYS.forEach((c, y) -> m.put(c, "storage." + y));
    UNITY_KEYS.forEach((c, y) -> m.put(c, "catalog." + y));
    for (String k : List.of(REGISTRY_URL, REGISTRY_USER, REGISTRY_PASSWORD, REGISTRY_TRUST_STORE,
        REGISTRY_TRUST_STORE_PASSWORD, REGISTRY_INSECURE)) {
      m.put(k, "schema_registry." + k.substring("schema.registry.".length()).replace('.', '_'));
    }
    m.put(REGISTRY_TIMEOUT, "schema_registry.timeout");
    m.put(STORAGE_PREFIX, "storage.prefix");
    return m;
  }

  private static Map<String, String> ordered(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }
}
