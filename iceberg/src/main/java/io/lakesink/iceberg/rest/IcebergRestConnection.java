package io.lakesink.iceberg.rest;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.ErrorHandlers;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTSessionCatalog;
import org.apache.iceberg.rest.RESTClient;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.auth.AuthManager;
import org.apache.iceberg.rest.auth.AuthManagers;
import org.apache.iceberg.rest.auth.AuthSession;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * lakesink's connection to one Iceberg REST catalog. Loading and registering tables go through
 * Iceberg's own REST catalog client (its HTTP client, OAuth2 token handling and the prefix from
 * {@code GET /v1/config}). Iceberg Java has no unregister, so that one call — and the guarded
 * drop used where a server does not advertise it — go through Iceberg's {@link HTTPClient} with
 * the same configuration and auth manager, on paths from the same {@link ResourcePaths}.
 *
 * <p>Connects on first use, so a catalog that is down at start is a retryable problem of the
 * tables that need it, not a worker that cannot start.
 */
public final class IcebergRestConnection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(IcebergRestConnection.class);
  /** The spec's unregister route (added in 2026); called only when {@code /v1/config} lists it. */
  static final Endpoint V1_UNREGISTER_TABLE = Endpoint.create("POST", ResourcePaths.V1_TABLE + "/unregister");

  private final IcebergRestSettings settings;
  private final Configuration hadoop;
  private final FileIO files;
  // Set by connect(), under this object's lock.
  private RESTSessionCatalog sessionCatalog;
  private Catalog catalog;
  private HTTPClient http;
  private AuthManager auth;
  private AuthSession session;
  private ResourcePaths paths;
  private List<Endpoint> endpoints;

  /**
   * @param files the file access tables of this catalog are read and written with (manifests,
   *     delete files): lakesink's own storage, with its credentials, rather than whatever FileIO the
   *     catalog's settings name, which cannot reach Azure without Hadoop's Azure connector
   */
  public IcebergRestConnection(IcebergRestSettings settings, Configuration hadoop, FileIO files) {
    this.settings = settings;
    this.hadoop = hadoop;
    this.files = files;
  }

  public IcebergRestSettings settings() {
    return settings;
  }

  /** The catalog's table {@code id}; empty when it has none. */
  public Optional<Table> load(TableIdentifier id) {
    Catalog c = catalog();
    try {
      return Optional.of(c.loadTable(id));
    } catch (NoSuchTableException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      throw IcebergRestErrors.translate(settings, "load table " + id, e);
    }
  }

  public boolean namespaceExists(org.apache.iceberg.catalog.Namespace namespace) {
    Catalog c = catalog();
    try {
      return ((SupportsNamespaces) c).namespaceExists(namespace);
    } catch (RuntimeException e) {
      throw IcebergRestErrors.translate(settings, "look up namespace " + namespace, e);
    }
  }

  /** Where the catalog's table {@code id} is; empty when it has none. */
  public Optional<String> location(TableIdentifier id) {
    return load(id).map(Table::location);
  }

  /**
   * Registers {@code metadataLocation} as table {@code id} ({@code overwrite} false). A table the
   * catalog already holds under that name is accepted only when it is at {@code location}.
   */
  public void register(TableIdentifier id, String metadataLocation, String location) {
    Catalog c = catalog();
    try {
      c.registerTable(id, metadataLocation);
      log.info("Registered {} in {}: it points at {}", id, settings.describe(), metadataLocation);
    } catch (AlreadyExistsException e) {
      String theirs = location(id).orElse(null);
      if (theirs == null) {
        // Gone again between the two calls: the next attempt registers it.
        throw IcebergRestErrors.translate(settings, "register " + id, new org.apache.iceberg.exceptions.CommitFailedException(
            "table %s was dropped while it was being registered", id));
      }
      if (!Locations.same(theirs, location)) {
        throw IcebergRestErrors.nameTaken(settings, id.toString(), theirs, location);
      }
      log.info("{} is registered in {} at this table's location already", id, settings.describe());
    } catch (RuntimeException e) {
      throw IcebergRestErrors.translate(settings, "register " + id, e);
    }
  }

  /**
   * Releases table {@code id} when it is at {@code location}, keeping every file: the spec's
   * unregister where the server advertises it, else a drop with {@code purgeRequested=false}
   * sent explicitly (some servers purge when the parameter is absent, and Iceberg Java's {@code
   * dropTable} omits it). Nothing when the catalog has no such table.
   *
   * @return the metadata location the catalog held last, when it said (unregister does)
   */
  public Optional<String> unregister(TableIdentifier id, String location) {
    Optional<String> theirs = location(id);
    if (theirs.isEmpty()) {
      return Optional.empty();
    }
    if (!Locations.same(theirs.get(), location)) {
      throw IcebergRestErrors.nameTaken(settings, id.toString(), theirs.get(), location);
    }
    RESTClient client = client();
    try {
      if (advertisesUnregister()) {
        LoadTableResponse released = client.post(paths.table(id) + "/unregister", null, LoadTableResponse.class, Map.of(),
            ErrorHandlers.tableErrorHandler());
        String last = released == null ? null : released.metadataLocation();
        log.info("Unregistered {} from {} (its files at {} stay; last metadata {})", id, settings.describe(), location, last);
        return Optional.ofNullable(last);
      }
      client.delete(paths.table(id), Map.of("purgeRequested", "false"), null, Map.of(), ErrorHandlers.tableErrorHandler());
      log.info("Dropped {} from {} without purge (the server does not advertise unregister; its files at {} stay)", id,
          settings.describe(), location);
      return Optional.empty();
    } catch (NoSuchTableException e) {
      return Optional.empty(); // released meanwhile: what was asked for
    } catch (RuntimeException e) {
      throw IcebergRestErrors.translate(settings, "unregister " + id, e);
    }
  }

  /** Whether the server's {@code /v1/config} lists the unregister route. */
  public boolean advertisesUnregister() {
    catalog();
    synchronized (this) {
      return endpoints.contains(V1_UNREGISTER_TABLE);
    }
  }

  private synchronized RESTClient client() {
    catalog();
    return http.withAuthSession(session);
  }

  /** Iceberg's REST catalog, connected on first use. */
  synchronized Catalog catalog() {
    if (catalog == null) {
      connect();
    }
    return catalog;
  }

  private void connect() {
    Map<String, String> props = settings.clientProperties();
    AuthManager manager = AuthManagers.loadAuthManager(settings.name(), props);
    ConfigResponse config;
    HTTPClient raw = null;
    RESTSessionCatalog rest = null;
    try {
      try (HTTPClient init = builder(props).build(); AuthSession initSession = manager.initSession(init, props)) {
        Map<String, String> query = new HashMap<>();
        if (settings.warehouse() != null) {
          query.put(CatalogProperties.WAREHOUSE_LOCATION, settings.warehouse());
        }
        config = init.withAuthSession(initSession).get(ResourcePaths.config(), query, ConfigResponse.class,
            RESTUtil.configHeaders(props), ErrorHandlers.configErrorHandler());
      }
      Map<String, String> merged = config.merge(props);
      raw = builder(merged).build();
      AuthSession catalogSession = manager.catalogSession(raw, merged);
      // What RESTCatalog builds, with lakesink's file access for every table (the documented
      // extension point: RESTCatalog offers no other way to set a FileIO instance).
      rest = new RESTSessionCatalog(
          conf -> HTTPClient.builder(conf).uri(conf.get(CatalogProperties.URI)).withHeaders(RESTUtil.configHeaders(conf)).build(),
          (context, tableProperties) -> files);
      rest.setConf(hadoop);
      rest.initialize(settings.name(), props);
      this.http = raw;
      this.auth = manager;
      this.session = catalogSession;
      this.paths = ResourcePaths.forCatalogProperties(merged);
      this.endpoints = config.endpoints() == null ? List.of() : List.copyOf(config.endpoints());
      this.sessionCatalog = rest;
      this.catalog = rest.asCatalog(SessionCatalog.SessionContext.createEmpty());
      log.info("Connected to {}; unregister {}", settings.describe(),
          endpoints.contains(V1_UNREGISTER_TABLE) ? "advertised" : "not advertised (hand-offs drop without purge)");
    } catch (IOException | RuntimeException e) {
      closeQuietly(rest);
      closeQuietly(raw);
      closeQuietly(manager);
      RuntimeException cause = e instanceof RuntimeException r ? r : new java.io.UncheckedIOException((IOException) e);
      throw IcebergRestErrors.translate(settings, "connect", cause);
    }
  }

  private static HTTPClient.Builder builder(Map<String, String> props) {
    return HTTPClient.builder(props).uri(props.get(CatalogProperties.URI)).withHeaders(RESTUtil.configHeaders(props));
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      log.debug("closing {}", c.getClass().getSimpleName(), e);
    }
  }

  @Override
  public synchronized void close() {
    closeQuietly(sessionCatalog);
    closeQuietly(session);
    closeQuietly(http);
    closeQuietly(auth);
    catalog = null;
    sessionCatalog = null;
  }

  @Override
  public String toString() {
    return "IcebergRestConnection[" + settings + "]";
  }
}
