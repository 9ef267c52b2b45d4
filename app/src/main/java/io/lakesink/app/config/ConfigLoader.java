package io.lakesink.app.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.lakesink.error.Errors;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code lakesink.yaml}: substitutes {@code ${env:NAME}}, applies {@code LAKESINK_*}
 * overrides ({@link EnvironmentOverrides}), binds the result to {@link ConfigFile} (unknown
 * keys refused) and hands it to {@link ConfigValidator}, so that a mistake stops the worker at
 * start with the key named and the fix said.
 */
public final class ConfigLoader {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

  /** How Jackson reports a key written twice in one mapping. */
  private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '([^']*)'");
  private static final ObjectMapper MAPPER = mapper();
  private static final EnvironmentOverrides OVERRIDES = new EnvironmentOverrides(MAPPER);

  private final Function<String, String> environment;
  /** Every variable, when known: needed to refuse a misspelt {@code LAKESINK_*} override. */
  private final Map<String, String> allVariables;

  /** Overrides apply, but a misspelt override variable cannot be noticed without the full list. */
  public ConfigLoader(Function<String, String> environment) {
    this.environment = environment;
    this.allVariables = null;
  }

  /** @param environment every variable of the process's environment */
  public ConfigLoader(Map<String, String> environment) {
    this.environment = environment::get;
    this.allVariables = Map.copyOf(environment);
  }

  public static ConfigLoader fromSystemEnvironment() {
    return new ConfigLoader(System.getenv());
  }

  /** Every key path a {@code LAKESINK_*} variable can override (for documentation and tests). */
  public static java.util.List<String> overridableKeys() {
    return OVERRIDES.keyPaths();
  }

  public WorkerConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw ConfigValidator.unreadable(file, e);
    }
    return parse(text, file.toString());
  }

  public WorkerConfig parse(String yaml, String source) {
    JsonNode root;
    try {
      root = MAPPER.readTree(yaml);
    } catch (IOException e) {
      Matcher duplicate = DUPLICATE.matcher(String.valueOf(e.getMessage()));
      if (duplicate.find()) {
        int line = e instanceof JsonProcessingException j && j.getLocation() != null ? j.getLocation().getLineNr() : -1;
        throw ConfigValidator.duplicateKey(source, duplicate.group(1), line);
      }
      throw ConfigValidator.notYaml(source, e);
    }
    if (root == null || !root.isObject()) {
      throw ConfigValidator.notAMapping(source);
    }
    // Overrides first: a key the environment replaces may refer to a variable that is not set.
    Map<String, String> origins = OVERRIDES.apply((ObjectNode) root, environment, allVariables);
    ObjectNode tree = (ObjectNode) substitute(root, "");
    ConfigFile file;
    try {
      file = MAPPER.treeToValue(tree, ConfigFile.class);
    } catch (JsonProcessingException e) {
      throw ConfigValidator.unbindable(e, origins);
    }
    return new ConfigValidator(origins, this::hostName).validate(file);
  }

  /**
   * The host name {@code kafka.instance_id: auto} stands for: {@code HOSTNAME} (set by shells,
   * Docker and Kubernetes, where it is the pod name), else what the JVM resolves.
   */
  private String hostName() {
    String h = environment.apply("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /**
   * One value with its {@code ${env:NAME}} references replaced as {@link #load} replaces them, for
   * a command that reads single keys of a file that need not be complete ({@code lakesink init}).
   *
   * @param key the value's key path, named when a variable is not set
   */
  public String substitute(String value, String key) {
    return substitute(new TextNode(value), key).textValue();
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
      ArrayNode copy = ((ArrayNode) node).arrayNode();
      for (int i = 0; i < node.size(); i++) {
        copy.add(substitute(node.get(i), key + "[" + i + "]"));
      }
      return copy;
    }
    return node;
  }

  private static String join(String at, String name) {
    return at.isEmpty() ? name : at + "." + name;
  }

  /**
   * Strict binding: unknown keys, a key written twice, a fraction where a whole number belongs
   * and a number where true/false belongs are all refused rather than guessed at.
   */
  private static ObjectMapper mapper() {
    YAMLMapper m = new YAMLMapper(new YAMLFactory());
    m.setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    m.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    m.enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    m.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    m.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
    m.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
    return m;
  }
}
