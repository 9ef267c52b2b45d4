package io.lakesink.storage.azure.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local HTTPS stand-in for the Microsoft Entra token endpoint: {@code POST
 * /<tenant>/oauth2/v2.0/token} with the client-credentials grant. It checks tenant, client id and
 * secret like Entra does and answers with a bearer token Azurite's {@code --oauth basic} accepts
 * (issuer https://sts.windows.net/<tenant>/, audience https://storage.azure.com; unsigned, which
 * Azurite does not check). Wrong credentials get Entra's 401 invalid_client answer.
 */
public final class FakeEntra implements AutoCloseable {
  private final HttpsServer server;
  private final String tenantId;
  private final String clientId;
  private final String clientSecret;
  private final AtomicInteger tokensIssued = new AtomicInteger();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final ExecutorService executor = Executors.newCachedThreadPool();

  private FakeEntra(TestTls tls, String tenantId, String clientId, String clientSecret)
      throws IOException {
    this.tenantId = tenantId;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls.serverContext()));
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  public static FakeEntra start(TestTls tls, String tenantId, String clientId, String clientSecret) {
    try {
      return new FakeEntra(tls, tenantId, clientId, clientSecret);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Value for storage.authority_host. */
  public String authorityHost() {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  public int tokensIssued() {
    return tokensIssued.get();
  }

  /** Method and path of every request received. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      requests.add(exchange.getRequestMethod() + " " + path);
      if (!"POST".equals(exchange.getRequestMethod()) || !path.endsWith("/oauth2/v2.0/token")) {
        reply(exchange, 404, "{\"error\":\"not_found\"}");
        return;
      }
      String tenant = path.substring(1, path.indexOf('/', 1));
      Map<String, String> form = parseForm(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      if (!tenant.equals(tenantId)) {
        reply(exchange, 400, error("invalid_request", 90002, "Tenant '" + tenant + "' not found."));
      } else if (!clientId.equals(form.get("client_id"))) {
        reply(exchange, 400, error("unauthorized_client", 700016,
            "Application with identifier '" + form.get("client_id") + "' was not found in the directory."));
      } else if (!clientSecret.equals(form.get("client_secret"))) {
        reply(exchange, 401, error("invalid_client", 7000215,
            "Invalid client secret provided. Ensure the secret being sent in the request is the"
                + " client secret value, not the client secret ID."));
      } else if (!"client_credentials".equals(form.get("grant_type"))
          || !String.valueOf(form.get("scope")).contains("https://storage.azure.com/.default")) {
        reply(exchange, 400, error("invalid_scope", 70011, "Unexpected grant or scope."));
      } else {
        tokensIssued.incrementAndGet();
        reply(exchange, 200,
            "{\"token_type\":\"Bearer\",\"expires_in\":3599,\"ext_expires_in\":3599,"
                + "\"access_token\":\"" + jwt() + "\"}");
      }
    }
  }

  private String jwt() {
    long now = Instant.now().getEpochSecond();
    String header = "{\"typ\":\"JWT\",\"alg\":\"RS256\"}";
    String payload =
        "{\"aud\":\"https://storage.azure.com\",\"iss\":\"https://sts.windows.net/" + tenantId + "/\","
            + "\"iat\":" + (now - 60) + ",\"nbf\":" + (now - 60) + ",\"exp\":" + (now + 3600) + ","
            + "\"appid\":\"" + clientId + "\",\"oid\":\"" + UUID.randomUUID() + "\","
            + "\"tid\":\"" + tenantId + "\"}";
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString("unsigned".getBytes(StandardCharsets.UTF_8));
  }

  private static String error(String error, int code, String description) {
    return "{\"error\":\"" + error + "\",\"error_description\":\"AADSTS" + code + ": " + description
        + "\",\"error_codes\":[" + code + "],\"timestamp\":\"" + Instant.now() + "\","
        + "\"trace_id\":\"" + UUID.randomUUID() + "\",\"correlation_id\":\"" + UUID.randomUUID() + "\"}";
  }

  private static Map<String, String> parseForm(String body) {
    Map<String, String> form = new HashMap<>();
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        form.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return form;
  }

  private static void reply(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }
}
