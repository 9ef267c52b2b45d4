package io.lakesink.iceberg.rest;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
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
import org.apache.iceberg.rest.RESTUtil;
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
 * its guarded drop are exercised. Every request is recorded (its line, Authorization header and,
 * for the token endpoint, its form) for the tests to look at.
 *
 * <p>Switchable, as real catalogs behave: a required bearer token ({@link #requireToken}: any
 * other request is refused with 401 and a spec-shaped ErrorResponse); OAuth2 client credentials
 * ({@link #requireClient}: the fixture's {@code POST /v1/oauth/tokens} serves the token, the
 * filter refuses a wrong client id or secret with 401 {@code invalid_client} and requires the
 * fixture's token, {@code client-credentials-token:sub=<client id>}, on everything else); a
 * prefix ({@link #prefix}: advertised in {@code /v1/config}'s overrides, stripped here before the
 * fixture, which routes only un-prefixed paths, and required: an un-prefixed call is refused).
 */
public final class RestCatalogServer implements AutoCloseable {
  private static final Pattern UNREGISTER = Pattern.compile("^/v1/namespaces/([^/]+)/tables/([^/]+)/unregister$");
  static final String TOKENS = "/v1/oauth/tokens";
  static final String CONFIG = "/v1/config";

  /** One request as the server received it (before the prefix is stripped). */
  public record Request(String line, String authorization, Map<String, String> form) {}

  private final JdbcCatalog backend;
  private final Server server;
  private volatile boolean advertiseUnregister;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private volatile String requiredToken;
  private volatile String clientId;
  private volatile String clientSecret;
  private volatile String prefix;
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
        LakesinkFixtureAdapter.of(backend, props, () -> this.advertiseUnregister, () -> this.prefix))), "/*");
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

  /** From now on every request needs {@code Authorization: Bearer <token>}; null: none needed. */
  public void requireToken(String token) {
    this.requiredToken = token;
  }

  /**
   * From now on the token endpoint accepts only this client id and secret (else 401 {@code
   * invalid_client}), and every other request needs the token the fixture issues to that client.
   */
  public void requireClient(String id, String secret) {
    this.clientId = id;
    this.clientSecret = secret;
    this.requiredToken = "client-credentials-token:sub=" + id;
  }

  /** The prefix {@code /v1/config} advertises and every other route must carry; null: none. */
  public void prefix(String prefix) {
    this.prefix = prefix;
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
    return requests.stream().map(Request::line).toList();
  }

  /** Every request so far, with its Authorization header and token-endpoint form. */
  public List<Request> received() {
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

  /**
   * The unregister route the fixture lacks, authentication and the prefix; every other request
   * passes to the fixture under the read lock.
   */
  private final class UnregisterFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
      HttpServletRequest request = (HttpServletRequest) req;
      HttpServletResponse response = (HttpServletResponse) res;
      String query = request.getQueryString();
      String uri = request.getRequestURI();
      byte[] body = null;
      Map<String, String> form = Map.of();
      if (TOKENS.equals(uri)) {
        // Read here to check the client; the fixture reads it again from the wrapper.
        body = request.getInputStream().readAllBytes();
        form = RESTUtil.decodeFormData(new String(body, StandardCharsets.UTF_8));
      }
      requests.add(new Request(request.getMethod() + " " + uri + (query == null ? "" : "?" + query),
          request.getHeader("Authorization"), form));

      if (TOKENS.equals(uri)) {
        if (clientId != null && (!clientId.equals(form.get("client_id")) || !clientSecret.equals(form.get("client_secret")))) {
          oauthError(response, "invalid_client", "Client authentication failed");
          return;
        }
      } else if (requiredToken != null && !("Bearer " + requiredToken).equals(request.getHeader("Authorization"))) {
        error(response, 401, "NotAuthorizedException", "Authentication required: a valid bearer token is missing");
        return;
      }

      String path = uri;
      String p = prefix;
      if (p != null && !CONFIG.equals(uri) && !TOKENS.equals(uri)) {
        String prefixed = "/v1/" + p + "/";
        if (!uri.startsWith(prefixed)) {
          error(response, 400, "BadRequestException", "This catalog's routes are under /v1/" + p + "/, not " + uri);
          return;
        }
        path = "/v1/" + uri.substring(prefixed.length());
      }

      Matcher m = UNREGISTER.matcher(path);
      if ("POST".equals(request.getMethod()) && m.matches()) {
        lock.writeLock().lock();
        try {
          unregister(decode(m.group(1)), decode(m.group(2)), response);
        } finally {
          lock.writeLock().unlock();
        }
        return;
      }
      HttpServletRequest passed = path.equals(uri) && body == null ? request : new Rewritten(request, path, body);
      lock.readLock().lock();
      try {
        chain.doFilter(passed, res);
      } finally {
        lock.readLock().unlock();
      }
    }

    private static void error(HttpServletResponse response, int status, String type, String message) throws IOException {
      response.setStatus(status);
      response.setContentType("application/json");
      response.getWriter().write(ErrorResponseParser.toJson(
          ErrorResponse.builder().responseCode(status).withType(type).withMessage(message).build()));
    }

    /** RFC 6749's error body, as an OAuth2 token endpoint answers. */
    private static void oauthError(HttpServletResponse response, String error, String description) throws IOException {
      response.setStatus(401);
      response.setContentType("application/json");
      response.getWriter().write("{\"error\":\"" + error + "\",\"error_description\":\"" + description + "\"}");
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

  /** The request with its prefix stripped and, when read by the filter, its body to read again. */
  private static final class Rewritten extends HttpServletRequestWrapper {
    private final String uri;
    private final byte[] body;

    Rewritten(HttpServletRequest request, String uri, byte[] body) {
      super(request);
      this.uri = uri;
      this.body = body;
    }

    @Override
    public String getRequestURI() {
      return uri;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (body == null) {
        return super.getInputStream();
      }
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new UnsupportedOperationException();
        }
      };
    }

    @Override
    public BufferedReader getReader() throws IOException {
      return body == null ? super.getReader() : new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
    }

    @Override
    public Map<String, String[]> getParameterMap() {
      // The form was read here already: the fixture takes only the query's parameters from this.
      if (body == null) {
        return super.getParameterMap();
      }
      Map<String, String[]> query = new HashMap<>();
      String q = getQueryString();
      if (q != null) {
        RESTUtil.decodeFormData(q).forEach((k, v) -> query.put(k, new String[] {v}));
      }
      return query;
    }
  }
}
