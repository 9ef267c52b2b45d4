package io.lakesink.kafka.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.Schema;

/**
 * An in-process schema registry speaking the part of the Confluent REST API lakesink and its tests
 * use: {@code POST /subjects/{s}/versions}, {@code GET /schemas/ids/{id}},
 * {@code GET /subjects/{s}/versions/latest}. It can be told to fail (an HTTP status, or hanging
 * without an answer), to require basic auth, and counts the requests it gets.
 */
public final class TestSchemaRegistry implements AutoCloseable {
  static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

  private final ObjectMapper mapper = new ObjectMapper();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Map<Integer, String> schemas = new ConcurrentHashMap<>();
  private final Map<String, List<Integer>> subjects = new LinkedHashMap<>();
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private volatile int failWith; // 0: answer normally
  private volatile CountDownLatch hang; // non-null: hold every request until released
  private volatile boolean answerWhenReleased; // after a hold: answer (true) or close without answering
  private volatile String requiredAuthorization;
  private final SSLContext clientSsl; // for register(): trusts the server's own certificate

  private TestSchemaRegistry(HttpServer server, SSLContext clientSsl) {
    this.server = server;
    this.clientSsl = clientSsl;
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public static TestSchemaRegistry start() throws IOException {
    return new TestSchemaRegistry(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
  }

  /** Serves HTTPS with the given PKCS12 key store (a classpath resource). */
  public static TestSchemaRegistry startHttps(String keyStoreResource, String password) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = TestSchemaRegistry.class.getResourceAsStream(keyStoreResource)) {
      ks.load(in, password.toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, password.toCharArray());
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), null, null);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext clientSsl = SSLContext.getInstance("TLS");
    clientSsl.init(null, tmf.getTrustManagers(), null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ssl));
    return new TestSchemaRegistry(server, clientSsl);
  }

  public String url() {
    String scheme = server instanceof HttpsServer ? "https" : "http";
    return scheme + "://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Answer every request with this HTTP status (and a Confluent error body) until {@link #up()}. */
  public void failWith(int status) {
    this.failWith = status;
  }

  /** Hold every request without answering until {@link #up()}, then close it unanswered. */
  public void hang() {
    this.answerWhenReleased = false;
    this.hang = new CountDownLatch(1);
  }

  /** Hold every request until {@link #up()}, then answer it: a slow registry. */
  public void holdAnswers() {
    this.answerWhenReleased = true;
    this.hang = new CountDownLatch(1);
  }

  /** Answer normally again. */
  public void up() {
    failWith = 0;
    CountDownLatch h = hang;
    hang = null;
    if (h != null) {
      h.countDown();
    }
  }

  public void requireBasicAuth(String user, String password) {
    requiredAuthorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Requests received for a path, e.g. {@code /schemas/ids/3}. */
  public int requests(String path) {
    AtomicInteger n = requests.get(path);
    return n == null ? 0 : n.get();
  }

  public int totalRequests() {
    return total.get();
  }

  /** Registers a schema under a subject through the REST API, as a producer's serializer would. */
  public int register(String subject, Schema schema) throws IOException, InterruptedException {
    HttpClient client = clientSsl == null ? HttpClient.newHttpClient() : HttpClient.newBuilder().sslContext(clientSsl).build();
    ObjectNode body = mapper.createObjectNode().put("schema", schema.toString());
    HttpResponse<String> r = client.send(
        HttpRequest.newBuilder(URI.create(url() + "/subjects/" + subject + "/versions"))
            .header("Content-Type", CONTENT_TYPE)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("register failed: " + r.statusCode() + " " + r.body());
    }
    return mapper.readTree(r.body()).get("id").asInt();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      // Whether this request fails is decided before it is counted: a test that ends an outage
      // once it has counted N requests (up() when totalRequests() reaches N) must not have the
      // N-th answered normally by a handler that read failWith after the up().
      int failing = failWith;
      requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
      total.incrementAndGet();
      CountDownLatch h = hang;
      if (h != null) {
        boolean answer = answerWhenReleased;
        try {
          h.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        if (!answer) {
          return; // the client gave up long ago: close without an answer
        }
      }
      if (failing != 0) {
        error(ex, failing, failing * 100 + 1, "Internal Server Error (told to fail)");
        return;
      }
      String auth = requiredAuthorization;
      if (auth != null && !auth.equals(ex.getRequestHeaders().getFirst("Authorization"))) {
        error(ex, 401, 40101, "Unauthorized");
        return;
      }
      String[] parts = path.split("/");
      String method = ex.getRequestMethod();
      if (method.equals("GET") && parts.length == 4 && parts[1].equals("schemas") && parts[2].equals("ids")) {
        String schema = schemas.get(parseInt(parts[3]));
        if (schema == null) {
          error(ex, 404, 40403, "Schema " + parts[3] + " not found");
        } else {
          json(ex, 200, mapper.createObjectNode().put("schema", schema));
        }
      } else if (method.equals("POST") && parts.length == 4 && parts[1].equals("subjects") && parts[3].equals("versions")) {
        String subject = URLDecoder.decode(parts[2], StandardCharsets.UTF_8);
        JsonNode body = mapper.readTree(ex.getRequestBody());
        String text = body.path("schema").asText(null);
        try {
          text = new Schema.Parser().parse(text).toString();
        } catch (RuntimeException e) {
          error(ex, 422, 42201, "Invalid schema: " + e.getMessage());
          return;
        }
        int id = idOf(text);
        synchronized (subjects) {
          List<Integer> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
          if (!versions.contains(id)) {
            versions.add(id);
          }
        }
        json(ex, 200, mapper.createObjectNode().put("id", id));
      } else if (method.equals("GET") && parts.length == 5 && parts[1].equals("subjects") && parts[3].equals("versions")
          && parts[4].equals("latest")) {
        String subject = URLDecoder.decode(parts[2], StandardCharsets.UTF_8);
        List<Integer> versions;
        synchronized (subjects) {
          versions = subjects.get(subject);
          versions = versions == null ? null : List.copyOf(versions);
        }
        if (versions == null) {
          error(ex, 404, 40401, "Subject '" + subject + "' not found.");
        } else {
          int id = versions.get(versions.size() - 1);
          json(ex, 200, mapper.createObjectNode().put("subject", subject).put("version", versions.size()).put("id", id)
              .put("schema", schemas.get(id)));
        }
      } else {
        error(ex, 404, 404, "HTTP 404 Not Found");
      }
    }
  }

  private synchronized int idOf(String schema) {
    for (Map.Entry<Integer, String> e : schemas.entrySet()) {
      if (e.getValue().equals(schema)) {
        return e.getKey();
      }
    }
    int id = nextId.getAndIncrement();
    schemas.put(id, schema);
    return id;
  }

  private static int parseInt(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void error(HttpExchange ex, int status, int code, String message) throws IOException {
    json(ex, status, mapper.createObjectNode().put("error_code", code).put("message", message));
  }

  private void json(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] bytes = mapper.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    up();
    server.stop(0);
    executor.shutdownNow();
  }
}
