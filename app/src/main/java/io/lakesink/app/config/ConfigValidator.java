package io.lakesink.app.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.lakesink.app.config.ConfigFile.CatalogSection;
import io.lakesink.iceberg.rest.IcebergRestCatalog;
import io.lakesink.iceberg.rest.IcebergRestSettings;
import io.lakesink.app.config.ConfigFile.ColumnSection;
import io.lakesink.app.config.ConfigFile.CurrentStateSection;
import io.lakesink.app.config.ConfigFile.DeliverySection;
import io.lakesink.app.config.ConfigFile.KafkaSection;
import io.lakesink.app.config.ConfigFile.RegistrySection;
import io.lakesink.app.config.ConfigFile.StatusSection;
import io.lakesink.app.config.ConfigFile.StorageSection;
import io.lakesink.app.config.ConfigFile.SubscriptionSection;
import io.lakesink.app.config.ConfigValues.SizeUnit;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.event.NonTableTopic;
import io.lakesink.event.ColumnType;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.mapping.ColumnRule;
import io.lakesink.merge.MergeSettings;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.RefreshSchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Turns the bound file into a {@link WorkerConfig}, checking every value. The one place where
 * configuration messages are worded: each names the key path (and the {@code LAKESINK_*}
 * variable when one set it), what is wrong and what to write instead. Values of secret keys are
 * never repeated.
 */
