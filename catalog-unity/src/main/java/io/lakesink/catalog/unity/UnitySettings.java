package io.lakesink.catalog.unity;

import io.lakesink.view.CurrentStateKind;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code catalog:} section for {@code type: unity}. Everything is validated here, before any
 * network call, and every message names the key to change.
 *
 * @param workspaceUrl workspace root, e.g. {@code https://adb-1234567890123456.7.azuredatabricks.net}
 *     ({@code catalog.workspace_url}); https, or http on this machine only
 * @param clientId the service principal's application id ({@code catalog.client_id})
 * @param clientSecret an OAuth secret of that service principal ({@code catalog.client_secret});
 *     never a personal access token
 * @param catalog existing Unity Catalog catalog ({@code catalog.catalog}); never created
 * @param schema existing schema in that catalog ({@code catalog.schema}); never created
 * @param allowUnauthenticatedLocalServer development only: talk to an open-source Unity Catalog
 *     server on this machine without any credentials ({@code catalog.allow_unauthenticated_local_server})
 * @param warehouseId the SQL warehouse that builds current-state views ({@code
 *     catalog.warehouse_id}); null: the statements are only logged
 * @param currentState what current-state objects are built as ({@code catalog.current_state})
 */
public record UnitySettings(
    String workspaceUrl,
    String clientId,
    String clientSecret,
    String catalog,
    String schema,
    boolean allowUnauthenticatedLocalServer,
    String warehouseId,
    CurrentStateKind currentState) {

  /** The value of {@code catalog.type} this module serves. */
  public static final String TYPE = "unity";

  /** Every key this module reads under {@code catalog:}. */
  public static final Set<String> KEYS =
      Set.of(
          "type", "workspace_url", "client_id", "client_secret", "catalog", "schema",
          "allow_unauthenticated_local_server", "warehouse_id", "current_state");
  /** A warehouse id as Databricks shows it (hex digits); nothing that could change a URL path. */
  private static final java.util.regex.Pattern WAREHOUSE_ID = java.util.regex.Pattern.compile("[A-Za-z0-9]{1,64}");

  private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");
  private static final Set<String> LOCAL_SERVER_HOSTS = Set.of("localhost", "127.0.0.1");

  public UnitySettings {
    workspaceUrl = stripTrailingSlashes(trimToNull(workspaceUrl));
    clientId = trimToNull(clientId);
    clientSecret = trimToNull(clientSecret);
    catalog = trimToNull(catalog);
    schema = trimToNull(schema);
    warehouseId = trimToNull(warehouseId);
    currentState = currentState == null ? CurrentStateKind.VIEW : currentState;
    validate(workspaceUrl, clientId, clientSecret, catalog, schema, allowUnauthenticatedLocalServer);
    if (warehouseId != null && !WAREHOUSE_ID.matcher(warehouseId).matches()) {
      throw UnityErrors.invalidSetting("warehouse_id", "is '" + warehouseId + "'",
          "copy the warehouse's ID from SQL Warehouses → the warehouse → Connection details (letters and digits)");
    }
  }

  public UnitySettings(
      String workspaceUrl, String clientId, String clientSecret, String catalog, String schema,
      boolean allowUnauthenticatedLocalServer) {
    this(workspaceUrl, clientId, clientSecret, catalog, schema, allowUnauthenticatedLocalServer, null, null);
  }

  /** The same settings with a SQL warehouse that builds the current-state objects as {@code kind}. */
  public UnitySettings withWarehouse(String id, CurrentStateKind kind) {
    return new UnitySettings(workspaceUrl, clientId, clientSecret, catalog, schema, allowUnauthenticatedLocalServer, id, kind);
  }

  /** Whether current-state objects are built on a warehouse (else their statements are logged). */
  public boolean hasWarehouse() {
    return warehouseId != null;
  }

  /** A workspace reached as a service principal with an OAuth secret: the normal case. */
  public static UnitySettings servicePrincipal(
      String workspaceUrl, String clientId, String clientSecret, String catalog, String schema) {
    return new UnitySettings(workspaceUrl, clientId, clientSecret, catalog, schema, false);
  }

  /** Development only: an open-source Unity Catalog server on this machine, without auth. */
  public static UnitySettings unauthenticatedLocalServer(String serverUrl, String catalog, String schema) {
    return new UnitySettings(serverUrl, null, null, catalog, schema, true);
  }

  /**
   * Reads the YAML {@code catalog:} section as the configuration loader hands it over (values as
   * strings, or as YAML scalars). Unknown keys are refused so that a typo never passes silently.
   */
  public static UnitySettings fromConfig(Map<String, ?> section) {
    Set<String> unknown = new TreeSet<>(section.keySet());
    unknown.removeAll(KEYS);
    if (!unknown.isEmpty()) {
      throw UnityErrors.unknownKeys(unknown.stream().map(k -> "catalog." + k).toList(), KEYS);
    }
    String type = text(section.get("type"));
    if (type != null && !TYPE.equals(type.toLowerCase(Locale.ROOT))) {
      throw UnityErrors.invalidSetting("type", "is '" + type + "'", "set it to 'unity' for Databricks Unity Catalog");
    }
    return new UnitySettings(
        text(section.get("workspace_url")),
        text(section.get("client_id")),
        text(section.get("client_secret")),
        text(section.get("catalog")),
        text(section.get("schema")),
        flag(section.get("allow_unauthenticated_local_server")),
        text(section.get("warehouse_id")),
        currentState(text(section.get("current_state"))));
  }

  /** The workspace root as a URI, without a trailing slash. */
  public URI workspace() {
    return URI.create(workspaceUrl);
  }

  /** Whether requests carry an OAuth token (false only for the local development server). */
  public boolean authenticated() {
    return !allowUnauthenticatedLocalServer;
  }

  /** True for hosts on this machine, where plain http never leaves the host. */
  static boolean isLoopback(URI uri) {
    return uri.getHost() != null && LOOPBACK.contains(uri.getHost().toLowerCase(Locale.ROOT));
  }

  @Override
  public String toString() {
    return "UnitySettings[workspaceUrl="
        + workspaceUrl
        + ", clientId="
        + clientId
        + ", clientSecret="
        + (clientSecret == null ? "none" : "***")
        + ", catalog="
        + catalog
        + ", schema="
        + schema
        + ", allowUnauthenticatedLocalServer="
        + allowUnauthenticatedLocalServer
        + ", warehouseId="
        + warehouseId
        + ", currentState="
        + currentState
        + "]";
  }

  private static void validate(
      String workspaceUrl, String clientId, String clientSecret, String catalog, String schema, boolean local) {
    List<String> missing = new ArrayList<>();
    if (workspaceUrl == null) {
      missing.add("workspace_url");
    }
    if (!local && clientId == null) {
      missing.add("client_id");
    }
    if (!local && clientSecret == null) {
      missing.add("client_secret");
    }
    if (catalog == null) {
      missing.add("catalog");
    }
    if (schema == null) {
      missing.add("schema");
    }
    if (!missing.isEmpty()) {
      throw UnityErrors.missingSettings(missing);
    }
    URI uri = parseWorkspace(workspaceUrl);
    if (local) {
      if (!"http".equals(uri.getScheme()) || !LOCAL_SERVER_HOSTS.contains(uri.getHost().toLowerCase(Locale.ROOT))) {
        throw UnityErrors.unauthenticatedNotLocal(workspaceUrl);
      }
      if (clientId != null || clientSecret != null) {
        throw UnityErrors.unauthenticatedWithCredentials();
      }
    } else if (!"https".equals(uri.getScheme()) && !isLoopback(uri)) {
      // The client secret travels in the token request: plain http only where it stays on this host.
      throw UnityErrors.invalidSetting(
          "workspace_url", "uses http", "use https://" + uri.getAuthority() + " (http is only accepted for localhost)");
    }
    if (clientSecret != null && clientSecret.toLowerCase(Locale.ROOT).startsWith("dapi")) {
      throw UnityErrors.personalAccessToken();
    }
    if (clientId != null && clientId.chars().anyMatch(Character::isWhitespace)) {
      throw UnityErrors.invalidSetting("client_id", "contains spaces", "copy the service principal's application id (a UUID)");
    }
    checkName("catalog", catalog);
    checkName("schema", schema);
  }

  private static URI parseWorkspace(String workspaceUrl) {
    URI uri;
    try {
      uri = new URI(workspaceUrl);
    } catch (URISyntaxException e) {
      throw UnityErrors.invalidSetting(
          "workspace_url", "is not a URL", "use the workspace root, e.g. https://adb-1234567890123456.7.azuredatabricks.net");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw UnityErrors.invalidSetting(
          "workspace_url",
          "is not an http(s) URL with a host",
          "use the workspace root with its scheme, e.g. https://adb-1234567890123456.7.azuredatabricks.net");
    }
    boolean hasPath = uri.getRawPath() != null && !uri.getRawPath().isEmpty();
    if (hasPath || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
      throw UnityErrors.invalidSetting(
          "workspace_url",
          "has a path, query or fragment",
          "use only the workspace root: " + scheme + "://" + uri.getRawAuthority().replaceFirst("^.*@", ""));
    }
    return uri;
  }

  private static void checkName(String key, String name) {
    // Unity Catalog names cannot hold periods, slashes, spaces or control characters.
    boolean bad = name.chars().anyMatch(c -> c == '.' || c == '/' || Character.isWhitespace(c) || Character.isISOControl(c));
    if (bad) {
      throw UnityErrors.invalidSetting(
          key, "is '" + name + "'", "Unity Catalog names cannot contain periods, slashes or spaces");
    }
  }

  private static String text(Object value) {
    return value == null ? null : String.valueOf(value);
  }

  private static CurrentStateKind currentState(String word) {
    if (word == null) {
      return CurrentStateKind.VIEW;
    }
    for (CurrentStateKind kind : CurrentStateKind.values()) {
      if (kind.word().equals(word.trim())) {
        return kind;
      }
    }
    throw UnityErrors.invalidSetting("current_state", "is '" + word + "'", "use view, materialized_view or table");
  }

  private static boolean flag(Object value) {
    String text = trimToNull(text(value));
    if (text == null || text.equalsIgnoreCase("false")) {
      return false;
    }
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    throw UnityErrors.invalidSetting("allow_unauthenticated_local_server", "is '" + text + "'", "use true or false");
  }

  private static String trimToNull(String s) {
    if (s == null) {
      return null;
    }
    String t = s.trim();
    return t.isEmpty() ? null : t;
  }

  private static String stripTrailingSlashes(String s) {
    if (s == null) {
      return null;
    }
    String t = s;
    while (t.endsWith("/") && t.length() > 1) {
      t = t.substring(0, t.length() - 1);
    }
    return t;
  }
}
