package io.lakesink.storage.azure.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * A plain-HTTP forwarder in front of Azurite that records every request: it stands for a private
 * endpoint ({@code storage.endpoint}) or for the public host that must see nothing. It can also
 * inject faults on matching requests, once each: answer 5xx after forwarding (the write landed,
 * the client does not know) or answer with a canned Azure error without forwarding.
 */
public final class RecordingProxy implements AutoCloseable {
  /** One request as received. */
  public record Request(String method, String path, String query, String host) {
    public String pathAndQuery() {
      return query == null ? path : path + "?" + query;
    }
  }

  private record Fault(Predicate<Request> matches, int status, String errorCode, boolean forwardFirst) {}

  // Not copied: the JDK client sets these itself (or refuses them). Date is copied: the shared
  // key signature covers it.
  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "keep-alive",
          "transfer-encoding", "te", "trailer", "proxy-connection");

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final String target;
  private final HttpClient client;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();

  private RecordingProxy(String target) throws IOException {
    this.target = target.replaceAll("/+$", "");
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .executor(executor)
            .build();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** Forwards to {@code target}, e.g. {@link Azurite#baseUrl()} (HTTP only). */
  public static RecordingProxy start(String target) {
    try {
      return new RecordingProxy(target);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  public void clear() {
    requests.clear();
  }

  /** The next matching request reaches Azurite, but the client gets {@code status} instead. */
  public void failAfterForwarding(Predicate<Request> matches, int status) {
    faults.add(new Fault(matches, status, "InternalError", true));
  }

  /** The next matching request is answered with an Azure error and not forwarded. */
  public void respondWithError(Predicate<Request> matches, int status, String errorCode) {
    faults.add(new Fault(matches, status, errorCode, false));
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      URI uri = exchange.getRequestURI();
      Request request =
          new Request(
              exchange.getRequestMethod(),
              uri.getRawPath(),
              uri.getRawQuery(),
              exchange.getRequestHeaders().getFirst("Host"));
      requests.add(request);
      byte[] body = exchange.getRequestBody().readAllBytes();
      Fault fault = takeFault(request);
      if (fault != null && !fault.forwardFirst()) {
        replyError(exchange, fault);
        return;
      }
      HttpResponse<byte[]> response = forward(exchange, request, body);
      if (fault != null) {
        replyError(exchange, fault);
        return;
      }
      copyResponse(exchange, request, response);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized Fault takeFault(Request request) {
    for (Fault fault : faults) {
      if (fault.matches().test(request)) {
        faults.remove(fault);
        return fault;
      }
    }
    return null;
  }

  private HttpResponse<byte[]> forward(HttpExchange exchange, Request request, byte[] body)
      throws IOException, InterruptedException {
    HttpRequest.Builder out =
        HttpRequest.newBuilder(URI.create(target + request.pathAndQuery()))
            .timeout(Duration.ofSeconds(60))
            .method(
                request.method(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
      if (HOP_BY_HOP.contains(header.getKey().toLowerCase())) continue;
      for (String value : header.getValue()) {
        out.header(header.getKey(), value);
      }
    }
    return client.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void copyResponse(HttpExchange exchange, Request request, HttpResponse<byte[]> response)
      throws IOException {
    response.headers().map().forEach((name, values) -> {
      if (!HOP_BY_HOP.contains(name.toLowerCase()) && !name.equalsIgnoreCase("date") && !name.startsWith(":")) {
        exchange.getResponseHeaders().put(name, values);
      }
    });
    byte[] body = response.body();
    if ("HEAD".equals(request.method())) {
      // A HEAD answer carries the blob's size in Content-Length but no body.
      response.headers().firstValue("content-length")
          .ifPresent(v -> exchange.getResponseHeaders().set("Content-Length", v));
      exchange.sendResponseHeaders(response.statusCode(), -1);
      return;
    }
    exchange.sendResponseHeaders(response.statusCode(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }

  private static void replyError(HttpExchange exchange, Fault fault) throws IOException {
    byte[] body =
        ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + fault.errorCode()
                + "</Code><Message>Injected by the test proxy.</Message></Error>")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/xml");
    exchange.getResponseHeaders().set("x-ms-error-code", fault.errorCode());
    if ("HEAD".equals(exchange.getRequestMethod())) {
      exchange.sendResponseHeaders(fault.status(), -1);
      return;
    }
    exchange.sendResponseHeaders(fault.status(), body.length);
    exchange.getResponseBody().write(body);
  }
}