final class ConfigValidator {
  /** Keys whose values are never shown; {@code kafka.properties.*} are all treated as secret. */
  private static final Set<String> SECRETS = Set.of(
      "storage.connection_string", "storage.client_secret", "schema_registry.password",
      "schema_registry.trust_store_password", "catalog.client_secret");
  // catalogs.<name>.client_secret and catalogs.<name>.token are secret too: see secret().
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  /** Keys of an Iceberg REST catalog that the catalog: block (unity or none) does not take. */
  private static final Set<String> ICEBERG_ONLY = Set.of("uri", "warehouse", "namespace", "token", "oauth2_server_uri", "scope");
  private static final String MODES = words(DeliveryMode.values());
  private static final String FORMATS = words(SourceFormat.values());
  private static final String DELETION_VECTORS = words(MergeSettings.DeletionVectors.values());
  /** Kafka's own rule for group.instance.id (the same as for topic names). */
  private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._-]{1,249}");
  private static final Set<String> AZURE_ONLY = Set.of(
      "container", "connection_string", "account", "tenant_id", "client_id", "client_secret", "endpoint",
      "authority_host", "allow_insecure_http");

  private final Map<String, String> origins;
  private final Supplier<String> hostName;

  /**
   * @param origins key path → the environment variable that set it
   * @param hostName what {@code kafka.instance_id: auto} becomes; null when unknown
   */
  ConfigValidator(Map<String, String> origins, Supplier<String> hostName) {
    this.origins = origins;
    this.hostName = hostName;
  }

  WorkerConfig validate(ConfigFile f) {
    List<TopicPattern> patterns = new ArrayList<>();
    List<Subscription> subscriptions = subscriptions(f.subscriptions(), patterns);
    SchemaRegistrySettings registry = registry(f.schemaRegistry());
    for (int i = 0; i < f.subscriptions().size(); i++) {
      if ("avro".equals(f.subscriptions().get(i).format()) && registry == null) {
        throw Errors.missing("schema_registry.url", "subscriptions[" + i + "] reads Avro, which needs the schema registry's URL");
      }
    }
    DeliverySection delivery = f.delivery() == null ? new DeliverySection(null, null, null, null, null, null) : f.delivery();
    WorkerConfig.CatalogSettings catalog = catalog(f.catalog()).withCurrentState(currentStates(f.subscriptions(), f.catalog()));
    Map<String, WorkerConfig.CatalogSettings> named = namedCatalogs(f.catalogs());
    WorkerConfig.StorageSettings storage = storage(f.storage());
    Map<String, String> subscriptionCatalogs = subscriptionCatalogs(f.subscriptions(), f.catalog() != null, named);
    return new WorkerConfig(kafka(f.kafka()), storage, flushPolicy(delivery), subscriptions, registry,
        catalog, status(f.status()), merge(delivery), maxBufferBytes(delivery),
        f.maintenance() == null || f.maintenance().enabled() == null || f.maintenance().enabled(),
        named, subscriptionCatalogs, patterns);
  }

  // ---------------------------------------------------------------- sections

  private WorkerConfig.KafkaSettings kafka(KafkaSection k) {
    if (k == null) {
      throw Errors.missing("kafka", "the Kafka cluster to read from (bootstrap_servers, group_id)");
    }
    String servers = required(k.bootstrapServers(), "kafka.bootstrap_servers", "the Kafka brokers, e.g. broker-1:9092,broker-2:9092");
    String group = k.groupId() == null ? "lakesink" : nonBlank(k.groupId(), "kafka.group_id", "name the consumer group, e.g. lakesink");
    Map<String, String> properties = k.properties() == null ? Map.of() : new LinkedHashMap<>(k.properties());
    properties.forEach((name, value) -> {
      if (value == null) {
        throw invalid("kafka.properties." + name, "has no value", "give it one, or remove it");
      }
    });
    String instanceId = null;
    if (k.instanceId() != null) {
      if (properties.containsKey("group.instance.id")) {
        throw invalid("kafka.instance_id", "is set and so is kafka.properties.group.instance.id", "keep one of the two");
      }
      instanceId = k.instanceId().trim();
      if (instanceId.equals("auto")) {
        instanceId = hostName.get();
        if (instanceId == null) {
          throw invalid("kafka.instance_id", "is 'auto' but this host's name cannot be determined",
              "set a distinct id for each replica, e.g. lakesink-1");
        }
      }
      if (!INSTANCE_ID.matcher(instanceId).matches()) {
        throw invalid("kafka.instance_id", "is '" + instanceId + "'" + (k.instanceId().trim().equals("auto") ? " (the host name)" : ""),
            "use up to 249 letters, digits, '.', '_' and '-', distinct for each replica (or auto for the host name)");
      }
    }
    return new WorkerConfig.KafkaSettings(servers, group, properties, instanceId);
  }

  private WorkerConfig.StorageSettings storage(StorageSection s) {
    if (s == null) {
      throw Errors.missing("storage", "where tables are written (type: local with path, or type: azure)");
    }
    String type = s.type() == null ? "local" : s.type();
    String prefix = s.prefix() == null ? "lakesink" : s.prefix();
    if (!prefix.matches("[A-Za-z0-9_./-]*") || prefix.startsWith("/") || prefix.contains("..")) {
      throw invalid("storage.prefix", "is '" + prefix + "'", "use a relative path of letters, digits, '_', '-', '.' and '/'");
    }
    Map<String, String> all = storageKeys(s);
    switch (type) {
      case "local" -> {
        for (String key : all.keySet()) {
          if (AZURE_ONLY.contains(key)) {
            throw invalid("storage." + key, "only applies to storage type azure", "remove it, or set storage.type: azure");
          }
        }
        String path = required(s.path(), "storage.path", "the directory tables are written under, e.g. ./data");
        return new WorkerConfig.StorageSettings(type, path, prefix, all);
      }
      case "azure" -> {
        if (s.path() != null) {
          throw invalid("storage.path", "only applies to storage type local", "remove it; name the container with storage.container");
        }
        // The storage-azure module checks the azure keys' values (and names them in its errors).
        return new WorkerConfig.StorageSettings(type, null, prefix, all);
      }
      default -> throw invalid("storage.type", "is '" + type + "'", "use local or azure");
    }
  }

  private static Map<String, String> storageKeys(StorageSection s) {
    Map<String, String> m = new LinkedHashMap<>();
    put(m, "type", s.type());
    put(m, "path", s.path());
    put(m, "prefix", s.prefix());
    put(m, "container", s.container());
    put(m, "connection_string", s.connectionString());
    put(m, "account", s.account());
    put(m, "tenant_id", s.tenantId());
    put(m, "client_id", s.clientId());
    put(m, "client_secret", s.clientSecret());
    put(m, "endpoint", s.endpoint());
    put(m, "authority_host", s.authorityHost());
    put(m, "allow_insecure_http", s.allowInsecureHttp());
    return m;
  }

  private FlushPolicy flushPolicy(DeliverySection d) {
    FlushPolicy def = FlushPolicy.DEFAULT;
    Duration interval = d.flushInterval() == null ? def.interval() : duration(d.flushInterval(), "delivery.flush_interval");
    long rows = d.flushRows() == null ? def.rows() : count(d.flushRows(), "delivery.flush_rows");
    long bytes = d.flushBytes() == null ? def.bytes() : size(d.flushBytes(), SizeUnit.B, "delivery.flush_bytes");
    return new FlushPolicy(interval, rows, bytes);
  }

  /** What all buffers of the worker may hold on the heap; a quarter of the heap by default. */
  private long maxBufferBytes(DeliverySection d) {
    return d.maxBufferBytes() == null
        ? KafkaWorker.defaultBufferBudget()
        : size(d.maxBufferBytes(), SizeUnit.B, "delivery.max_buffer_bytes");
  }

  /** {@code LAKESINK_DELIVERY_MERGE_SCAN_LIMIT_MB}, the file, {@code DELTA_MERGE_SCAN_LIMIT_MB}, 512. */
  private MergeSettings merge(DeliverySection d) {
    MergeSettings.DeletionVectors vectors = word(MergeSettings.DeletionVectors.class, d.mergeDeletionVectors(),
        MergeSettings.DeletionVectors.NEW_TABLES, "delivery.merge_deletion_vectors", DELETION_VECTORS);
    return mergeScanLimit(d).withDeletionVectors(vectors);
  }

  private MergeSettings mergeScanLimit(DeliverySection d) {
    if (d.mergeScanLimitMb() == null) {
      return MergeSettings.DEFAULT;
    }
    String key = "delivery.merge_scan_limit_mb";
    long bytes = size(d.mergeScanLimitMb(), SizeUnit.MB, key);
    if (bytes % (1L << 20) != 0) {
      throw invalid(key, "is '" + d.mergeScanLimitMb() + "', not a whole number of MiB", "write e.g. 512 (MiB), 512MB or 2GB");
    }
    return MergeSettings.DEFAULT.withScanLimitMb(bytes >> 20);
  }

  private SchemaRegistrySettings registry(RegistrySection r) {
    if (r == null) {
      return null;
    }
    return new SchemaRegistrySettings(
        required(r.url(), "schema_registry.url", "the registry's URL, e.g. http://registry:8081"),
        r.username(), r.password(), r.trustStore(), r.trustStorePassword(),
        Boolean.TRUE.equals(r.allowInsecureHttp()),
        r.timeout() == null ? null : duration(r.timeout(), "schema_registry.timeout"));
  }

  private WorkerConfig.CatalogSettings catalog(CatalogSection c) {
    if (c == null) {
      return WorkerConfig.CatalogSettings.NONE;
    }
    Map<String, String> all = new LinkedHashMap<>();
    put(all, "type", c.type());
    put(all, "workspace_url", c.workspaceUrl());
    put(all, "client_id", c.clientId());
    put(all, "client_secret", c.clientSecret());
    put(all, "catalog", c.catalog());
    put(all, "schema", c.schema());
    put(all, "allow_unauthenticated_local_server", c.allowUnauthenticatedLocalServer());
    put(all, "warehouse_id", c.warehouseId());
    put(all, "current_state", c.currentState());
    put(all, "uri", c.uri());
    put(all, "warehouse", c.warehouse());
    put(all, "namespace", c.namespace());
    put(all, "token", c.token());
    put(all, "oauth2_server_uri", c.oauth2ServerUri());
    put(all, "scope", c.scope());
    String type = c.type() == null ? "none" : c.type();
    all.keySet().stream().filter(ICEBERG_ONLY::contains).findFirst().ifPresent(k -> {
      throw invalid("catalog." + k, "only applies to catalogs of type iceberg_rest (under catalogs:)",
          "remove it, or configure the Iceberg REST catalog under catalogs: <name>: {type: iceberg_rest, ...}");
    });
    return switch (type) {
      case "none" -> {
        // A kept table needs no catalog: current_state: table is the one key a catalog-less worker takes.
        boolean keptTables = "table".equals(all.get("current_state"));
        all.keySet().stream().filter(k -> !k.equals("type") && !(keptTables && k.equals("current_state"))).findFirst()
            .ifPresent(k -> {
              throw invalid("catalog." + k, "only applies to catalog type unity", "remove it, or set catalog.type: unity");
            });
        yield keptTables ? new WorkerConfig.CatalogSettings("none", Map.of("current_state", "table"), List.of())
            : WorkerConfig.CatalogSettings.NONE;
      }
      // The catalog-unity module checks the values (and names the keys in its errors).
      case "unity" -> new WorkerConfig.CatalogSettings(
          type, all, List.of(c.catalog() == null ? "" : c.catalog(), c.schema() == null ? "" : c.schema()));
      default -> throw invalid("catalog.type", "is '" + type + "'", "use none or unity");
    };
  }

  /**
   * {@code catalogs: {name: {type: unity, …}}}: catalogs besides the {@code catalog:} block, which
   * is the one named {@code default}. Each holds the keys of {@code catalog:}; the catalog module
   * checks their values when the catalog is created.
   */
  private Map<String, WorkerConfig.CatalogSettings> namedCatalogs(Map<String, CatalogSection> sections) {
    Map<String, WorkerConfig.CatalogSettings> named = new LinkedHashMap<>();
    if (sections == null) {
      return named;
    }
    for (Map.Entry<String, CatalogSection> e : sections.entrySet()) {
      String name = e.getKey();
      String at = "catalogs." + name;
      if (WorkerConfig.DEFAULT_CATALOG.equals(name)) {
        throw invalid(at, "uses the name of the catalog: block", "configure the default catalog under catalog:, or pick another name");
      }
      if (!NAME.matcher(name).matches()) {
        throw invalid(at, "is not a catalog name", "use letters, digits, _ and - (it is the first part of handoff --to)");
      }
      CatalogSection c = e.getValue();
      String type = c == null || c.type() == null ? null : c.type();
      if (type == null) {
        throw Errors.missing(at + ".type", "unity or iceberg_rest");
      }
      if (type.equals(IcebergRestCatalog.TYPE)) {
        named.put(name, icebergRest(name, c));
        continue;
      }
      if (!type.equals("unity")) {
        throw invalid(at + ".type", "is '" + type + "'", "use unity or iceberg_rest (a named catalog registers tables; for none,"
            + " leave it out)");
      }
      named.put(name, catalog(c));
    }
    return named;
  }

  /**
   * {@code catalogs: {name: {type: iceberg_rest, uri, namespace, ...}}}: an Iceberg REST catalog.
   * Unity's keys are refused; the iceberg module checks the values (and names the keys).
   */
  private WorkerConfig.CatalogSettings icebergRest(String name, CatalogSection c) {
    String at = "catalogs." + name;
    Map<String, String> all = new LinkedHashMap<>();
    put(all, "type", c.type());
    put(all, "uri", c.uri());
    put(all, "warehouse", c.warehouse());
    put(all, "namespace", c.namespace());
    put(all, "client_id", c.clientId());
    put(all, "client_secret", c.clientSecret());
    put(all, "oauth2_server_uri", c.oauth2ServerUri());
    put(all, "scope", c.scope());
    put(all, "token", c.token());
    Map<String, Object> unityOnly = new LinkedHashMap<>();
    unityOnly.put("workspace_url", c.workspaceUrl());
    unityOnly.put("catalog", c.catalog());
    unityOnly.put("schema", c.schema());
    unityOnly.put("allow_unauthenticated_local_server", c.allowUnauthenticatedLocalServer());
    unityOnly.put("warehouse_id", c.warehouseId());
    unityOnly.put("current_state", c.currentState());
    unityOnly.entrySet().stream().filter(e -> e.getValue() != null).findFirst().ifPresent(e -> {
      throw invalid(at + "." + e.getKey(), "only applies to catalogs of type unity",
          "remove it (an Iceberg REST catalog takes uri, warehouse, namespace, client_id, client_secret, oauth2_server_uri,"
              + " scope or token)");
    });
    IcebergRestSettings.fromConfig(name, all); // checks the values now, naming the keys, rather than at first use
    return new WorkerConfig.CatalogSettings(IcebergRestCatalog.TYPE, all, List.of());
  }

  /** Each subscription's {@code catalog:}, which must name a configured catalog that registers tables. */
  private Map<String, String> subscriptionCatalogs(
      List<SubscriptionSection> list, boolean hasDefault, Map<String, WorkerConfig.CatalogSettings> named) {
    Map<String, String> catalogs = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String name = list.get(i).catalog();
      if (name == null) {
        continue;
      }
      boolean known = named.containsKey(name) || (hasDefault && WorkerConfig.DEFAULT_CATALOG.equals(name));
      if (!known) {
        List<String> names = new ArrayList<>(named.keySet());
        if (hasDefault) {
          names.add(0, WorkerConfig.DEFAULT_CATALOG);
        }
        throw invalid("subscriptions[" + i + "].catalog", "is '" + name + "', which is not configured",
            "name one of " + names + " (default is the catalog: block)");
      }
      catalogs.put(io.lakesink.config.TableNames.sanitize(list.get(i).table()), name);
    }
    return catalogs;
  }

  private WorkerConfig.StatusSettings status(StatusSection s) {
    WorkerConfig.StatusSettings d = WorkerConfig.StatusSettings.DEFAULT;
    if (s == null) {
      return d;
    }
    int port = d.port();
    if (s.port() != null) {
      if (s.port() < 0 || s.port() > 65535) {
        throw invalid("status.port", "is " + s.port(), "use a port number (0 picks a free one)");
      }
      port = s.port();
    }
    String host = s.host() == null ? d.host() : nonBlank(s.host(), "status.host",
        "write the address to listen on, e.g. 127.0.0.1 (or 0.0.0.0 for every interface)");
    return new WorkerConfig.StatusSettings(s.enabled() == null || s.enabled(), host, port);
  }

  // ---------------------------------------------------------------- subscriptions

  /** The entries that name their topic; those with a {@code topic_pattern} go to {@code patterns}. */
  private List<Subscription> subscriptions(List<SubscriptionSection> list, List<TopicPattern> patterns) {
    if (list == null || list.isEmpty()) {
      throw Errors.missing("subscriptions", "a list of {topic, table} entries, one per source table");
    }
    List<Subscription> subs = new ArrayList<>();
    Map<String, String> topics = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String at = "subscriptions[" + i + "]";
      SubscriptionSection s = list.get(i);
      if (s == null) {
        throw invalid(at, "is empty", "write each subscription as {topic: …, table: …}");
      }
      if (s.topicPattern() != null) {
        patterns.add(pattern(s, at));
        continue;
      }
      String topic = required(s.topic(), at + ".topic",
          "the Kafka topic with the source table's change events (or topic_pattern: a regex for many topics)");
      NonTableTopic.byName(topic).ifPresent(kind -> {
        throw Errors.nonTableTopic(at + ".topic", topic, kind, "by its name");
      });
      String table = required(s.table(), at + ".table", "the target table name");
      String previous = topics.put(topic, at);
      if (previous != null) {
        throw invalid(at + ".topic", "repeats topic " + topic + " of " + previous, "each topic feeds one subscription");
      }
      subs.add(settings(s, at, topic, table));
    }
    refuseTableCollisions(subs);
    return subs;
  }

  /** An entry's mode, format, key and columns, for one topic (or a pattern's template). */
  private Subscription settings(SubscriptionSection s, String at, String topic, String table) {
    DeliveryMode mode = word(DeliveryMode.class, s.mode(), DeliveryMode.CHANGELOG, at + ".mode", MODES);
    SourceFormat format = word(SourceFormat.class, s.format(), SourceFormat.AUTO, at + ".format", FORMATS);
    List<String> key = s.primaryKey() == null ? List.of() : s.primaryKey();
    for (int k = 0; k < key.size(); k++) {
      if (key.get(k) == null || key.get(k).isBlank()) {
        throw invalid(at + ".primary_key[" + k + "]", "is empty", "name a column of the table");
      }
    }
    boolean meta = s.includeMetadataColumns() == null || s.includeMetadataColumns();
    List<ColumnRule> columns = columns(s.columns(), at, topic);
    List<String> flagged = columns.stream().filter(ColumnRule::primaryKey).map(ColumnRule::name).toList();
    if (!key.isEmpty() && !flagged.isEmpty() && !key.equals(flagged)) {
      throw invalid(at + ".primary_key", "is " + key + " but the column mapping flags " + flagged, "declare the key in one place");
    }
    return new Subscription(topic, table, mode, key, format, meta, columns);
  }

  /**
   * A {@code topic_pattern} entry. Its {@code table}, when given, is a name template: without
   * {@code ${table}} or {@code ${topic}} every matching topic would write one table. Which
   * catalog and current-state options a table gets is keyed by its name, which a pattern's
   * tables only get while running: those two keys are refused here rather than ignored.
   */
  private TopicPattern pattern(SubscriptionSection s, String at) {
    String key = at + ".topic_pattern";
    if (s.topic() != null) {
      throw invalid(at + ".topic", "is set and so is " + key, "keep topic for one topic, or topic_pattern for every topic"
          + " its regex matches");
    }
    String regex = nonBlank(s.topicPattern(), key, "write a regex the whole topic name must match, e.g. 'dbserver1\\.inventory\\..*'");
    Pattern compiled;
    try {
      compiled = Pattern.compile(regex);
    } catch (java.util.regex.PatternSyntaxException e) {
      throw invalid(key, "is '" + regex + "', not a regular expression (" + e.getDescription() + " near index "
          + e.getIndex() + ")", "write a Java regex, e.g. 'dbserver1\\.inventory\\..*' (a dot is written \\.)");
    }
    String table = s.table() == null ? TopicPattern.TABLE : nonBlank(s.table(), at + ".table",
        "leave table out (the topic's last segment names each table) or write a template with ${table} or ${topic}");
    if (!table.contains(TopicPattern.TABLE) && !table.contains(TopicPattern.TOPIC)) {
      throw invalid(at + ".table", "is '" + table + "' for a topic_pattern, which would write every matching topic into one"
          + " table", "leave table out (each topic's last segment names its table) or make it a template with ${table} (that"
          + " segment) or ${topic} (the whole topic name), e.g. inventory_${table}");
    }
    if (s.currentState() != null || s.catalog() != null) {
      throw invalid(at + (s.catalog() != null ? ".catalog" : ".current_state"), "is set on a topic_pattern entry, which does"
          + " not take it yet", "remove it, or give the topics that need it entries of their own with topic: (a topic named"
          + " by an entry is not matched by any pattern)");
    }
    return new TopicPattern(at, compiled, settings(s, at, regex, table));
  }

  /**
   * Each subscription's {@code current_state:} section. {@code schema} and {@code refresh_lag}
   * only mean something where lakesink builds (or prints) a Unity Catalog object, and {@code
   * refresh_lag} only for a materialized view: set anywhere else they are refused, never ignored.
   */
  private Map<String, CurrentStateOptions> currentStates(List<SubscriptionSection> list, CatalogSection catalog) {
    Map<String, CurrentStateOptions> options = new HashMap<>();
    boolean unity = catalog != null && "unity".equals(catalog.type());
    boolean materialized = catalog != null && "materialized_view".equals(catalog.currentState());
    for (int i = 0; i < list.size(); i++) {
      CurrentStateSection c = list.get(i).currentState();
      if (c == null) {
        continue;
      }
      String at = "subscriptions[" + i + "].current_state";
      String schema = null;
      if (c.schema() != null) {
        schema = nonBlank(c.schema(), at + ".schema", "name an existing schema of the catalog, or leave schema out");
        if (!unity) {
          throw invalid(at + ".schema", "only applies with catalog.type: unity", "remove it, or register the tables in Unity Catalog");
        }
        if (schema.chars().anyMatch(ch -> ch == '.' || ch == '/' || ch == '`' || Character.isWhitespace(ch))) {
          throw invalid(at + ".schema", "is '" + schema + "'", "name a schema of the catalog: no periods, slashes, backquotes or spaces");
        }
      }
      CurrentStateKind object = null;
      if (c.object() != null) {
        object = CurrentStateKind.ofWord(c.object());
        if (object == null) {
          throw invalid(at + ".object", "is '" + c.object() + "'", "use view, materialized_view or table");
        }
        if (object == CurrentStateKind.MATERIALIZED_VIEW && !unity) {
          throw invalid(at + ".object", "is materialized_view, which only Databricks builds",
              "use table (a Delta table lakesink keeps, no warehouse needed) or view, or register the tables in Unity Catalog");
        }
      }
      Duration lag = CurrentStateOptions.DEFAULT_REFRESH_LAG;
      if (c.refreshLag() != null) {
        if (object != null ? object != CurrentStateKind.MATERIALIZED_VIEW : !materialized) {
          throw invalid(at + ".refresh_lag", "only applies to materialized views",
              "remove it, or set catalog.current_state: materialized_view");
        }
        lag = duration(c.refreshLag(), at + ".refresh_lag");
        if (!RefreshSchedule.representable(lag)) {
          throw invalid(at + ".refresh_lag", "is '" + c.refreshLag() + "', which no Databricks refresh schedule keeps",
              "use whole minutes under an hour (1m to 59m) or whole hours (1h, 2h, …)");
        }
      }
      options.put(TableNames.sanitize(list.get(i).table()), new CurrentStateOptions(c.build() == null || c.build(), schema, lag, object,
          Boolean.TRUE.equals(c.history())));
    }
    return options;
  }

  private List<ColumnRule> columns(List<ColumnSection> list, String subscription, String topic) {
    List<ColumnRule> rules = new ArrayList<>();
    if (list == null) {
      return rules;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String here = subscription + ".columns[" + i + "]";
      ColumnSection c = list.get(i);
      if (c == null) {
        throw invalid(here, "is empty", "write {source: column} at least");
      }
      String source = required(c.source(), here + ".source", "the source column's name");
      String name = c.name() == null ? source : nonBlank(c.name(), here + ".name", "name the target column, or leave name out");
      ColumnType cast = null;
      if (c.cast() != null) {
        cast = ColumnRule.castWord(c.cast()).orElseThrow(() -> invalid(here + ".cast",
            "is '" + c.cast() + "' for column " + source + " of subscription " + subscription + " (topic " + topic + ")",
            "use one of " + String.join(", ", ColumnRule.CAST_WORDS)));
      }
      if (!names.add(name)) {
        throw invalid(here + ".name", "repeats column " + name, "give each mapped column its own name");
      }
      rules.add(new ColumnRule(source, name, cast, c.primaryKey() != null && c.primaryKey()));
    }
    return rules;
  }

  /**
   * Every subscription owns two Delta tables whatever its mode — {@code <table>} and {@code
   * <table>_APPEND} — because a delivery reads offsets from the other mode's table so that
   * switching modes continues where the other stopped; the changelog's view also takes the name
   * {@code <table>}. Two subscriptions must not share any of these names. Names are compared
   * ignoring case, as catalogs (and some file systems) do.
   */
  private void refuseTableCollisions(List<Subscription> subs) {
    Map<String, Integer> owner = new HashMap<>();
    for (int i = 0; i < subs.size(); i++) {
      Subscription s = subs.get(i);
      for (String name : ownedNames(s)) {
        Integer j = owner.putIfAbsent(name.toLowerCase(Locale.ROOT), i);
        if (j != null && j != i) {
          Subscription other = subs.get(j);
          throw invalid("subscriptions[" + i + "].table",
              "is '" + s.table() + "' (" + word(s.mode()) + ": writes " + describe(s) + "), which collides on " + name
                  + " with subscriptions[" + j + "] (table '" + other.table() + "', " + word(other.mode()) + ": writes "
                  + describe(other) + ")",
              "give each subscription its own table; a changelog subscription of table x also takes the names x and x_APPEND");
        }
      }
    }
  }

  private static List<String> ownedNames(Subscription s) {
    String name = TableNames.sanitize(s.table());
    return List.of(name, TableNames.changelog(name));
  }

  private static String describe(Subscription s) {
    String name = TableNames.sanitize(s.table());
    return s.mode() == DeliveryMode.CHANGELOG
        ? "table " + TableNames.changelog(name) + " and view " + name
        : "table " + name + ", reading offsets from " + TableNames.changelog(name);
  }

  // ---------------------------------------------------------------- values

  private <E extends Enum<E>> E word(Class<E> type, String value, E fallback, String key, String allowed) {
    if (value == null) {
      return fallback;
    }
    for (E e : type.getEnumConstants()) {
      if (word(e).equals(value)) {
        return e;
      }
    }
    // Strict on purpose: only the documented lowercase words, so that no spelling is guessed.
    throw invalid(key, "is '" + value + "'", "use " + allowed);
  }

  private static String word(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  private static String words(Enum<?>[] values) {
    List<String> w = new ArrayList<>();
    for (Enum<?> e : values) w.add(word(e));
    return w.size() == 2 ? w.get(0) + " or " + w.get(1)
        : String.join(", ", w.subList(0, w.size() - 1)) + " or " + w.get(w.size() - 1);
  }

  private Duration duration(String text, String key) {
    return ConfigValues.duration(text).orElseThrow(() -> invalid(key, "is '" + text + "'",
        "write a positive whole number with a unit (" + ConfigValues.DURATION_UNITS + "), such as 500ms, 10s, 5m or 1h"));
  }

  private long size(String text, SizeUnit bare, String key) {
    return ConfigValues.bytes(text, bare).orElseThrow(() -> invalid(key, "is '" + text + "'",
        "write a positive whole number" + (bare == SizeUnit.B ? " of bytes" : " of MiB")
            + ", or one with a unit: " + ConfigValues.SIZE_UNITS + ", such as 64MB"));
  }

  private long count(String text, String key) {
    return ConfigValues.count(text).orElseThrow(() -> invalid(key, "is '" + text + "'", "write a positive whole number, such as 10000"));
  }

  private String required(String value, String key, String what) {
    if (value == null || value.isBlank()) {
      if (origins.containsKey(key)) {
        throw invalid(key, "is empty", "set " + origins.get(key) + " to " + what + ", or unset it");
      }
      throw Errors.missing(key, what);
    }
    return value;
  }

  private String nonBlank(String value, String key, String fix) {
    if (value.isBlank()) {
      throw invalid(key, "is empty", fix);
    }
    return value;
  }

  private ConfigurationException invalid(String key, String problem, String fix) {
    return invalid(key, problem, fix, origins);
  }

  private static ConfigurationException invalid(String key, String problem, String fix, Map<String, String> origins) {
    String origin = origins.get(key);
    return Errors.invalid(key, origin == null ? problem : problem + " (set by environment variable " + origin + ")", fix);
  }

  private static void put(Map<String, String> m, String key, Object value) {
    if (value != null) {
      m.put(key, String.valueOf(value));
    }
  }

  private static boolean secret(String key) {
    return SECRETS.contains(key) || key.startsWith("kafka.properties.")
        || (key.startsWith("catalogs.") && (key.endsWith(".client_secret") || key.endsWith(".token")));
  }

  // ---------------------------------------------------------------- messages for the loader

  static ConfigurationException unreadable(java.nio.file.Path file, java.io.IOException e) {
    return new ConfigurationException("Cannot read the configuration file " + file + ": " + e.getMessage(), e);
  }

  static ConfigurationException notAMapping(String source) {
    return new ConfigurationException("The configuration " + source + " must be a YAML mapping with kafka, storage and subscriptions.");
  }

  static ConfigurationException notYaml(String source, Exception e) {
    // Only the first line: the parser's later lines quote the file, which may hold a secret.
    String first = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
    return new ConfigurationException("The configuration " + source + " is not valid YAML: " + first, e);
  }

  static ConfigurationException duplicateKey(String source, String key, int line) {
    return new ConfigurationException("The configuration " + source + " writes key '" + key + "' twice in one mapping"
        + (line > 0 ? " (the second near line " + line + ")" : "") + ": keep one, as the last would silently win.");
  }

  static ConfigurationException unknownOverride(String variable, String section, Collection<String> known) {
    return new ConfigurationException("Environment variable " + variable + " looks like a configuration override but"
        + " names no key of " + section + ": "
        + (known.isEmpty()
            ? section + " cannot be set from the environment; write it in the file (its values may use ${env:NAME})."
            : "unset it, or use one of " + String.join(", ", known) + "."));
  }

  /** What Jackson could not bind, worded like every other message (never with a secret value). */
  static ConfigurationException unbindable(JsonProcessingException e, Map<String, String> origins) {
    String key = e instanceof JsonMappingException d ? path(d.getPath()) : "";
    if (e instanceof UnrecognizedPropertyException u) {
      TreeSet<String> known = new TreeSet<>();
      if (u.getKnownPropertyIds() != null) u.getKnownPropertyIds().forEach(k -> known.add(String.valueOf(k)));
      return Errors.invalid(key, "is not a known key", "known keys here are " + known);
    }
    if (e instanceof MismatchedInputException m) {
      Class<?> target = m.getTargetType();
      String value = m instanceof InvalidFormatException f && !secret(key) ? " '" + f.getValue() + "'" : "";
      if (target == Boolean.class || target == boolean.class) {
        return invalid(key, "is" + (value.isEmpty() ? " not true or false" : value), "use true or false", origins);
      }
      if (target == Integer.class || target == int.class) {
        return invalid(key, "is" + (value.isEmpty() ? " not a whole number" : value), "write a whole number", origins);
      }
      if (target != null && (List.class.isAssignableFrom(target))) {
        return Errors.invalid(key, "is not a list", "write it as [a, b] or as lines starting with '- '");
      }
      if (target == String.class) {
        return Errors.invalid(key, "is not a single value", "write one value (quote it if it contains ':' or '#')");
      }
      return Errors.invalid(key.isEmpty() ? "(top level)" : key, "is not a mapping", "write it as key: value lines");
    }
    return Errors.invalid(key.isEmpty() ? "(top level)" : key, "cannot be read", "check its shape against the configuration reference");
  }

  /** {@code subscriptions[0].columns[2].cast}, as the user would point at it. */
  private static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder s = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        if (s.length() > 0) s.append('.');
        s.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        s.append('[').append(r.getIndex()).append(']');
      }
    }
    return s.toString();
  }
}
