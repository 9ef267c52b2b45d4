package io.lakesink.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.mapping.ColumnRule;
import io.lakesink.merge.MergeSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code lakesink.yaml}: substitutes {@code ${env:NAME}}, then validates every key, so that
 * a mistake stops the worker at start with the key named and the fix said.
 */
public final class ConfigLoader {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");
  private static final Set<String> TOP = Set.of("kafka", "storage", "delivery", "subscriptions", "schema_registry", "catalog", "status");
  private static final Set<String> STATUS = Set.of("enabled", "host", "port");
  private static final Set<String> REGISTRY = Set.of("url", "username", "password", "trust_store", "trust_store_password");
  private static final Set<String> LOCAL_STORAGE = Set.of("type", "path", "prefix");
  private static final Set<String> KAFKA = Set.of("bootstrap_servers", "group_id", "properties");
  private static final Set<String> DELIVERY = Set.of("flush_interval", "flush_rows", "flush_bytes", "merge_scan_limit_mb");
  private static final Set<String> SUBSCRIPTION =
      Set.of("topic", "table", "mode", "primary_key", "format", "include_metadata_columns", "columns");
  private static final Set<String> COLUMN = Set.of("source", "name", "cast", "primary_key");

  private final Function<String, String> environment;

  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
  }

  public static ConfigLoader fromSystemEnvironment() {
    return new ConfigLoader(System::getenv);
  }

  public WorkerConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigurationException("Cannot read the configuration file " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  public WorkerConfig parse(String yaml, String source) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    } catch (IOException e) {
      throw new ConfigurationException(
          "The configuration " + source + " is not valid YAML: " + e.getMessage().lines().findFirst().orElse(""), e);
    }
    if (root == null || !root.isObject()) {
      throw new ConfigurationException("The configuration " + source + " must be a YAML mapping with kafka, storage and subscriptions.");
    }
    root = substitute(root, "");
    onlyKnown(root, TOP, "");
    List<Subscription> subscriptions = subscriptions(root);
    SchemaRegistrySettings registry = registry(root);
    for (int i = 0; i < subscriptions.size(); i++) {
      if (subscriptions.get(i).format() == SourceFormat.AVRO && registry == null) {
        throw Errors.missing("schema_registry.url", "subscriptions[" + i + "] reads Avro, which needs the schema registry's URL");
      }
    }
    return new WorkerConfig(kafka(root), storage(root), delivery(root), subscriptions, registry, catalog(root), status(root), merge(root));
  }

  private JsonNode substitute(JsonNode node, String key) {
    if (node.isTextual()) {
      Matcher m = ENV.matcher(node.textValue());
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String value = environment.apply(m.group(1));
        if (value == null) {
          throw Errors.missingEnvironment(key, m.group(1));
        }
        m.appendReplacement(out, Matcher.quoteReplacement(value));
      }
      m.appendTail(out);
      return new TextNode(out.toString());
    }
    if (node.isObject()) {
      ObjectNode copy = ((ObjectNode) node).objectNode();
      node.fields().forEachRemaining(e -> copy.set(e.getKey(), substitute(e.getValue(), join(key, e.getKey()))));
      return copy;
    }
    if (node.isArray()) {
      var copy = ((com.fasterxml.jackson.databind.node.ArrayNode) node).arrayNode();
      for (int i = 0; i < node.size(); i++) {
        copy.add(substitute(node.get(i), key + "[" + i + "]"));
      }
      return copy;
    }
    return node;
  }

  private WorkerConfig.KafkaSettings kafka(JsonNode root) {
    JsonNode k = section(root, "kafka", "the Kafka cluster to read from (bootstrap_servers, group_id)");
    onlyKnown(k, KAFKA, "kafka");
    return new WorkerConfig.KafkaSettings(
        requiredText(k, "kafka.bootstrap_servers", "the Kafka brokers, e.g. broker-1:9092,broker-2:9092"),
        optionalText(k, "group_id", "lakesink"),
        stringMap(k.get("properties"), "kafka.properties"));
  }

  private WorkerConfig.StorageSettings storage(JsonNode root) {
    JsonNode s = section(root, "storage", "where tables are written (type: local with path, or type: azure)");
    Map<String, String> all = stringMap(s, "storage");
    String type = optionalText(s, "type", "local");
    String prefix = optionalText(s, "prefix", "lakesink");
    if (!prefix.matches("[A-Za-z0-9_./-]*") || prefix.startsWith("/") || prefix.contains("..")) {
      throw Errors.invalid("storage.prefix", "is '" + prefix + "'", "use a relative path of letters, digits, '_', '-', '.' and '/'");
    }
    switch (type) {
      case "local" -> {
        onlyKnown(s, LOCAL_STORAGE, "storage");
        String path = requiredText(s, "storage.path", "the directory tables are written under, e.g. ./data");
        return new WorkerConfig.StorageSettings(type, path, prefix, all);
      }
      case "azure" -> {
        // The storage-azure module validates its own keys (and names them in its errors).
        return new WorkerConfig.StorageSettings(type, null, prefix, all);
      }
      default -> throw Errors.invalid("storage.type", "is '" + type + "'", "use local or azure");
    }
  }

  /** {@code delivery.merge_scan_limit_mb}, else {@code DELTA_MERGE_SCAN_LIMIT_MB}, else 512. */
  private MergeSettings merge(JsonNode root) {
    JsonNode d = root.path("delivery").get("merge_scan_limit_mb");
    if (d != null && !d.isNull()) {
      return MergeSettings.DEFAULT.withScanLimitMb(positive(size(d, "delivery.merge_scan_limit_mb"), "delivery.merge_scan_limit_mb"));
    }
    String env = environment.apply("DELTA_MERGE_SCAN_LIMIT_MB");
    if (env != null && !env.isBlank()) {
      try {
        return MergeSettings.DEFAULT.withScanLimitMb(positive(Long.parseLong(env.trim()), "DELTA_MERGE_SCAN_LIMIT_MB"));
      } catch (NumberFormatException e) {
        throw Errors.invalid("DELTA_MERGE_SCAN_LIMIT_MB", "is '" + env + "'", "set it to a number of MiB, e.g. 512");
      }
    }
    return MergeSettings.DEFAULT;
  }

  private WorkerConfig.StatusSettings status(JsonNode root) {
    JsonNode s = root.get("status");
    if (s == null || s.isNull()) {
      return WorkerConfig.StatusSettings.DEFAULT;
    }
    if (!s.isObject()) {
      throw Errors.invalid("status", "is not a mapping", "write enabled, host and port under it");
    }
    onlyKnown(s, STATUS, "status");
    WorkerConfig.StatusSettings d = WorkerConfig.StatusSettings.DEFAULT;
    boolean enabled = !s.has("enabled") || bool(s.get("enabled"), "status.enabled");
    int port = d.port();
    if (s.has("port")) {
      JsonNode p = s.get("port");
      if (!p.canConvertToInt() || p.asInt(-1) < 0 || p.asInt() > 65535) {
        throw Errors.invalid("status.port", "is '" + p.asText() + "'", "use a port number (0 picks a free one)");
      }
      port = p.asInt();
    }
    return new WorkerConfig.StatusSettings(enabled, optionalText(s, "host", d.host()), port);
  }

  private WorkerConfig.CatalogSettings catalog(JsonNode root) {
    JsonNode c = root.get("catalog");
    if (c == null || c.isNull()) {
      return WorkerConfig.CatalogSettings.NONE;
    }
    Map<String, String> all = stringMap(c, "catalog");
    String type = optionalText(c, "type", "none");
    return switch (type) {
      case "none" -> {
        onlyKnown(c, Set.of("type"), "catalog");
        yield WorkerConfig.CatalogSettings.NONE;
      }
      // The catalog-unity module validates its own keys (and names them in its errors).
      case "unity" -> new WorkerConfig.CatalogSettings(
          type, all, List.of(optionalText(c, "catalog", ""), optionalText(c, "schema", "")));
      default -> throw Errors.invalid("catalog.type", "is '" + type + "'", "use none or unity");
    };
  }

  private SchemaRegistrySettings registry(JsonNode root) {
    JsonNode r = root.get("schema_registry");
    if (r == null || r.isNull()) {
      return null;
    }
    if (!r.isObject()) {
      throw Errors.invalid("schema_registry", "is not a mapping", "write url (and optionally username, password, trust_store)");
    }
    onlyKnown(r, REGISTRY, "schema_registry");
    return new SchemaRegistrySettings(
        optionalText(r, "url", null),
        optionalText(r, "username", null),
        optionalText(r, "password", null),
        optionalText(r, "trust_store", null),
        optionalText(r, "trust_store_password", null));
  }

  private FlushPolicy delivery(JsonNode root) {
    JsonNode d = root.get("delivery");
    if (d == null || d.isNull()) {
      return FlushPolicy.DEFAULT;
    }
    onlyKnown(d, DELIVERY, "delivery");
    Duration interval = d.has("flush_interval") ? duration(d.get("flush_interval"), "delivery.flush_interval") : FlushPolicy.DEFAULT.interval();
    long rows = d.has("flush_rows") ? positive(size(d.get("flush_rows"), "delivery.flush_rows"), "delivery.flush_rows") : FlushPolicy.DEFAULT.rows();
    long bytes = d.has("flush_bytes") ? positive(size(d.get("flush_bytes"), "delivery.flush_bytes"), "delivery.flush_bytes") : FlushPolicy.DEFAULT.bytes();
    return new FlushPolicy(interval, rows, bytes);
  }

  private List<Subscription> subscriptions(JsonNode root) {
    JsonNode list = root.get("subscriptions");
    if (list == null || !list.isArray() || list.isEmpty()) {
      throw Errors.missing("subscriptions", "a list of {topic, table} entries, one per source table");
    }
    List<Subscription> subs = new ArrayList<>();
    Set<String> topics = new HashSet<>();
    Map<String, String> tables = new LinkedHashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String at = "subscriptions[" + i + "]";
      JsonNode s = list.get(i);
      if (!s.isObject()) {
        throw Errors.invalid(at, "is not a mapping", "write each subscription as {topic: …, table: …}");
      }
      onlyKnown(s, SUBSCRIPTION, at);
      String topic = requiredText(s, at + ".topic", "the Kafka topic with the source table's change events");
      String table = requiredText(s, at + ".table", "the target table name");
      DeliveryMode mode = enumValue(DeliveryMode.class, optionalText(s, "mode", "changelog"), at + ".mode", "changelog or merge");
      SourceFormat format = enumValue(SourceFormat.class, optionalText(s, "format", "auto"), at + ".format", "json, avro or auto");
      List<String> key = new ArrayList<>();
      JsonNode pk = s.get("primary_key");
      if (pk != null && !pk.isNull()) {
        if (pk.isTextual()) {
          key.add(pk.textValue());
        } else if (pk.isArray()) {
          pk.forEach(c -> key.add(c.asText()));
        } else {
          throw Errors.invalid(at + ".primary_key", "is not a list", "write the key columns as [col1, col2]");
        }
      }
      boolean meta = !s.has("include_metadata_columns") || bool(s.get("include_metadata_columns"), at + ".include_metadata_columns");
      if (!topics.add(topic)) {
        throw Errors.invalid(at + ".topic", "repeats topic " + topic, "each topic feeds one subscription");
      }
      String previous = tables.put(TableNames.sanitize(table), at);
      if (previous != null) {
        throw Errors.invalid(at + ".table", "names table " + table + " like " + previous, "give each subscription its own table");
      }
      List<ColumnRule> columns = columns(s.get("columns"), at + ".columns");
      List<String> flagged = columns.stream().filter(ColumnRule::primaryKey).map(ColumnRule::name).toList();
      if (!key.isEmpty() && !flagged.isEmpty() && !key.equals(flagged)) {
        throw Errors.invalid(at + ".primary_key", "is " + key + " but the column mapping flags " + flagged,
            "declare the key in one place");
      }
      subs.add(new Subscription(topic, table, mode, key, format, meta, columns));
    }
    return subs;
  }

  private static List<ColumnRule> columns(JsonNode list, String at) {
    List<ColumnRule> rules = new ArrayList<>();
    if (list == null || list.isNull()) {
      return rules;
    }
    if (!list.isArray()) {
      throw Errors.invalid(at, "is not a list", "write one {source, name, cast, primary_key} entry per column");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String here = at + "[" + i + "]";
      JsonNode c = list.get(i);
      if (c.isTextual()) {
        c = new ObjectMapper().createObjectNode().put("source", c.textValue());
      }
      if (!c.isObject()) {
        throw Errors.invalid(here, "is not a mapping", "write {source: column} at least");
      }
      onlyKnown(c, COLUMN, here);
      String source = requiredText(c, here + ".source", "the source column's name");
      String name = optionalText(c, "name", source);
      JsonNode cast = c.get("cast");
      boolean pk = c.has("primary_key") && bool(c.get("primary_key"), here + ".primary_key");
      if (!names.add(name)) {
        throw Errors.invalid(here + ".name", "repeats column " + name, "give each mapped column its own name");
      }
      rules.add(new ColumnRule(source, name, cast == null || cast.isNull() ? null : ColumnRule.castType(cast.asText()), pk));
    }
    return rules;
  }

  private static JsonNode section(JsonNode root, String key, String what) {
    JsonNode n = root.get(key);
    if (n == null || !n.isObject()) {
      throw Errors.missing(key, what);
    }
    return n;
  }

  private static void onlyKnown(JsonNode node, Set<String> known, String at) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!known.contains(name)) {
        throw Errors.invalid(join(at, name), "is not a known key", "known keys here are " + new java.util.TreeSet<>(known));
      }
    }
  }

  private static String requiredText(JsonNode parent, String key, String what) {
    JsonNode n = parent.get(key.substring(key.lastIndexOf('.') + 1));
    if (n == null || n.isNull() || n.asText().isBlank()) {
      throw Errors.missing(key, what);
    }
    if (!n.isValueNode()) {
      throw Errors.invalid(key, "is not a single value", what);
    }
    return n.asText();
  }

  private static String optionalText(JsonNode parent, String name, String fallback) {
    JsonNode n = parent.get(name);
    return n == null || n.isNull() ? fallback : n.asText();
  }

  private static Map<String, String> stringMap(JsonNode n, String key) {
    Map<String, String> m = new LinkedHashMap<>();
    if (n == null || n.isNull()) {
      return m;
    }
    if (!n.isObject()) {
      throw Errors.invalid(key, "is not a mapping", "write it as key: value lines");
    }
    n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
    return m;
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String value, String key, String allowed) {
    try {
      return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw Errors.invalid(key, "is '" + value + "'", "use " + allowed);
    }
  }

  private static boolean bool(JsonNode n, String key) {
    if (n.isBoolean()) return n.booleanValue();
    if (n.isTextual() && (n.textValue().equals("true") || n.textValue().equals("false"))) return Boolean.parseBoolean(n.textValue());
    throw Errors.invalid(key, "is '" + n.asText() + "'", "use true or false");
  }

  static Duration duration(JsonNode n, String key) {
    String s = n.asText().trim().toLowerCase(Locale.ROOT);
    Matcher m = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?").matcher(s);
    if (m.matches()) {
      long v = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "s" : m.group(2);
      Duration d = switch (unit) {
        case "ms" -> Duration.ofMillis(v);
        case "m" -> Duration.ofMinutes(v);
        case "h" -> Duration.ofHours(v);
        default -> Duration.ofSeconds(v);
      };
      if (!d.isZero()) return d;
    }
    throw Errors.invalid(key, "is '" + n.asText() + "'", "write a positive duration such as 500ms, 10s or 5m");
  }

  static long size(JsonNode n, String key) {
    String s = n.asText().trim().toUpperCase(Locale.ROOT);
    Matcher m = Pattern.compile("(\\d+)\\s*(K|M|G|KB|MB|GB|KIB|MIB|GIB)?").matcher(s);
    if (!m.matches()) {
      throw Errors.invalid(key, "is '" + n.asText() + "'", "write a number, optionally with KB, MB or GB");
    }
    long v = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2).substring(0, 1);
    return switch (unit) {
      case "K" -> v << 10;
      case "M" -> v << 20;
      case "G" -> v << 30;
      default -> v;
    };
  }

  private static long positive(long v, String key) {
    if (v <= 0) {
      throw Errors.invalid(key, "is " + v, "use a positive number");
    }
    return v;
  }

  private static String join(String at, String name) {
    return at.isEmpty() ? name : at + "." + name;
  }
}
