package io.lakesink.catalog.unity.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * An in-process stand-in for the Databricks endpoints lakesink calls: OAuth discovery and token,
 * and Unity Catalog REST 2.1 (metastore summary, catalogs, schemas, tables, effective
 * permissions). It answers with the shapes, status codes and error bodies documented in
 * {@code shared/reference/databricks.md}, validates the bearer token it issued on every Unity
 * Catalog call, and enforces the grants needed to create external tables.
 *
 * <p>It can be told to throttle (429 with Retry-After), be unavailable (503), expire or refuse
 * tokens, disable external data access, or behave like the open-source server ({@link
 * Flavor#OSS}: 400 for an existing table, no effective permissions, no external-access flag).
 */
public final class FakeDatabricks implements AutoCloseable {
  public static final String CLIENT_ID = "0c6a3b5e-2f1d-4e8a-9b7c-1d2e3f4a5b6c";
  public static final String CLIENT_SECRET = "dose0123456789abcdef0123456789abcdef";
  public static final String METASTORE_ID = "11111111-2222-3333-4444-555555555555";
  private static final String UC = "/api/2.1/unity-catalog";
  private static final Set<String> TYPE_NAMES =
      Set.of("BOOLEAN", "BYTE", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ",
          "STRING", "BINARY", "DECIMAL", "ARRAY", "MAP", "STRUCT");

  /** Which server to imitate. */
  public enum Flavor { DATABRICKS, OSS }

  private final ObjectMapper json = new ObjectMapper();
  private final HttpServer server;
  private final Flavor flavor;
  private final List<String> requests = new ArrayList<>();
  private final Set<String> validTokens = new HashSet<>();
  private final List<String> issuedTokens = new ArrayList<>();
  private final Set<String> catalogs = new LinkedHashSet<>();
  private final Set<String> schemas = new LinkedHashSet<>();
  private final Map<String, String> owners = new HashMap<>();
  private final Map<String, ObjectNode> tables = new LinkedHashMap<>();
  /** securable ("catalog:main", "schema:main.bronze") → privileges of CLIENT_ID. */
  private final Map<String, Set<String>> grants = new HashMap<>();
  private boolean requireAuthentication = true;
  private boolean discovery = true;
  private boolean oauth = true;
  private boolean externalAccessEnabled = true;
  private boolean refuseAllTokens;
  private boolean permissionsReadable = true;
  private boolean emptyFirstListPage;
  private String hiddenOnce;
  private int authorizationHeaders;
  private long tokenLifetimeSeconds = 3600;
  private int throttles;
  private String throttleRetryAfter;
  private int unavailable;

  private FakeDatabricks(Flavor flavor) throws IOException {
    this.flavor = flavor;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A Databricks workspace with catalog {@code main}, schema {@code main.bronze} and every grant lakesink needs. */
  public static FakeDatabricks start() throws IOException {
    return start(Flavor.DATABRICKS);
  }

  public static FakeDatabricks start(Flavor flavor) throws IOException {
    FakeDatabricks fake = new FakeDatabricks(flavor);
    fake.addCatalog("main");
    fake.addSchema("main", "bronze");
    fake.grant("catalog", "main", "USE_CATALOG");
    fake.grant("schema", "main.bronze", "USE_SCHEMA", "CREATE_EXTERNAL_TABLE", "EXTERNAL_USE_SCHEMA");
    if (flavor == Flavor.OSS) {
      fake.requireAuthentication = false;
    }
    return fake;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  // ---- set-up ------------------------------------------------------------------------------

  public synchronized FakeDatabricks addCatalog(String name) {
    catalogs.add(name.toLowerCase(Locale.ROOT));
    owners.put("catalog:" + name.toLowerCase(Locale.ROOT), "admins");
    return this;
  }

  public synchronized FakeDatabricks addSchema(String catalog, String schema) {
    String full = (catalog + "." + schema).toLowerCase(Locale.ROOT);
    schemas.add(full);
    owners.put("schema:" + full, "admins");
    return this;
  }

  public synchronized void removeCatalog(String name) {
    catalogs.remove(name.toLowerCase(Locale.ROOT));
  }

  public synchronized void removeSchema(String catalog, String schema) {
    schemas.remove((catalog + "." + schema).toLowerCase(Locale.ROOT));
  }

  public synchronized void setOwner(String securableType, String fullName, String owner) {
    owners.put(securableType + ":" + fullName.toLowerCase(Locale.ROOT), owner);
  }

  public synchronized void grant(String securableType, String fullName, String... privileges) {
    grants.computeIfAbsent(securableType + ":" + fullName.toLowerCase(Locale.ROOT), k -> new LinkedHashSet<>())
        .addAll(List.of(privileges));
  }

  public synchronized void revoke(String securableType, String fullName, String privilege) {
    grants.getOrDefault(securableType + ":" + fullName.toLowerCase(Locale.ROOT), new HashSet<>()).remove(privilege);
  }

  /** Puts an object under a name as someone else would have: a view, a managed table, another location. */
  public synchronized void putTable(String fullName, String tableType, String location, String... columnNamesAndTypes) {
    String[] parts = fullName.split("\\.");
    ObjectNode info = json.createObjectNode();
    info.put("name", parts[2]);
    info.put("catalog_name", parts[0]);
    info.put("schema_name", parts[1]);
    info.put("full_name", fullName);
    info.put("table_type", tableType);
    if (!tableType.equals("VIEW")) {
      info.put("data_source_format", "DELTA");
    } else {
      info.put("view_definition", "SELECT 1");
    }
    if (location != null) {
      info.put("storage_location", location);
    }
    info.put("owner", "someone@example.com");
    info.put("table_id", UUID.randomUUID().toString());
    ArrayNode columns = info.putArray("columns");
    for (int i = 0; i + 1 < columnNamesAndTypes.length; i += 2) {
      ObjectNode c = columns.addObject();
      c.put("name", columnNamesAndTypes[i]);
      c.put("type_text", columnNamesAndTypes[i + 1]);
      c.put("type_name", columnNamesAndTypes[i + 1].toUpperCase(Locale.ROOT));
      c.put("position", i / 2);
      c.put("nullable", true);
    }
    tables.put(fullName.toLowerCase(Locale.ROOT), info);
  }

  /** The next {@code n} Unity Catalog calls answer 429, with {@code Retry-After: retryAfter} unless null. */
  public synchronized void throttle(int n, String retryAfter) {
    throttles = n;
    throttleRetryAfter = retryAfter;
  }

  /** The next {@code n} Unity Catalog calls answer 503. */
  public synchronized void unavailable(int n) {
    unavailable = n;
  }

  /** Every token issued so far stops working (as if expired); new ones work. */
  public synchronized void expireTokens() {
    validTokens.clear();
  }

  /** Tokens are issued but Unity Catalog refuses all of them (service principal not in this workspace). */
  public synchronized void refuseAllTokens() {
    refuseAllTokens = true;
  }

  public synchronized void disableExternalAccess() {
    externalAccessEnabled = false;
  }

  public synchronized void disableDiscovery() {
    discovery = false;
  }

  /** Neither discovery nor the token endpoint exist: not a Databricks workspace. */
  public synchronized void disableOAuth() {
    discovery = false;
    oauth = false;
  }

  /** Effective permissions answer 403, as for a principal not allowed to read them. */
  public synchronized void hidePermissions() {
    permissionsReadable = false;
  }

  public synchronized void tokenLifetime(long seconds) {
    tokenLifetimeSeconds = seconds;
  }

  /**
   * The next GET of that table answers 404 although it exists: as if another writer registered it
   * between lakesink's GET and POST.
   */
  public synchronized void hideTableOnNextGet(String fullName) {
    hiddenOnce = fullName.toLowerCase(Locale.ROOT);
  }

  /** How many Unity Catalog calls carried an Authorization header. */
  public synchronized int authorizationHeaders() {
    return authorizationHeaders;
  }

  public synchronized void emptyFirstListPage() {
    emptyFirstListPage = true;
  }

  // ---- inspection --------------------------------------------------------------------------

  /** Every request so far as {@code METHOD /path?query}. */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  public synchronized long count(String method, String pathPrefix) {
    return requests.stream().filter(r -> r.startsWith(method + " " + pathPrefix)).count();
  }

  public synchronized void clearRequests() {
    requests.clear();
  }

  public synchronized List<String> issuedTokens() {
    return List.copyOf(issuedTokens);
  }

  public synchronized JsonNode table(String fullName) {
    ObjectNode t = tables.get(fullName.toLowerCase(Locale.ROOT));
    return t == null ? null : t.deepCopy();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  // ---- dispatch ----------------------------------------------------------------------------

  private synchronized void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getRawPath();
      String query = exchange.getRequestURI().getRawQuery();
      requests.add(method + " " + path + (query == null ? "" : "?" + query));
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      if (path.equals("/oidc/.well-known/oauth-authorization-server") && method.equals("GET")) {
        discovery(exchange);
      } else if (path.equals("/oidc/v1/token") && method.equals("POST") && oauth) {
        token(exchange, body);
      } else if (path.startsWith(UC + "/")) {
        unityCatalog(exchange, method, path.substring(UC.length()), query(query), body);
      } else {
        error(exchange, 404, "ENDPOINT_NOT_FOUND", "No API found for '" + method + " " + path + "'");
      }
    }
  }

  private void discovery(HttpExchange exchange) throws IOException {
    if (!discovery) {
      error(exchange, 404, "NOT_FOUND", "Not found");
      return;
    }
    ObjectNode doc = json.createObjectNode();
    doc.put("issuer", url() + "/oidc");
    doc.put("authorization_endpoint", url() + "/oidc/v1/authorize");
    doc.put("token_endpoint", url() + "/oidc/v1/token");
    doc.putArray("grant_types_supported").add("client_credentials").add("authorization_code");
    send(exchange, 200, doc);
  }

  private void token(HttpExchange exchange, String body) throws IOException {
    String contentType = String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type"));
    Map<String, String> form = query(body);
    if (!contentType.startsWith("application/x-www-form-urlencoded")) {
      oauthError(exchange, 400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded");
      return;
    }
    if (!"client_credentials".equals(form.get("grant_type"))) {
      oauthError(exchange, 400, "unsupported_grant_type", "grant_type must be client_credentials");
      return;
    }
    if (!"all-apis".equals(form.get("scope"))) {
      oauthError(exchange, 400, "invalid_scope", "scope must be all-apis");
      return;
    }
    String expected =
        "Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
    if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
      oauthError(exchange, 401, "invalid_client", "Client authentication failed");
      return;
    }
    String token = "eyJ" + UUID.randomUUID().toString().replace("-", "") + UUID.randomUUID().toString().replace("-", "");
    validTokens.add(token);
    issuedTokens.add(token);
    ObjectNode reply = json.createObjectNode();
    reply.put("access_token", token);
    reply.put("token_type", "Bearer");
    reply.put("expires_in", tokenLifetimeSeconds);
    reply.put("scope", "all-apis");
    send(exchange, 200, reply);
  }

  private void unityCatalog(HttpExchange exchange, String method, String path, Map<String, String> query, String body)
      throws IOException {
    if (exchange.getRequestHeaders().containsKey("Authorization")) {
      authorizationHeaders++;
    }
    if (requireAuthentication) {
      String auth = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
      String token = auth.startsWith("Bearer ") ? auth.substring(7) : null;
      if (token == null || !validTokens.contains(token) || refuseAllTokens) {
        error(exchange, 401, "UNAUTHENTICATED", "Credential was not sent or was of an unsupported type for this API.");
        return;
      }
    }
    if (throttles > 0) {
      throttles--;
      if (throttleRetryAfter != null) {
        exchange.getResponseHeaders().add("Retry-After", throttleRetryAfter);
      }
      error(exchange, 429, "REQUEST_LIMIT_EXCEEDED", "The request rate limit has been exceeded. Retry later.");
      return;
    }
    if (unavailable > 0) {
      unavailable--;
      error(exchange, 503, "TEMPORARILY_UNAVAILABLE", "The service is temporarily unavailable.");
      return;
    }
    String[] segments = path.substring(1).split("/");
    String resource = segments[0];
    String name = segments.length > 1 ? URLDecoder.decode(segments[1], StandardCharsets.UTF_8) : null;
    switch (method + " " + resource + (name == null ? "" : " {}")) {
      case "GET metastore_summary" -> metastoreSummary(exchange);
      case "GET catalogs {}" -> getCatalog(exchange, name);
      case "GET schemas {}" -> getSchema(exchange, name);
      case "POST tables" -> createTable(exchange, body);
      case "GET tables" -> listTables(exchange, query);
      case "GET tables {}" -> getTable(exchange, name);
      case "DELETE tables {}" -> deleteTable(exchange, name);
      case "GET effective-permissions {}" -> effectivePermissions(exchange, segments, query);
      default -> error(exchange, 404, "ENDPOINT_NOT_FOUND", "No API found for '" + method + " " + UC + path + "'");
    }
  }

  // ---- Unity Catalog -----------------------------------------------------------------------

  private void metastoreSummary(HttpExchange exchange) throws IOException {
    ObjectNode summary = json.createObjectNode();
    summary.put("metastore_id", METASTORE_ID);
    if (flavor == Flavor.DATABRICKS) {
      summary.put("name", "metastore_azure_westeurope");
      summary.put("external_access_enabled", externalAccessEnabled);
    }
    send(exchange, 200, summary);
  }

  private void getCatalog(HttpExchange exchange, String name) throws IOException {
    String key = name.toLowerCase(Locale.ROOT);
    if (!catalogs.contains(key)) {
      error(exchange, 404, "CATALOG_DOES_NOT_EXIST", "Catalog '" + name + "' does not exist.");
      return;
    }
    ObjectNode c = json.createObjectNode();
    c.put("name", key);
    c.put("owner", owners.get("catalog:" + key));
    c.put("catalog_type", "MANAGED_CATALOG");
    send(exchange, 200, c);
  }

  private void getSchema(HttpExchange exchange, String fullName) throws IOException {
    if (namespaceMissing(exchange, fullName + ".x")) {
      return;
    }
    String key = fullName.toLowerCase(Locale.ROOT);
    ObjectNode s = json.createObjectNode();
    s.put("name", key.substring(key.indexOf('.') + 1));
    s.put("catalog_name", key.substring(0, key.indexOf('.')));
    s.put("full_name", key);
    s.put("owner", owners.get("schema:" + key));
    send(exchange, 200, s);
  }

  /** Answers 404 for a table name whose catalog or schema is missing. */
  private boolean namespaceMissing(HttpExchange exchange, String tableFullName) throws IOException {
    String[] parts = tableFullName.toLowerCase(Locale.ROOT).split("\\.");
    if (parts.length != 3) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "Invalid name '" + tableFullName + "'");
      return true;
    }
    if (!catalogs.contains(parts[0])) {
      error(exchange, 404, "CATALOG_DOES_NOT_EXIST", "Catalog '" + parts[0] + "' does not exist.");
      return true;
    }
    if (!schemas.contains(parts[0] + "." + parts[1])) {
      error(exchange, 404, "SCHEMA_DOES_NOT_EXIST", "Schema '" + parts[0] + "." + parts[1] + "' does not exist.");
      return true;
    }
    return false;
  }

  private void createTable(HttpExchange exchange, String body) throws IOException {
    JsonNode req = json.readTree(body);
    for (String field : List.of("name", "catalog_name", "schema_name", "table_type", "data_source_format")) {
      if (!req.path(field).isTextual()) {
        error(exchange, 400, "INVALID_PARAMETER_VALUE", "Field '" + field + "' is required.");
        return;
      }
    }
    String fullName = req.get("catalog_name").asText() + "." + req.get("schema_name").asText() + "." + req.get("name").asText();
    if (namespaceMissing(exchange, fullName)) {
      return;
    }
    if (!req.get("table_type").asText().equals("EXTERNAL") || !req.get("data_source_format").asText().equals("DELTA")) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "Only EXTERNAL tables with data_source_format DELTA can be created by external clients.");
      return;
    }
    if (!req.path("storage_location").isTextual()) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "storage_location is required for EXTERNAL tables.");
      return;
    }
    if (flavor == Flavor.DATABRICKS) {
      if (!externalAccessEnabled) {
        externalAccessError(exchange);
        return;
      }
      String schema = (req.get("catalog_name").asText() + "." + req.get("schema_name").asText()).toLowerCase(Locale.ROOT);
      for (String[] needed : new String[][] {
          {"catalog", req.get("catalog_name").asText(), "USE_CATALOG", "Catalog"},
          {"schema", schema, "USE_SCHEMA", "Schema"},
          {"schema", schema, "CREATE_EXTERNAL_TABLE", "Schema"},
          {"schema", schema, "EXTERNAL_USE_SCHEMA", "Schema"}}) {
        if (!holds(needed[0], needed[1], needed[2])) {
          error(exchange, 403, "PERMISSION_DENIED",
              "User does not have " + needed[2].replace('_', ' ') + " on " + needed[3] + " '" + needed[1] + "'.");
          return;
        }
      }
    }
    String columnProblem = columnProblem(req.path("columns"));
    if (columnProblem != null) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", columnProblem);
      return;
    }
    String key = fullName.toLowerCase(Locale.ROOT);
    if (tables.containsKey(key)) {
      if (flavor == Flavor.OSS) {
        error(exchange, 400, "TABLE_ALREADY_EXISTS", "Table already exists: " + key);
      } else {
        error(exchange, 409, "TABLE_ALREADY_EXISTS", "Table '" + key + "' already exists");
      }
      return;
    }
    ObjectNode info = ((ObjectNode) req).deepCopy();
    info.put("name", req.get("name").asText().toLowerCase(Locale.ROOT));
    info.put("full_name", key);
    info.put("table_id", UUID.randomUUID().toString());
    info.put("owner", requireAuthentication ? CLIENT_ID : "anonymous");
    info.put("created_at", System.currentTimeMillis());
    tables.put(key, info);
    send(exchange, 200, info);
  }

  private String columnProblem(JsonNode columns) {
    if (!columns.isArray()) {
      return "columns must be a list";
    }
    int position = 0;
    for (JsonNode c : columns) {
      String name = c.path("name").asText(null);
      if (name == null || name.isEmpty()) {
        return "Column name is required.";
      }
      if (!TYPE_NAMES.contains(c.path("type_name").asText())) {
        return "Invalid type_name '" + c.path("type_name").asText() + "' for column " + name;
      }
      if (!c.path("type_text").isTextual()) {
        return "type_text is required for column " + name;
      }
      if (c.path("position").asInt(-1) != position++) {
        return "Column positions must run from 0; column " + name + " has " + c.path("position");
      }
      JsonNode field;
      try {
        field = json.readTree(c.path("type_json").asText(""));
      } catch (IOException e) {
        return "type_json of column " + name + " is not JSON";
      }
      if (field == null || !name.equals(field.path("name").asText()) || field.path("nullable").asBoolean(true) != c.path("nullable").asBoolean(true)
          || !field.path("type").isTextual() || !field.path("metadata").isObject()) {
        return "type_json of column " + name + " does not match the column (name, nullable, type, metadata)";
      }
      if (c.path("type_name").asText().equals("DECIMAL")
          && (!c.path("type_precision").isInt() || !c.path("type_scale").isInt())) {
        return "DECIMAL column " + name + " needs type_precision and type_scale";
      }
    }
    return null;
  }

  private void getTable(HttpExchange exchange, String fullName) throws IOException {
    if (namespaceMissing(exchange, fullName)) {
      return;
    }
    ObjectNode info = tables.get(fullName.toLowerCase(Locale.ROOT));
    if (fullName.toLowerCase(Locale.ROOT).equals(hiddenOnce)) {
      hiddenOnce = null;
      info = null;
    }
    if (info == null) {
      error(exchange, 404, "TABLE_DOES_NOT_EXIST", "Table '" + fullName.toLowerCase(Locale.ROOT) + "' does not exist.");
      return;
    }
    send(exchange, 200, info);
  }

  private void deleteTable(HttpExchange exchange, String fullName) throws IOException {
    if (namespaceMissing(exchange, fullName)) {
      return;
    }
    if (tables.remove(fullName.toLowerCase(Locale.ROOT)) == null) {
      error(exchange, 404, "TABLE_DOES_NOT_EXIST", "Table '" + fullName.toLowerCase(Locale.ROOT) + "' does not exist.");
      return;
    }
    send(exchange, 200, json.createObjectNode());
  }

  private void listTables(HttpExchange exchange, Map<String, String> query) throws IOException {
    String catalog = query.get("catalog_name");
    String schema = query.get("schema_name");
    if (catalog == null || schema == null) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "catalog_name and schema_name are required");
      return;
    }
    if (namespaceMissing(exchange, catalog + "." + schema + ".x")) {
      return;
    }
    String prefix = (catalog + "." + schema + ".").toLowerCase(Locale.ROOT);
    List<ObjectNode> all = tables.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).map(Map.Entry::getValue).toList();
    int pageSize = Integer.parseInt(query.getOrDefault("max_results", "0"));
    if (pageSize <= 0) {
      pageSize = all.size() + 1;
    }
    String token = query.get("page_token");
    ObjectNode reply = json.createObjectNode();
    ArrayNode page = reply.putArray("tables");
    if (token == null && emptyFirstListPage) {
      reply.put("next_page_token", "0");
      send(exchange, 200, reply);
      return;
    }
    int from = token == null ? 0 : Integer.parseInt(token);
    int to = Math.min(all.size(), from + pageSize);
    all.subList(from, to).forEach(page::add);
    if (to < all.size()) {
      reply.put("next_page_token", String.valueOf(to));
    }
    send(exchange, 200, reply);
  }

  private void effectivePermissions(HttpExchange exchange, String[] segments, Map<String, String> query) throws IOException {
    if (flavor == Flavor.OSS || segments.length < 3) {
      error(exchange, 404, "ENDPOINT_NOT_FOUND", "No API found for 'GET " + UC + "/" + String.join("/", segments) + "'");
      return;
    }
    if (!permissionsReadable) {
      error(exchange, 403, "PERMISSION_DENIED", "User does not have MANAGE on " + segments[1] + " '" + segments[2] + "'.");
      return;
    }
    String maxResults = query.get("max_results");
    if (maxResults != null && Integer.parseInt(maxResults) > 0 && Integer.parseInt(maxResults) < 150) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "max_results must be 0 or at least 150");
      return;
    }
    String type = segments[1].toLowerCase(Locale.ROOT);
    String fullName = URLDecoder.decode(segments[2], StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    String principal = query.get("principal");
    // Page 1: what the securable inherits from its catalog; page 2: its own grants.
    boolean secondPage = "2".equals(query.get("page_token"));
    ObjectNode reply = json.createObjectNode();
    ArrayNode assignments = reply.putArray("privilege_assignments");
    if (CLIENT_ID.equals(principal)) {
      ObjectNode assignment = json.createObjectNode();
      assignment.put("principal", CLIENT_ID);
      ArrayNode privileges = assignment.putArray("privileges");
      if (!secondPage && type.equals("schema")) {
        String catalog = fullName.substring(0, fullName.indexOf('.'));
        for (String p : grants.getOrDefault("catalog:" + catalog, Set.of())) {
          ObjectNode privilege = privileges.addObject();
          privilege.put("privilege", p);
          privilege.put("inherited_from_type", "CATALOG");
          privilege.put("inherited_from_name", catalog);
        }
      }
      if (secondPage || !type.equals("schema")) {
        for (String p : grants.getOrDefault(type + ":" + fullName, Set.of())) {
          privileges.addObject().put("privilege", p);
        }
      }
      if (!privileges.isEmpty()) {
        assignments.add(assignment);
      }
    }
    if (type.equals("schema") && !secondPage) {
      reply.put("next_page_token", "2");
    }
    send(exchange, 200, reply);
  }

  private boolean holds(String securableType, String fullName, String privilege) {
    Set<String> direct = grants.getOrDefault(securableType + ":" + fullName.toLowerCase(Locale.ROOT), Set.of());
    Set<String> inherited =
        securableType.equals("schema")
            ? grants.getOrDefault("catalog:" + fullName.toLowerCase(Locale.ROOT).split("\\.")[0], Set.of())
            : Set.of();
    return direct.contains(privilege) || direct.contains("ALL_PRIVILEGES") || inherited.contains(privilege)
        || inherited.contains("ALL_PRIVILEGES");
  }

  private void externalAccessError(HttpExchange exchange) throws IOException {
    ObjectNode body = json.createObjectNode();
    body.put("error_code", "PERMISSION_DENIED");
    body.put("message", "External Data Access from non Databricks Compute environment is disabled for metastore " + METASTORE_ID);
    ArrayNode details = body.putArray("details");
    ObjectNode info = details.addObject();
    info.put("@type", "type.googleapis.com/google.rpc.ErrorInfo");
    info.put("reason", "EXTERNAL_ACCESS_DISABLED_ON_METASTORE");
    info.put("domain", "unity-catalog.databricks.com");
    info.putObject("metadata");
    details.addObject().put("@type", "type.googleapis.com/google.rpc.RequestInfo").put("request_id", UUID.randomUUID().toString());
    send(exchange, 403, body);
  }

  // ---- HTTP helpers ------------------------------------------------------------------------

  private void error(HttpExchange exchange, int status, String code, String message) throws IOException {
    ObjectNode body = json.createObjectNode();
    body.put("error_code", code);
    body.put("message", message);
    ArrayNode details = body.putArray("details");
    details.addObject().put("@type", "type.googleapis.com/google.rpc.RequestInfo").put("request_id", UUID.randomUUID().toString());
    send(exchange, status, body);
  }

  private void oauthError(HttpExchange exchange, int status, String error, String description) throws IOException {
    ObjectNode body = json.createObjectNode();
    body.put("error", error);
    body.put("error_description", description);
    send(exchange, status, body);
  }

  private void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> result = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return result;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      result.put(key, value);
    }
    return result;
  }
}
