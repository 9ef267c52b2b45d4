package io.lakesink.app.config;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code LAKESINK_<SECTION>_<KEY>} environment variables, which override single keys of the
 * file: {@code LAKESINK_DELIVERY_MERGE_SCAN_LIMIT_MB} sets {@code delivery.merge_scan_limit_mb}.
 * The name is the key path in upper case with {@code .} replaced by {@code _}. Only the single
 * values of the sections (not {@code kafka.properties}, not subscriptions) can be overridden.
 *
 * <p>Precedence: override variable, then the file, then (for the MERGE limit only) the older
 * {@code DELTA_MERGE_SCAN_LIMIT_MB}, then the default. A variable that starts like an override
 * ({@code LAKESINK_KAFKA_…}, {@code LAKESINK_STATUS_…}, …) but names no key is refused: a
 * misspelt override would otherwise be ignored in silence. Other {@code LAKESINK_} variables
 * ({@link #NOT_CONFIG}) belong to the launcher and logging and are left alone.
 */
final class EnvironmentOverrides {
  static final String PREFIX = "LAKESINK_";
  /** Read by bin/lakesink and the logging setup, never by the configuration. */
  static final Set<String> NOT_CONFIG = Set.of("LAKESINK_JAVA_OPTS", "LAKESINK_LOG_FORMAT", "LAKESINK_LOG_LEVEL");
  static final String LEGACY_MERGE_LIMIT = "DELTA_MERGE_SCAN_LIMIT_MB";

  /** Variable name → key path, for every overridable key. */
  private final Map<String, String> keys;

  EnvironmentOverrides(ObjectMapper mapper) {
    this.keys = new TreeMap<>();
    ConfigFile.SECTIONS.forEach((section, type) -> {
      JavaType t = mapper.constructType(type);
      for (BeanPropertyDefinition p : mapper.getDeserializationConfig().introspect(t).findProperties()) {
        Class<?> raw = p.getRawPrimaryType();
        if (raw == String.class || raw == Boolean.class || raw == Integer.class) {
          String path = section + "." + p.getName();
          keys.put(variable(path), path);
        }
      }
    });
  }

  /** The variable that overrides a key path, e.g. {@code LAKESINK_STATUS_PORT}. */
  static String variable(String path) {
    return PREFIX + path.replace('.', '_').toUpperCase(Locale.ROOT);
  }

  /** Every overridable key path, sorted by variable name. */
  List<String> keyPaths() {
    return List.copyOf(keys.values());
  }

  /**
   * Writes the overrides into the parsed file.
   *
   * @param environment every variable, when the caller can list them; unknown look-alikes are
   *     only detected then
   * @return key path → the variable that set it, for messages
   */
  Map<String, String> apply(ObjectNode root, java.util.function.Function<String, String> lookup, Map<String, String> environment) {
    if (environment != null) {
      refuseUnknown(environment.keySet());
    }
    Map<String, String> origins = new TreeMap<>();
    keys.forEach((variable, path) -> {
      String value = lookup.apply(variable);
      if (value != null) {
        set(root, path, value);
        origins.put(path, variable);
      }
    });
    String mergeLimit = "delivery.merge_scan_limit_mb";
    String legacy = lookup.apply(LEGACY_MERGE_LIMIT);
    boolean inFileOrOverride = !root.path("delivery").path("merge_scan_limit_mb").isMissingNode()
        && !root.path("delivery").path("merge_scan_limit_mb").isNull();
    if (legacy != null && !legacy.isBlank() && !inFileOrOverride) {
      set(root, mergeLimit, legacy);
      origins.put(mergeLimit, LEGACY_MERGE_LIMIT);
    }
    return origins;
  }

  private void refuseUnknown(Set<String> names) {
    List<String> sections = new ArrayList<>();
    ConfigFile.SECTIONS.keySet().forEach(s -> sections.add(PREFIX + s.toUpperCase(Locale.ROOT) + "_"));
    sections.add(PREFIX + "SUBSCRIPTIONS");
    for (String name : new java.util.TreeSet<>(names)) {
      if (NOT_CONFIG.contains(name) || keys.containsKey(name)) {
        continue;
      }
      for (String s : sections) {
        if (name.startsWith(s)) {
          String section = s.substring(PREFIX.length()).replaceAll("_$", "");
          List<String> known = keys.keySet().stream().filter(k -> k.startsWith(s)).toList();
          throw ConfigValidator.unknownOverride(name, section.toLowerCase(Locale.ROOT), known);
        }
      }
    }
  }

  private static void set(ObjectNode root, String path, String value) {
    int dot = path.indexOf('.');
    String section = path.substring(0, dot);
    if (root.path(section).isMissingNode() || root.path(section).isNull()) {
      root.putObject(section);
    }
    if (root.get(section) instanceof ObjectNode s) { // anything else is refused when the file is bound
      s.put(path.substring(dot + 1), value);
    }
  }
}
