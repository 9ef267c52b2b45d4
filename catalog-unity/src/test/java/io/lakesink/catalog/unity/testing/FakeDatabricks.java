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
  // SQL warehouses and the Statement Execution API.
  public static final String WAREHOUSE_ID = "1a2b3c4d5e6f7a8b";
  private final Map<String, ObjectNode> warehouses = new LinkedHashMap<>();
  private final Set<String> warehouseUsers = new HashSet<>(); // warehouse ids CLIENT_ID has CAN_USE on
  private final Map<String, ObjectNode> statementsById = new HashMap<>();
  private final Map<String, Integer> pollsLeft = new HashMap<>();
  private final List<String> executed = new ArrayList<>();
  private final java.util.ArrayDeque<String[]> statementFailures = new java.util.ArrayDeque<>();
  private final Map<String, List<String[]>> deltaColumns = new HashMap<>(); // storage location → columns in its log
  private boolean sqlEntitlement = true;
  private boolean warehousePermissionsReadable = true;
  private boolean warehouseStopped;
  private int slowPolls;
  private boolean loseStatements;

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
    fake.addWarehouse(WAREHOUSE_ID, "PRO", true);
    fake.grant("schema", "main.bronze", "CREATE_TABLE", "CREATE_MATERIALIZED_VIEW");
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

  /** Removes an entry as an operator would ({@code DROP TABLE} of an external table: the files stay). */
  public synchronized void removeTable(String fullName) {
    tables.remove(fullName.toLowerCase(Locale.ROOT));
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

  // ---- SQL warehouses and statements ------------------------------------------------------

  /** A running warehouse the service principal may use. */
  public synchronized FakeDatabricks addWarehouse(String id, String type, boolean serverless) {
    ObjectNode w = json.createObjectNode();
    w.put("id", id);
    w.put("name", "warehouse " + id);
    w.put("state", "RUNNING");
    w.put("warehouse_type", type);
    w.put("enable_serverless_compute", serverless);
    warehouses.put(id, w);
    warehouseUsers.add(id);
    return this;
  }

  /** The service principal loses CAN USE on the warehouse. */
  public synchronized void revokeWarehouse(String id) {
    warehouseUsers.remove(id);
  }

  /** The service principal loses the Databricks SQL access entitlement. */
  public synchronized void revokeSqlEntitlement() {
    sqlEntitlement = false;
  }

  public synchronized void restoreSqlEntitlement() {
    sqlEntitlement = true;
  }

  /** The warehouse is stopped and cannot be started: statements are refused. */
  public synchronized void stopWarehouse(boolean stopped) {
    warehouseStopped = stopped;
    warehouses.values().forEach(w -> w.put("state", stopped ? "STOPPED" : "RUNNING"));
  }

  /** Warehouse permissions answer 403, as for a principal that does not manage the warehouse. */
  public synchronized void hideWarehousePermissions() {
    warehousePermissionsReadable = false;
  }

  /** Each statement from now on answers PENDING, then RUNNING, for {@code polls} polls before it runs. */
  public synchronized void slowStatements(int polls) {
    slowPolls = polls;
  }

  /** Statements are forgotten once submitted: polling them answers 404, as for an expired statement. */
  public synchronized void loseStatements() {
    loseStatements = true;
  }

  /** The next statement fails with this error (as the warehouse reports a failed statement). */
  public synchronized void failNextStatement(String errorCode, String message) {
    statementFailures.add(new String[] {errorCode, message});
  }

  /** What {@code REPAIR TABLE … SYNC METADATA} finds in the Delta log at this location. */
  public synchronized void deltaLogColumns(String location, String... columnNamesAndTypes) {
    List<String[]> columns = new ArrayList<>();
    for (int i = 0; i + 1 < columnNamesAndTypes.length; i += 2) {
      columns.add(new String[] {columnNamesAndTypes[i], columnNamesAndTypes[i + 1]});
    }
    deltaColumns.put(location, columns);
  }

  /** Runs a statement as someone else would in the workspace (not recorded as lakesink's). */
  public synchronized void runStatementDirectly(String statement) {
    ObjectNode st = json.createObjectNode();
    st.put("statement_id", "direct");
    st.put("text", statement);
    st.put("catalog", "main");
    st.put("schema", "bronze");
    st.put("warehouse", warehouses.keySet().iterator().next());
    st.putArray("seen");
    run(st);
    executed.remove(executed.size() - 1);
  }

  /** Every statement the warehouse ran to its end (succeeded or failed), in order. */
  public synchronized List<String> statements() {
    return List.copyOf(executed);
  }

  /** The states a statement went through as clients saw them, e.g. [PENDING, RUNNING, SUCCEEDED]. */
  public synchronized List<String> statementStates(String statementId) {
    ObjectNode st = statementsById.get(statementId);
    List<String> seen = new ArrayList<>();
    st.path("seen").forEach(n -> seen.add(n.asText()));
    return seen;
  }

  public synchronized List<String> statementIds() {
    return List.copyOf(statementsById.keySet());
  }

  /** Privileges of the principal on a table-like securable ({@code GET /permissions/table/…}). */
  public synchronized Set<String> tableGrants(String fullName, String principal) {
    return Set.copyOf(grants.getOrDefault("table:" + fullName.toLowerCase(Locale.ROOT) + ":" + principal, Set.of()));
  }

  /** Someone documents the table in Databricks. */
  public synchronized void setComment(String fullName, String comment) {
    tables.get(fullName.toLowerCase(Locale.ROOT)).put("comment", comment);
  }

  public synchronized void grantOnTable(String fullName, String principal, String... privileges) {
    grants.computeIfAbsent("table:" + fullName.toLowerCase(Locale.ROOT) + ":" + principal, k -> new LinkedHashSet<>())
        .addAll(List.of(privileges));
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
      } else if (path.startsWith("/api/2.0/sql/") || path.startsWith("/api/2.0/permissions/warehouses/")) {
        if (admitted(exchange)) {
          sql(exchange, method, path, body);
        }
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
    if (!admitted(exchange)) {
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
      case "GET permissions {}" -> tablePermissions(exchange, segments);
      case "PATCH permissions {}" -> updateTablePermissions(exchange, segments, body);
      default -> error(exchange, 404, "ENDPOINT_NOT_FOUND", "No API found for '" + method + " " + UC + path + "'");
    }
  }

  /** Authentication, then injected throttling and outages; false when already answered. */
  private boolean admitted(HttpExchange exchange) throws IOException {
    if (exchange.getRequestHeaders().containsKey("Authorization")) {
      authorizationHeaders++;
    }
    if (requireAuthentication) {
      String auth = String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"));
      String token = auth.startsWith("Bearer ") ? auth.substring(7) : null;
      if (token == null || !validTokens.contains(token) || refuseAllTokens) {
        error(exchange, 401, "UNAUTHENTICATED", "Credential was not sent or was of an unsupported type for this API.");
        return false;
      }
    }
    if (throttles > 0) {
      throttles--;
      if (throttleRetryAfter != null) {
        exchange.getResponseHeaders().add("Retry-After", throttleRetryAfter);
      }
      error(exchange, 429, "REQUEST_LIMIT_EXCEEDED", "The request rate limit has been exceeded. Retry later.");
      return false;
    }
    if (unavailable > 0) {
      unavailable--;
      error(exchange, 503, "TEMPORARILY_UNAVAILABLE", "The service is temporarily unavailable.");
      return false;
    }
    return true;
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
    String dropped = "table:" + fullName.toLowerCase(Locale.ROOT) + ":";
    grants.keySet().removeIf(k -> k.startsWith(dropped)); // grants belong to the entry, not the name
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

  // ---- SQL warehouses and statements ------------------------------------------------------

  private static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("((?:`(?:[^`]|``)+`|[A-Za-z0-9_]+)(?:\\.(?:`(?:[^`]|``)+`|[A-Za-z0-9_]+)){0,2})");
  private static final java.util.regex.Pattern CREATE_VIEW = java.util.regex.Pattern.compile(
      "CREATE OR REPLACE (VIEW|MATERIALIZED VIEW) " + NAME.pattern()
          + "\\s+COMMENT '((?:[^'\\\\]|\\\\.)*)'(?:\\s+(SCHEDULE [^\\n]+))?\\s+AS\\s+(.*)",
      java.util.regex.Pattern.DOTALL);
  private static final java.util.regex.Pattern DROP = java.util.regex.Pattern.compile(
      "DROP (VIEW|MATERIALIZED VIEW|TABLE) IF EXISTS " + NAME.pattern());
  private static final java.util.regex.Pattern REPAIR = java.util.regex.Pattern.compile(
      "REPAIR TABLE " + NAME.pattern() + " SYNC METADATA");
  private static final java.util.regex.Pattern RENAME = java.util.regex.Pattern.compile(
      "ALTER (?:TABLE|VIEW) " + NAME.pattern() + " RENAME TO " + NAME.pattern());
  private static final java.util.regex.Pattern FROM = java.util.regex.Pattern.compile("FROM " + NAME.pattern());

  private void sql(HttpExchange exchange, String method, String path, String body) throws IOException {
    String[] segments = path.substring(1).split("/"); // api, 2.0, sql|permissions, …
    // "GET sql/warehouses/" for one warehouse, "POST sql/statements//cancel" for a cancel, …
    String route = method + " " + segments[2] + "/" + (segments.length > 3 ? segments[3] : "")
        + (segments.length > 4 ? "/" : "") + (segments.length > 5 ? "/" + segments[5] : "");
    String id = segments.length > 4 ? URLDecoder.decode(segments[4], StandardCharsets.UTF_8) : null;
    switch (route) {
      case "GET sql/warehouses" -> {
        ObjectNode reply = json.createObjectNode();
        warehouses.values().forEach(reply.putArray("warehouses")::add);
        send(exchange, 200, reply);
      }
      default -> {
        if (route.equals("GET sql/warehouses/")) {
          ObjectNode w = warehouses.get(id);
          if (w == null) {
            error(exchange, 404, "RESOURCE_DOES_NOT_EXIST", "Warehouse " + id + " does not exist.");
          } else if (!warehouseUsers.contains(id)) {
            error(exchange, 403, "PERMISSION_DENIED", "User is not authorized to access warehouse " + id + ".");
          } else {
            send(exchange, 200, w);
          }
        } else if (route.equals("GET permissions/warehouses/")) {
          warehousePermissions(exchange, id);
        } else if (route.equals("POST sql/statements")) {
          submit(exchange, json.readTree(body));
        } else if (route.equals("GET sql/statements/")) {
          poll(exchange, id);
        } else if (route.equals("POST sql/statements//cancel")) {
          ObjectNode st = statementsById.get(id);
          if (st != null && List.of("PENDING", "RUNNING").contains(st.path("status").path("state").asText())) {
            setState(st, "CANCELED");
          }
          send(exchange, 200, json.createObjectNode());
        } else {
          error(exchange, 404, "ENDPOINT_NOT_FOUND", "No API found for '" + method + " " + path + "'");
        }
      }
    }
  }

  private void warehousePermissions(HttpExchange exchange, String id) throws IOException {
    if (!warehouses.containsKey(id)) {
      error(exchange, 404, "RESOURCE_DOES_NOT_EXIST", "Warehouse " + id + " does not exist.");
      return;
    }
    if (!warehousePermissionsReadable) {
      error(exchange, 403, "PERMISSION_DENIED", "User does not have CAN_MANAGE on warehouse " + id + ".");
      return;
    }
    ObjectNode reply = json.createObjectNode();
    reply.put("object_id", "/sql/warehouses/" + id);
    reply.put("object_type", "warehouses");
    ArrayNode acl = reply.putArray("access_control_list");
    ObjectNode admins = acl.addObject();
    admins.put("group_name", "admins");
    admins.putArray("all_permissions").addObject().put("permission_level", "CAN_MANAGE").put("inherited", false);
    if (warehouseUsers.contains(id)) {
      ObjectNode sp = acl.addObject();
      sp.put("service_principal_name", CLIENT_ID);
      sp.putArray("all_permissions").addObject().put("permission_level", "CAN_USE").put("inherited", false);
    }
    send(exchange, 200, reply);
  }

  private void submit(HttpExchange exchange, JsonNode req) throws IOException {
    String warehouse = req.path("warehouse_id").asText();
    String waitTimeout = req.path("wait_timeout").asText("10s");
    if (!waitTimeout.matches("0s|([5-9]|[1-4][0-9]|50)s")) {
      error(exchange, 400, "INVALID_PARAMETER_VALUE", "wait_timeout must be 0s or between 5s and 50s");
      return;
    }
    if (!warehouses.containsKey(warehouse)) {
      error(exchange, 404, "RESOURCE_DOES_NOT_EXIST", "Warehouse " + warehouse + " does not exist.");
      return;
    }
    if (!sqlEntitlement) {
      error(exchange, 403, "PERMISSION_DENIED", "Service principal " + CLIENT_ID + " does not have the Databricks SQL access entitlement.");
      return;
    }
    if (!warehouseUsers.contains(warehouse)) {
      error(exchange, 403, "PERMISSION_DENIED", "User is not authorized to use warehouse " + warehouse + ".");
      return;
    }
    if (warehouseStopped) {
      error(exchange, 400, "INVALID_STATE", "Warehouse " + warehouse + " is stopped and could not be started.");
      return;
    }
    String id = "01ef" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
    ObjectNode st = json.createObjectNode();
    st.put("statement_id", id);
    st.put("text", req.path("statement").asText());
    st.put("catalog", req.path("catalog").asText("main"));
    st.put("schema", req.path("schema").asText("default"));
    st.put("warehouse", warehouse);
    st.putArray("seen");
    statementsById.put(id, st);
    pollsLeft.put(id, slowPolls);
    if (slowPolls == 0) {
      run(st);
    } else {
      setState(st, "PENDING");
    }
    send(exchange, 200, view(st));
  }

  private void poll(HttpExchange exchange, String id) throws IOException {
    ObjectNode st = statementsById.get(id);
    if (st == null || loseStatements) {
      error(exchange, 404, "RESOURCE_DOES_NOT_EXIST", "Statement " + id + " does not exist.");
      return;
    }
    String state = st.path("status").path("state").asText();
    if (state.equals("PENDING") || state.equals("RUNNING")) {
      int left = pollsLeft.merge(id, -1, Integer::sum);
      if (left <= 0) {
        run(st);
      } else {
        setState(st, left <= slowPolls / 2 ? "RUNNING" : "PENDING");
      }
    }
    send(exchange, 200, view(st));
  }

  private ObjectNode view(ObjectNode st) {
    ObjectNode reply = json.createObjectNode();
    reply.put("statement_id", st.get("statement_id").asText());
    reply.set("status", st.get("status").deepCopy());
    if (st.has("result")) {
      reply.set("result", st.get("result").deepCopy());
    }
    return reply;
  }

  private void setState(ObjectNode st, String state) {
    ObjectNode status = st.putObject("status");
    status.put("state", state);
    ((ArrayNode) st.get("seen")).add(state);
  }

  private void fail(ObjectNode st, String code, String message) {
    setState(st, "FAILED");
    ObjectNode error = ((ObjectNode) st.get("status")).putObject("error");
    error.put("error_code", code);
    error.put("message", message);
  }

  /** Runs a statement to its end: the few kinds lakesink sends, with Databricks' checks. */
  private void run(ObjectNode st) {
    String text = st.get("text").asText().strip();
    executed.add(text);
    if (!statementFailures.isEmpty()) {
      String[] f = statementFailures.poll();
      fail(st, f[0], f[1]);
      return;
    }
    String catalog = st.get("catalog").asText();
    String schema = st.get("schema").asText();
    java.util.regex.Matcher m;
    if (text.equals("SELECT 1")) {
      setState(st, "SUCCEEDED");
      st.putObject("result").putArray("data_array").addArray().add("1");
    } else if ((m = CREATE_VIEW.matcher(text)).matches()) {
      createView(st, m.group(1), fullName(m.group(2), catalog, schema), m.group(3).replace("\\'", "'").replace("\\\\", "\\"),
          m.group(4), m.group(5), catalog, schema);
    } else if ((m = DROP.matcher(text)).matches()) {
      String name = fullName(m.group(2), catalog, schema);
      ObjectNode existing = tables.get(name);
      String type = m.group(1).replace(' ', '_');
      if (existing != null && !existing.path("table_type").asText().equals(type.equals("TABLE") ? "EXTERNAL" : type)) {
        fail(st, "WRONG_COMMAND_FOR_OBJECT_TYPE", name + " is a " + existing.path("table_type").asText() + ": use the matching DROP");
        return;
      }
      tables.remove(name);
      setState(st, "SUCCEEDED");
    } else if ((m = REPAIR.matcher(text)).matches()) {
      String name = fullName(m.group(1), catalog, schema);
      ObjectNode existing = tables.get(name);
      if (existing == null) {
        fail(st, "TABLE_OR_VIEW_NOT_FOUND", "The table or view " + name + " cannot be found.");
        return;
      }
      List<String[]> columns = deltaColumns.get(existing.path("storage_location").asText());
      if (columns != null) {
        ArrayNode cs = existing.putArray("columns");
        for (int i = 0; i < columns.size(); i++) {
          ObjectNode c = cs.addObject();
          c.put("name", columns.get(i)[0]);
          c.put("type_text", columns.get(i)[1]);
          c.put("type_name", typeName(columns.get(i)[1]));
          c.put("position", i);
          c.put("nullable", true);
          if (columns.get(i)[0].equals("__ingest_date")) {
            c.put("partition_index", 0);
          }
        }
      }
      setState(st, "SUCCEEDED");
    } else if ((m = RENAME.matcher(text)).matches()) {
      String from = fullName(m.group(1), catalog, schema);
      String to = fullName(m.group(2), catalog, schema);
      if (!tables.containsKey(from)) {
        fail(st, "TABLE_OR_VIEW_NOT_FOUND", "The table or view " + from + " cannot be found.");
      } else if (tables.containsKey(to)) {
        fail(st, "TABLE_OR_VIEW_ALREADY_EXISTS", "Cannot create table or view " + to + " because it already exists.");
      } else {
        ObjectNode info = tables.remove(from);
        String[] parts = to.split("\\.");
        info.put("name", parts[2]);
        info.put("full_name", to);
        tables.put(to, info);
        setState(st, "SUCCEEDED");
      }
    } else {
      fail(st, "PARSE_SYNTAX_ERROR", "[PARSE_SYNTAX_ERROR] The fake cannot run: " + text.lines().findFirst().orElse(""));
    }
  }

  private void createView(ObjectNode st, String kind, String name, String comment, String schedule, String query,
      String catalog, String schema) {
    String[] parts = name.split("\\.");
    String schemaName = parts[0] + "." + parts[1];
    if (!schemas.contains(schemaName)) {
      fail(st, "SCHEMA_NOT_FOUND", "The schema `" + parts[0] + "`.`" + parts[1] + "` cannot be found.");
      return;
    }
    boolean materialized = kind.equals("MATERIALIZED VIEW");
    String privilege = materialized ? "CREATE_MATERIALIZED_VIEW" : "CREATE_TABLE";
    if (!holds("schema", schemaName, "USE_SCHEMA") || !holds("schema", schemaName, privilege)) {
      fail(st, "PERMISSION_DENIED", "User does not have " + privilege.replace('_', ' ') + " on Schema '" + schemaName + "'.");
      return;
    }
    if (materialized) {
      ObjectNode w = warehouses.get(st.get("warehouse").asText());
      if (!w.path("enable_serverless_compute").asBoolean() && !w.path("warehouse_type").asText().equals("PRO")) {
        fail(st, "MATERIALIZED_VIEW_REQUIRES_SERVERLESS",
            "Materialized views can only be created on a serverless or Pro SQL warehouse.");
        return;
      }
      if (schedule == null) {
        fail(st, "INVALID_PARAMETER_VALUE", "The fake expects lakesink's materialized views to carry a SCHEDULE");
        return;
      }
      if (schedule.matches("(?i)SCHEDULE EVERY \\d+ MINUTES?.*")) {
        fail(st, "PARSE_SYNTAX_ERROR", "[PARSE_SYNTAX_ERROR] SCHEDULE EVERY takes HOURS, DAYS or WEEKS");
        return;
      }
    }
    java.util.regex.Matcher from = FROM.matcher(query);
    while (from.find()) {
      if (from.group(1).startsWith("(")) {
        continue;
      }
      String source = fullName(from.group(1), catalog, schema);
      if (!tables.containsKey(source)) {
        fail(st, "TABLE_OR_VIEW_NOT_FOUND", "The table or view " + source + " cannot be found.");
        return;
      }
    }
    ObjectNode existing = tables.get(name);
    String type = materialized ? "MATERIALIZED_VIEW" : "VIEW";
    if (existing != null && !existing.path("table_type").asText().equals(type)) {
      fail(st, "EXPECT_" + type + "_NOT_" + existing.path("table_type").asText(),
          name + " is a " + existing.path("table_type").asText() + ": drop it before creating a " + kind.toLowerCase(Locale.ROOT));
      return;
    }
    ObjectNode info = json.createObjectNode();
    info.put("name", parts[2]);
    info.put("catalog_name", parts[0]);
    info.put("schema_name", parts[1]);
    info.put("full_name", name);
    info.put("table_type", type);
    info.put("comment", comment);
    info.put("view_definition", query);
    if (schedule != null) {
      info.put("schedule", schedule);
    }
    info.put("owner", CLIENT_ID);
    info.put("table_id", existing == null ? UUID.randomUUID().toString() : existing.path("table_id").asText());
    tables.put(name, info);
    setState(st, "SUCCEEDED");
  }

  /** {@code `a`.`b`.`c`}, {@code b.c} or {@code c}, in lower case, qualified with the statement's catalog and schema. */
  private static String fullName(String quoted, String catalog, String schema) {
    List<String> parts = new ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("`((?:[^`]|``)+)`|([A-Za-z0-9_]+)").matcher(quoted);
    while (m.find()) {
      parts.add(m.group(1) != null ? m.group(1).replace("``", "`") : m.group(2));
    }
    if (parts.size() == 1) {
      parts.add(0, schema);
    }
    if (parts.size() == 2) {
      parts.add(0, catalog);
    }
    return String.join(".", parts).toLowerCase(Locale.ROOT);
  }

  private static String typeName(String typeText) {
    return switch (typeText.replaceAll("\\(.*", "")) {
      case "bigint" -> "LONG";
      case "int" -> "INT";
      case "decimal" -> "DECIMAL";
      default -> typeText.toUpperCase(Locale.ROOT);
    };
  }

  // ---- table permissions (Unity Catalog) ----------------------------------------------------

  private void tablePermissions(HttpExchange exchange, String[] segments) throws IOException {
    String name = URLDecoder.decode(segments[2], StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    if (!tables.containsKey(name)) {
      error(exchange, 404, "TABLE_DOES_NOT_EXIST", "Table '" + name + "' does not exist.");
      return;
    }
    ObjectNode reply = json.createObjectNode();
    ArrayNode assignments = reply.putArray("privilege_assignments");
    String prefix = "table:" + name + ":";
    grants.forEach((k, v) -> {
      if (k.startsWith(prefix) && !v.isEmpty()) {
        ObjectNode a = assignments.addObject();
        a.put("principal", k.substring(prefix.length()));
        v.forEach(a.putArray("privileges")::add);
      }
    });
    send(exchange, 200, reply);
  }

  private void updateTablePermissions(HttpExchange exchange, String[] segments, String body) throws IOException {
    String name = URLDecoder.decode(segments[2], StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    if (!tables.containsKey(name)) {
      error(exchange, 404, "TABLE_DOES_NOT_EXIST", "Table '" + name + "' does not exist.");
      return;
    }
    for (JsonNode change : json.readTree(body).path("changes")) {
      Set<String> held = grants.computeIfAbsent("table:" + name + ":" + change.path("principal").asText(), k -> new LinkedHashSet<>());
      change.path("add").forEach(p -> held.add(p.asText()));
      change.path("remove").forEach(p -> held.remove(p.asText()));
    }
    tablePermissions(exchange, segments);
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
