package io.lakesink.app.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.lakesink.kafka.WorkerStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * {@code /} (the {@link StatusPage} for a browser), {@code /health}, {@code /ready}, {@code /status}
 * and {@code /metrics} over the JDK's HTTP server: five read-only pages need no web framework.
 * Everything served comes from the worker's status snapshot and the metrics registry, neither of
 * which holds a secret. It binds to the configured {@code status.host} only.
 */
public final class StatusServer implements AutoCloseable {
  /** A worker whose loop has not turned for this long is reported unhealthy. */
  static final Duration STALE = Duration.ofMinutes(2);
  /**
   * Requests served at once. The JDK server reads a request's headers on the executor's thread,
   * so with one thread a client that sends half a request blocks every probe behind it.
   */
  static final int THREADS = 4;
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).enable(SerializationFeature.INDENT_OUTPUT);

  private final HttpServer server;
  private final ExecutorService pool;
  private final Supplier<WorkerStatus> status;
  private final WorkerMetrics metrics;
  private final Clock clock;
  private final StatusPage page;

  private StatusServer(HttpServer server, ExecutorService pool, Supplier<WorkerStatus> status, WorkerMetrics metrics, Clock clock,
      StatusPage page) {
    this.server = server;
    this.pool = pool;
    this.status = status;
    this.metrics = metrics;
    this.clock = clock;
    this.page = page;
  }

  public static StatusServer start(String host, int port, Supplier<WorkerStatus> status, WorkerMetrics metrics) {
    return start(host, port, status, metrics, null);
  }

  /** @param configFile the worker's configuration file, named by the page's release commands; null if none */
  public static StatusServer start(String host, int port, Supplier<WorkerStatus> status, WorkerMetrics metrics,
      java.nio.file.Path configFile) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
      AtomicInteger n = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
        Thread t = new Thread(r, "lakesink-status-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      server.setExecutor(pool);
      StatusServer s = new StatusServer(server, pool, status, metrics, Clock.systemUTC(),
          new StatusPage(metrics.throughput(), configFile));
      server.createContext("/", s::page);
      server.createContext("/health", s::health);
      server.createContext("/ready", s::ready);
      server.createContext("/status", s::status);
      server.createContext("/metrics", s::metrics);
      server.start();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serve status on " + host + ":" + port + " (set status.port to a free port)", e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The JDK server sends every path no other context takes here: only {@code /} itself is the page. */
  private void page(HttpExchange ex) throws IOException {
    if (!ex.getRequestURI().getPath().equals("/")) {
      send(ex, 404, "text/plain; charset=utf-8", "Not found: the status page is /, JSON is /status.\n");
      return;
    }
    // No script runs on the page, so none may: a name that slipped past escaping could not act.
    ex.getResponseHeaders().set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    send(ex, 200, "text/html; charset=utf-8", page.render(status.get(), clock.instant()));
  }

  private void health(HttpExchange ex) throws IOException {
    WorkerStatus s = status.get();
    boolean starting = s.at().equals(WorkerStatus.STARTING.at());
    boolean alive = starting || s.at().isAfter(clock.instant().minus(STALE));
    boolean healthy = alive && s.healthy();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", !alive ? "stalled" : healthy ? "up" : "fault");
    body.put("ready", !starting);
    body.put("last_loop", starting ? null : s.at());
    // Credentials or permissions refused by storage or the registry: every table waits on it.
    body.put("faults", s.faults());
    // Shown, but healthy all the same: restarting the worker would not bring a service back.
    body.put("outages", s.outages().stream().map(WorkerStatus.Outage::service).toList());
    send(ex, healthy ? 200 : 503, "application/json", JSON.writeValueAsString(body));
  }

  /**
   * 200 when the worker can deliver: its loop has run within {@link #STALE}, it reads at least
   * one assigned partition, and at least one of its tables is not quarantined. 503 otherwise
   * (starting, waiting for partitions, stalled, or nothing left to deliver), with the reason.
   * One quarantined table among healthy ones keeps the worker ready: restarting it would not help.
   */
  private void ready(HttpExchange ex) throws IOException {
    WorkerStatus s = status.get();
    String notReady = notReady(s);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("ready", notReady == null);
    body.put("reason", notReady);
    send(ex, notReady == null ? 200 : 503, "application/json", JSON.writeValueAsString(body));
  }

  private String notReady(WorkerStatus s) {
    if (s.at().equals(WorkerStatus.STARTING.at())) {
      return "starting";
    }
    if (s.at().isBefore(clock.instant().minus(STALE))) {
      return "stalled: the worker loop last ran at " + s.at();
    }
    if (!s.healthy()) {
      return "worker-level fault: " + String.join("; ", s.faults());
    }
    // A partition appears in the lag map once it is assigned and its position is known.
    if (s.subscriptions().stream().allMatch(sub -> sub.lag().isEmpty())) {
      return "no partition assigned yet";
    }
    if (s.subscriptions().stream().allMatch(sub -> "quarantined".equals(sub.table().state()))) {
      return "every table is quarantined";
    }
    return null;
  }

  private void status(HttpExchange ex) throws IOException {
    WorkerStatus s = status.get();
    List<Map<String, Object>> subs = s.subscriptions().stream().map(StatusServer::subscription).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("at", s.at());
    body.put("faults", s.faults());
    // Services that do not answer, since when, and which tables and partitions wait on them.
    body.put("outages", s.outages());
    // Back-pressure since start: how long reading waited for the writers to make room in the budget.
    body.put("buffers_full_seconds", Math.round(s.buffersFull().toMillis() / 100.0) / 10.0);
    body.put("subscriptions", subs);
    if (!s.patterns().isEmpty()) {
      // Each topic_pattern entry: the topics it matched (→ table), and those it left out and why.
      body.put("topic_patterns", s.patterns());
    }
    send(ex, 200, "application/json", JSON.writeValueAsString(body));
  }

  private static Map<String, Object> subscription(WorkerStatus.Subscription sub) {
    Map<String, Object> m = sub.table().fields();
    m.put("events_consumed", sub.consumed());
    m.put("lag", sub.lag());
    return m;
  }

  private void metrics(HttpExchange ex) throws IOException {
    send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
