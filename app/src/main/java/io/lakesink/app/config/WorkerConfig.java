package io.lakesink.app.config;

import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.merge.MergeSettings;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import java.util.List;
import java.util.Map;

/** The whole worker configuration, validated. */
public record WorkerConfig(
    KafkaSettings kafka,
    StorageSettings storage,
    FlushPolicy delivery,
    List<Subscription> subscriptions,
    SchemaRegistrySettings schemaRegistry,
    CatalogSettings catalog,
    StatusSettings status,
    MergeSettings merge,
    long maxBufferBytes,
    boolean maintenance,
    Map<String, CatalogSettings> catalogs,
    Map<String, String> subscriptionCatalogs,
    List<TopicPattern> patterns) {

  /** The name of the {@code catalog:} block among the named catalogs. */
  public static final String DEFAULT_CATALOG = "default";

  /**
   * @param catalogs the named catalogs of {@code catalogs:}, without {@link #DEFAULT_CATALOG}
   * @param subscriptionCatalogs the catalog each subscription names, by sanitized table name
   *     (absent: {@link #DEFAULT_CATALOG})
   * @param patterns the {@code topic_pattern} entries: their topics are found on the cluster
   *     ({@code subscriptions} holds only the entries that name their topic)
   */
  public WorkerConfig {
    catalogs = Map.copyOf(catalogs);
    subscriptionCatalogs = Map.copyOf(subscriptionCatalogs);
    patterns = List.copyOf(patterns);
  }

  /** The named catalog that owns a subscription's tables. */
  public String catalogName(Subscription s) {
    return subscriptionCatalogs.getOrDefault(io.lakesink.config.TableNames.sanitize(s.table()), DEFAULT_CATALOG);
  }

  /** A named catalog's settings ({@code default}: the {@code catalog:} block); null when there is none. */
  public CatalogSettings catalog(String name) {
    return DEFAULT_CATALOG.equals(name) ? catalog : catalogs.get(name);
  }

  /** Every catalog name: {@code default} first, then those of {@code catalogs:}. */
  public List<String> catalogNames() {
    List<String> names = new java.util.ArrayList<>();
    names.add(DEFAULT_CATALOG);
    catalogs.keySet().stream().sorted().forEach(names::add);
    return names;
  }

  /**
   * The HTTP endpoint with /health, /status and /metrics.
   *
   * @param host the address it binds to: loopback unless the user opens it (it is unauthenticated)
   */
  public record StatusSettings(boolean enabled, String host, int port) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final StatusSettings DEFAULT = new StatusSettings(true, DEFAULT_HOST, 9400);
  }

  /**
   * @param type {@code none} (tables are only written) or {@code unity}
   * @param settings every key under {@code catalog:}, for the catalog module to read (may hold
   *     the client secret: never logged)
   * @param namespace catalog and schema that qualify names in view SQL; empty for none
   * @param currentState each subscription's {@code current_state:} settings, by sanitized table
   *     name (a subscription without the section is absent: {@link CurrentStateOptions#DEFAULT})
   */
  public record CatalogSettings(
      String type, Map<String, String> settings, List<String> namespace, Map<String, CurrentStateOptions> currentState) {
    public static final CatalogSettings NONE = new CatalogSettings("none", Map.of(), List.of());

    public CatalogSettings {
      currentState = Map.copyOf(currentState);
    }

    public CatalogSettings(String type, Map<String, String> settings, List<String> namespace) {
      this(type, settings, namespace, Map.of());
    }

    /** What {@code catalog.current_state} says current-state objects are built as. */
    public CurrentStateKind currentStateKind() {
      CurrentStateKind kind = CurrentStateKind.ofWord(settings.get("current_state"));
      return kind == null ? CurrentStateKind.VIEW : kind;
    }

    /** What a subscription's current state is built as: its {@code current_state.object}, else the catalog's default. */
    public CurrentStateKind currentStateKind(String sanitizedTable) {
      CurrentStateKind own = currentState(sanitizedTable).object();
      return own != null ? own : currentStateKind();
    }

    public CurrentStateOptions currentState(String sanitizedTable) {
      return currentState.getOrDefault(sanitizedTable, CurrentStateOptions.DEFAULT);
    }

    public CatalogSettings withCurrentState(Map<String, CurrentStateOptions> options) {
      return new CatalogSettings(type, settings, namespace, options);
    }

    @Override
    public String toString() {
      return "CatalogSettings[type=" + type + ", namespace=" + namespace + "]";
    }
  }

  /**
   * @param properties passed to the Kafka consumer as they are (security settings, …); may hold
   *     secrets, so never logged
   * @param instanceId the consumer's {@code group.instance.id} (static membership), or null
   */
  public record KafkaSettings(String bootstrapServers, String groupId, Map<String, String> properties, String instanceId) {
    public KafkaSettings(String bootstrapServers, String groupId, Map<String, String> properties) {
      this(bootstrapServers, groupId, properties, null);
    }

    @Override
    public String toString() {
      return "KafkaSettings[bootstrapServers=" + bootstrapServers + ", groupId=" + groupId
          + (instanceId == null ? "" : ", instanceId=" + instanceId) + ", properties=" + properties.keySet() + "]";
    }
  }

  /**
   * @param type {@code local} (or {@code azure}, with the storage-azure module)
   * @param settings every key under {@code storage:}, for the storage type to read (may hold the
   *     connection string or client secret: never logged)
   */
  public record StorageSettings(String type, String path, String prefix, Map<String, String> settings) {
    @Override
    public String toString() {
      return "StorageSettings[type=" + type + ", path=" + path + ", prefix=" + prefix + "]";
    }
  }
}
