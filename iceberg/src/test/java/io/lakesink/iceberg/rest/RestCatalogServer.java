package io.lakesink.iceberg.rest;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.LakesinkFixtureAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.LoadTableResponseParser;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Iceberg REST catalog for tests: the iceberg-open-api test fixtures' adapter (what its
 * {@code RESTCatalogServer} serves) over a JDBC catalog on SQLite, on Jetty at a free port. The
 * fixture has no unregister route, so a servlet filter adds one as the spec describes it (load
 * the table, remember its metadata location, drop it without purge, answer {@code
 * {"metadata-location","metadata"}}), under a lock that keeps every other request out meanwhile;
 * whether {@code GET /v1/config} lists it is switchable, so that both lakesink's unregister and
 * its guarded drop are exercised. Every request line is recorded for the tests to look at.
 */
public final class RestCatalogServer implements AutoCloseable {
  private static final Pattern UNREGISTER = Pattern.compile("^/v1/(?:.+/)?namespaces/([^/]+)/tables/([^/]+)/unregister$");

  private final JdbcCatalog backend;
  private final Server server;
  private volatile boolean advertiseUnregister;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger unregistered = new AtomicInteger();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  private RestCatalogServer(Path dir, boolean advertiseUnregister, Map<String, String> backendProperties) throws Exception {
    this.advertiseUnregister = advertiseUnregister;
    Map<String, String> props = new HashMap<>(backendProperties);
    props.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put("jdbc.schema-version", "V1");
    props.put("jdbc.strict-mode", "true"); // a table in a namespace that does not exist is refused, as real catalogs do
    props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toString());
    this.backend = (JdbcCatalog) CatalogUtil.buildIcebergCatalog("rest_backend", props, new Configuration());
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(
        LakesinkFixtureAdapter.of(backend, props, () -> this.advertiseUnregister))), "/*");
    context.addFilter(new FilterHolder(new UnregisterFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    this.server = new Server(0);
    server.setHandler(context);
    server.start();
  }

  /** Started, with its SQLite file and warehouse under {@code dir}. */
  public static RestCatalogServer start(Path dir, boolean advertiseUnregister) throws Exception {
    return new RestCatalogServer(dir, advertiseUnregister, Map.of());
  }

  /**
   * @param backendProperties added to the JDBC catalog's properties, e.g. {@code io-impl} for a
   *     server whose tables are not on the local disk
   */
  public static RestCatalogServer start(Path dir, boolean advertiseUnregister, Map<String, String> backendProperties)
      throws Exception {
    return new RestCatalogServer(dir, advertiseUnregister, backendProperties);
  }

  public String uri() {
    return "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  public void advertiseUnregister(boolean on) {
    this.advertiseUnregister = on;
  }

  public JdbcCatalog backend() {
    return backend;
  }

  public void createNamespace(String namespace) {
    ((SupportsNamespaces) backend).createNamespace(Namespace.of(namespace.split("\\.")));
  }

  /** Where the catalog's table {@code ns.table} is; null when it has none. */
  public String location(String entry) {
    try {
      return backend.loadTable(TableIdentifier.parse(entry)).location();
    } catch (NoSuchTableException e) {
      return null;
    }
  }

  /** The metadata file the catalog's table {@code ns.table} points at; null when it has none. */
  public String metadataLocation(String entry) {
    try {
      return ((HasTableOperations) backend.loadTable(TableIdentifier.parse(entry))).operations().current().metadataFileLocation();
    } catch (NoSuchTableException e) {
      return null;
    }
  }

  /** Every request so far, as {@code METHOD /path?query}. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** How many tables the unregister route released. */
  public int unregistered() {
    return unregistered.get();
  }

  @Override
  public void close() throws Exception {
    server.stop();
    backend.close();
  }

  /** The unregister route the fixture lacks; every other request passes to it under the read lock. */
  private final class UnregisterFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
      HttpServletRequest request = (HttpServletRequest) req;
      HttpServletResponse response = (HttpServletResponse) res;
      String query = request.getQueryString();
      requests.add(request.getMethod() + " " + request.getRequestURI() + (query == null ? "" : "?" + query));
      Matcher m = UNREGISTER.matcher(request.getRequestURI());
      if ("POST".equals(request.getMethod()) && m.matches()) {
        lock.writeLock().lock();
        try {
          unregister(decode(m.group(1)), decode(m.group(2)), response);
        } finally {
          lock.writeLock().unlock();
        }
        return;
      }
      lock.readLock().lock();
      try {
        chain.doFilter(req, res);
      } finally {
        lock.readLock().unlock();
      }
    }

    private static String decode(String s) {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private void unregister(String namespace, String table, HttpServletResponse response) throws IOException {
      TableIdentifier id = TableIdentifier.of(Namespace.of(namespace.split("\u001f")), table);
      response.setContentType("application/json");
      if (!backend.tableExists(id)) {
        response.setStatus(404);
        response.getWriter().write(ErrorResponseParser.toJson(ErrorResponse.builder().responseCode(404)
            .withType("NoSuchTableException").withMessage("Table does not exist: " + id).build()));
        return;
      }
      TableMetadata current = ((HasTableOperations) backend.loadTable(id)).operations().current();
      backend.dropTable(id, false); // the files stay
      unregistered.incrementAndGet();
      response.setStatus(200);
      response.getWriter().write(LoadTableResponseParser.toJson(LoadTableResponse.builder().withTableMetadata(current).build()));
    }
  }
}
