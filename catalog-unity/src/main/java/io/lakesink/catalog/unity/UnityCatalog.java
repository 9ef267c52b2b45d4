package io.lakesink.catalog.unity;

import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateDefinition;
import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.catalog.LoggedCurrentState;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.view.CurrentStateSpec;
import io.lakesink.error.LakesinkException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Databricks Unity Catalog as lakesink's table catalog: registers each table as an EXTERNAL DELTA
 * table in the configured catalog and schema (which must exist), through Unity Catalog REST 2.1
 * with a service principal's OAuth M2M token.
 *
 * <p>Also offers the connection test's steps, each failing with what to fix: {@link
 * #checkToken()}, {@link #checkCatalogAndSchema()}, {@link #checkPermissions()}, {@link
 * #checkExternalAccess()}, or all of them in order with {@link #checkConnection()}.
 *
 * <p>Thread-safe: registrations from several tables may run at once.
 */
public final class UnityCatalog implements TableCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(UnityCatalog.class);
  private static final String TOKEN_CHECK = "Databricks OAuth token exchange";
  private static final String NAMESPACE_CHECK = "Catalog and schema";
  private static final int PAGE_SIZE = 100;

  private final UnitySettings settings;
  private final UnityApi api;
  private final Namespace namespace;
  private final TableRegistrar registrar;
  private final Failures failures;
  private final Supplier<URI> tokenEndpoint;
  private final Map<String, CurrentStateSpec> currentStates;
  private final CurrentStateBuilder builder; // null without a warehouse
  private final LoggedCurrentState logged;
  private final Warehouse warehouse;
  private final StatementExecution statements;
  private final ClientEnvironment environment;
  private final String name; // in lakesink's configuration: default, or a key of catalogs:

  private UnityCatalog(UnitySettings settings, ClientEnvironment environment, Map<String, CurrentStateSpec> currentStates) {
    this(settings, environment, currentStates, "default");
  }

  private UnityCatalog(
      UnitySettings settings, ClientEnvironment environment, Map<String, CurrentStateSpec> currentStates, String name) {
    this.settings = settings;
    this.environment = environment;
    this.name = name;
    this.currentStates = Map.copyOf(currentStates);
    Redactor redactor = new Redactor(settings.clientId(), settings.clientSecret());
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            // Never follow a redirect: the Authorization header must not travel to another host.
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    HttpSender sender = new HttpSender(client, environment, redactor);
    Credentials credentials;
    if (settings.authenticated()) {
      OAuthM2M oauth = new OAuthM2M(settings, sender, environment, redactor);
      credentials = oauth;
      tokenEndpoint = oauth::tokenEndpoint;
    } else {
      credentials = Credentials.UNAUTHENTICATED;
      tokenEndpoint = () -> null;
      LOG.warn(
          "DEVELOPMENT MODE: Unity Catalog at {} is used WITHOUT AUTHENTICATION"
              + " (catalog.allow_unauthenticated_local_server: true). Only for a local open-source"
              + " Unity Catalog server; never for a Databricks workspace.",
          settings.workspaceUrl());
    }
    this.api = new UnityApi(settings, sender, credentials, environment.requestTimeout(), redactor);
    this.failures = new Failures(settings, () -> ExternalAccessCheck.metastoreIdOrNull(api));
    this.namespace = new Namespace(settings, api, failures);
    this.warehouse = new Warehouse(settings, api);
    this.statements = new StatementExecution(settings, api, environment);
    this.registrar = new TableRegistrar(settings, api, namespace, failures, settings.hasWarehouse() ? statements : null);
    this.builder = settings.hasWarehouse() ? new CurrentStateBuilder(settings, api, statements, warehouse) : null;
    this.logged = new LoggedCurrentState(this.currentStates, List.of(settings.catalog(), settings.schema()));
  }

  /** From the YAML {@code catalog:} section ({@code type: unity}); see {@link UnitySettings#fromConfig}. */
  public static UnityCatalog fromSettings(Map<String, ?> section) {
    return create(UnitySettings.fromConfig(section));
  }

  public static UnityCatalog create(UnitySettings settings) {
    return create(settings, ClientEnvironment.system());
  }

  /** With another clock, sleeper or jitter source (tests). */
  public static UnityCatalog create(UnitySettings settings, ClientEnvironment environment) {
    return new UnityCatalog(settings, environment, Map.of());
  }

  /**
   * @param currentStates each changelog subscription's current-state wishes, by changelog table
   *     name: built on {@code catalog.warehouse_id}, or their statements logged without one
   */
  public static UnityCatalog create(
      UnitySettings settings, ClientEnvironment environment, Map<String, CurrentStateSpec> currentStates) {
    return new UnityCatalog(settings, environment, currentStates);
  }

  /**
   * A named catalog of lakesink's configuration ({@code catalogs: {name: …}}): the name tables
   * record as their owner's catalog.
   */
  public static UnityCatalog named(
      String name, UnitySettings settings, ClientEnvironment environment, Map<String, CurrentStateSpec> currentStates) {
    return new UnityCatalog(settings, environment, currentStates, name);
  }

  @Override
  public String catalogName() {
    return name;
  }

  public UnitySettings settings() {
    return settings;
  }

  /** The same workspace and credentials, registering in another catalog and schema (a hand-off's destination). */
  public UnityCatalog inNamespace(String catalog, String schema) {
    UnitySettings other = new UnitySettings(settings.workspaceUrl(), settings.clientId(), settings.clientSecret(), catalog, schema,
        settings.allowUnauthenticatedLocalServer());
    return new UnityCatalog(other, environment, Map.of(), name);
  }

  /** Where the entry {@code table} of the configured schema points; empty when there is none. */
  public java.util.Optional<String> entryLocation(String table) {
    return registrar.location(table);
  }

  /** Deletes the external entry {@code table} when it points at {@code location}: the files stay. */
  public void unregister(String table, String location) {
    registrar.unregister(table, location);
  }

  @Override
  public void register(CatalogTable table) {
    registrar.register(table);
  }

  /**
   * The kept current-state table takes the name from lakesink's own view or materialized view of
   * the subscription (its comment carries {@link CurrentStateDefinition#MARKER}): dropped on the
   * warehouse when there is one, else its entry deleted (a view has no files). Anything else under
   * the name stays and is refused by the registration, naming it.
   */
  @Override
  public void registerKeptTable(CatalogTable table) {
    String fullName = settings.catalog() + "." + settings.schema() + "." + table.name();
    ApiResponse existing = api.get("/tables/" + UnityApi.segment(fullName));
    if (existing.ok()) {
      String type = Json.text(existing.body(), "table_type");
      boolean view = "VIEW".equals(type) || "MATERIALIZED_VIEW".equals(type);
      if (view && CurrentStateDefinition.ours(Json.text(existing.body(), "comment"))) {
        CurrentStateKind kind = "VIEW".equals(type) ? CurrentStateKind.VIEW : CurrentStateKind.MATERIALIZED_VIEW;
        if (settings.hasWarehouse()) {
          StatementExecution.Outcome dropped =
              statements.execute(CurrentStateDefinition.drop(kind, List.of(settings.catalog(), settings.schema(), table.name())));
          if (dropped instanceof StatementExecution.Outcome.Failed f) {
            throw new io.lakesink.error.RetryableException("Dropping lakesink's " + kind.word() + " " + fullName
                + " so that the current-state table takes its name failed: " + f.error(), null);
          }
        } else {
          ApiResponse deleted = api.delete("/tables/" + UnityApi.segment(fullName));
          if (!deleted.ok() && deleted.status() != 404) {
            throw new io.lakesink.error.RetryableException("Deleting lakesink's " + kind.word() + " " + fullName
                + " so that the current-state table takes its name failed: " + deleted.error().summary(), null);
          }
        }
        LOG.info("Dropped lakesink's current-state {} {}: the current-state table lakesink keeps takes the name",
            kind.word(), fullName);
      }
    }
    registrar.register(table);
  }

  @Override
  public void registerExisting(CatalogTable table) {
    registrar.register(table, false);
  }

  @Override
  public java.util.Optional<String> entryName(String table) {
    return java.util.Optional.of(settings.catalog() + "." + settings.schema() + "." + table);
  }

  @Override
  public CurrentStateResult buildCurrentState(CatalogTable changelog) {
    CurrentStateSpec spec = currentStates.get(changelog.name());
    if (spec == null || !spec.options().build()) {
      return CurrentStateResult.NOT_MANAGED;
    }
    return builder == null ? logged.buildCurrentState(changelog) : builder.build(changelog, spec);
  }

  @Override
  public CurrentStateResult moveFormerMergeTable(CatalogTable changelog) {
    CurrentStateSpec spec = currentStates.get(changelog.name());
    if (spec == null || !spec.options().build() || builder == null) {
      return CurrentStateResult.NOT_MANAGED;
    }
    return builder.moveFormerMergeTable(changelog, spec);
  }

  @Override
  public String describe() {
    return "Unity Catalog "
        + settings.catalog()
        + "."
        + settings.schema()
        + " at "
        + settings.workspaceUrl()
        + " ("
        + api.credentials().describe()
        + ")";
  }

  /** The names of the tables, views and other objects in the configured schema. */
  public List<String> listTables() {
    namespace.ensureExists();
    List<String> names = new ArrayList<>();
    String pageToken = null;
    do {
      String path =
          "/tables?catalog_name=" + encode(settings.catalog())
              + "&schema_name=" + encode(settings.schema())
              + "&max_results=" + PAGE_SIZE
              + (pageToken == null ? "" : "&page_token=" + encode(pageToken));
      ApiResponse r = api.get(path);
      if (!r.ok()) {
        throw failures.of(
            r, "to list the tables of " + namespace.fullSchemaName(),
            Grants.onSchema(Grants.USE_SCHEMA, settings.catalog(), settings.schema()));
      }
      // A page may be empty while more follow: only the token says when to stop.
      for (JsonNode table : r.body().path("tables")) {
        String name = Json.text(table, "name");
        if (name != null) {
          names.add(name);
        }
      }
      pageToken = Json.text(r.body(), "next_page_token");
    } while (pageToken != null && !pageToken.isEmpty());
    return names;
  }

  /** Step 1: the service principal's client id and secret can be exchanged for a token. */
  public CheckResult checkToken() {
    if (!settings.authenticated()) {
      return CheckResult.notVerified(TOKEN_CHECK, "skipped: local development server without authentication");
    }
    api.authenticate();
    return CheckResult.passed(
        TOKEN_CHECK, "token issued to service principal " + settings.clientId() + " by " + tokenEndpoint.get());
  }

  /** Step 2: the catalog and the schema exist and are visible. */
  public CheckResult checkCatalogAndSchema() {
    namespace.check();
    return CheckResult.passed(NAMESPACE_CHECK, "catalog " + settings.catalog() + " and schema " + namespace.fullSchemaName() + " found");
  }

  /** Step 3: USE CATALOG, USE SCHEMA, CREATE EXTERNAL TABLE, EXTERNAL USE SCHEMA, when readable. */
  public CheckResult checkPermissions() {
    return new PermissionCheck(settings, api, namespace).run();
  }

  /** Step 4: the metastore allows external engines, when it reports the flag. */
  public CheckResult checkExternalAccess() {
    return new ExternalAccessCheck(api, failures).run();
  }

  /**
   * All steps in order. Stops at the first failure, which is reported with what to fix; the later
   * steps would only fail for the same reason.
   */
  public List<CheckResult> checkConnection() {
    List<CheckResult> results = new ArrayList<>();
    List<Map.Entry<String, Supplier<CheckResult>>> steps =
        List.of(
            Map.entry(TOKEN_CHECK, this::checkToken),
            Map.entry(NAMESPACE_CHECK, this::checkCatalogAndSchema),
            Map.entry(PermissionCheck.NAME, this::checkPermissions),
            Map.entry(ExternalAccessCheck.NAME, this::checkExternalAccess));
    for (Map.Entry<String, Supplier<CheckResult>> step : steps) {
      try {
        results.add(step.getValue().get());
      } catch (LakesinkException e) {
        results.add(CheckResult.failed(step.getKey(), e.getMessage()));
        return results;
      }
    }
    if (settings.hasWarehouse()) {
      results.addAll(checkWarehouse());
    }
    return results;
  }

  /**
   * The SQL warehouse steps (with {@code catalog.warehouse_id}): CAN USE, the SQL entitlement,
   * the create privilege on every schema a current-state object goes to, serverless for
   * materialized views. A missing grant only warns.
   */
  public List<CheckResult> checkWarehouse() {
    java.util.Set<String> schemas = new java.util.TreeSet<>();
    schemas.add(settings.schema());
    currentStates.values().stream().filter(s -> s.options().build() && s.options().schema() != null)
        .forEach(s -> schemas.add(s.options().schema()));
    return new WarehouseCheck(settings, warehouse, statements, new PermissionCheck(settings, api, namespace)).run(schemas);
  }

  @Override
  public String toString() {
    return describe();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
