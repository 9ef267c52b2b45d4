package io.lakesink.app.status;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.TableStatus;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.kafka.testing.MutableClock;
import io.lakesink.maintenance.MaintenanceRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status page's rendering, from made-up snapshots: no worker, no broker. */
class StatusPageTest {
  static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  static TableStatus table(String name, String state, String reason, Instant lastCommit, List<String> warnings) {
    return new TableStatus(name, "dbserver1.inventory." + name, "changelog", state, reason, reason == null ? null : NOW.minusSeconds(600),
        lastCommit == null ? -1 : 42, lastCommit, 1234, 7, warnings, new MaintenanceRunner.State(3, 0), List.of());
  }

  static WorkerStatus.Subscription sub(TableStatus t, Map<Integer, Long> lag) {
    return new WorkerStatus.Subscription(t, lag, 5000);
  }

  static Map<Integer, Long> lag(Long... perPartition) {
    Map<Integer, Long> m = new LinkedHashMap<>();
    for (int p = 0; p < perPartition.length; p++) m.put(p, perPartition[p]);
    return m;
  }

  @Test
  void everythingFromConfigurationOrMessagesIsEscaped() {
    String hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;";
    TableStatus t = new TableStatus(hostile, hostile, hostile, "quarantined", "Column " + hostile + " cannot take it", NOW,
        -1, null, 0, 0, List.of("warning " + hostile), new MaintenanceRunner.State(-1, 0), List.of(hostile));
    WorkerStatus s = new WorkerStatus(NOW, List.of(sub(t, lag(0L))), List.of("fault " + hostile),
        List.of(new WorkerStatus.Outage(hostile, NOW, "problem " + hostile, List.of(hostile), List.of(hostile + "-0"))));
    String html = new StatusPage(new Throughput(Clock.systemUTC()), Path.of("/etc/" + hostile)).render(s, NOW);

    assertFalse(html.contains("<script"), html);
    assertFalse(html.contains("<img"), html);
    assertFalse(html.contains("alert('x')"), "a quote is escaped too: " + html);
    assertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;"), html);
    for (String shown : List.of("Column &lt;script", "warning &lt;script", "fault &lt;script", "problem &lt;script")) {
      assertTrue(html.contains(shown), shown + " in " + html);
    }
  }

  @Test
  void aQuarantinedTableShowsItsReasonAndTheExactReleaseCommand() {
    String reason = "Column qty (bigint) cannot take a string of 4 characters at topic stock, partition 0, offset 10";
    WorkerStatus s = new WorkerStatus(NOW, List.of(
        sub(table("orders_APPEND", "healthy", null, NOW.minusSeconds(12), List.of()), lag(0L, 0L)),
        sub(table("stock_APPEND", "quarantined", reason, NOW.minusSeconds(3600), List.of()), lag(3L))));
    Throughput throughput = new Throughput(Clock.systemUTC());
    String html = new StatusPage(throughput, Path.of("/etc/lakesink/lakesink.yaml")).render(s, NOW);

    int section = html.indexOf("<section id=\"quarantines\">");
    assertTrue(section >= 0, html);
    String quarantines = html.substring(section, html.indexOf("</section>", section));
    assertTrue(quarantines.contains("stock_APPEND") && quarantines.contains(reason), quarantines);
    assertFalse(quarantines.contains("orders_APPEND"), "only quarantined tables: " + quarantines);
    assertTrue(quarantines.contains(
        "<code>bin/lakesink quarantine release --config /etc/lakesink/lakesink.yaml --table stock_APPEND</code>"), quarantines);
    assertTrue(html.contains("<tr data-table=\"stock_APPEND\" data-state=\"quarantined\">"), html);
    assertTrue(html.contains("2 tables, 1 healthy, 1 quarantined"), html);

    // A path a shell would split is quoted; without a file the command says what to put there.
    assertEquals("bin/lakesink quarantine release --config '/srv/my configs/it'\\''s.yaml' --table stock_APPEND",
        new StatusPage(throughput, Path.of("/srv/my configs/it's.yaml")).releaseCommand("stock_APPEND"));
    assertTrue(new StatusPage(throughput, null).render(s, NOW)
        .contains("release --config &lt;your config file&gt; --table stock_APPEND"));
  }

  @Test
  void anOutageAndAWorkerFaultShow() {
    TableStatus waiting = table("orders_APPEND", "healthy", null, NOW.minusSeconds(90), List.of())
        .waitingOn("kafka", "Waiting on Kafka: no answer from localhost:9092", NOW.minusSeconds(30));
    WorkerStatus s = new WorkerStatus(NOW, List.of(sub(waiting, lag(null, 4L))),
        List.of("Storage refused the credentials (403) for /data/lake: fix them; retried every 30 s"),
        List.of(new WorkerStatus.Outage("kafka", NOW.minusSeconds(30), "no answer from localhost:9092",
            List.of("orders_APPEND"), List.of("orders-0", "orders-1"))));
    String html = new StatusPage(new Throughput(Clock.systemUTC()), null).render(s, NOW);

    assertTrue(html.contains("<section id=\"outages\">"), html);
    assertTrue(html.contains("data-service=\"kafka\""), html);
    assertTrue(html.contains("since 2026-12-02T09:59:30Z (30 s)"), html);
    assertTrue(html.contains("no answer from localhost:9092"), html);
    assertTrue(html.contains("Waiting: orders_APPEND · partitions orders-0, orders-1"), html);
    assertTrue(html.contains("<section id=\"faults\">") && html.contains("Storage refused the credentials (403)"), html);
    assertTrue(html.contains("data-state=\"degraded\"") && html.contains("waiting on kafka"), html);
    assertTrue(html.contains("1 table, 1 degraded; worker fault; kafka down"), html);
    // Lag per partition, the unknown one said so rather than guessed.
    assertTrue(html.contains("<div>p0: unknown</div><div>p1: 4</div>"), html);
  }

  @Test
  void timeReadingWaitedForTheBufferBudgetShowsOnceThereIsSome() {
    TableStatus t = table("orders_APPEND", "healthy", null, NOW, List.of());
    StatusPage page = new StatusPage(new Throughput(Clock.systemUTC()), null);
    String none = page.render(new WorkerStatus(NOW, List.of(sub(t, lag(0L))), List.of(), List.of(), List.of()), NOW);
    assertFalse(none.contains("id=\"budget\""), none);
    String waited = page.render(
        new WorkerStatus(NOW, List.of(sub(t, lag(0L))), List.of(), List.of(), List.of(), Duration.ofMillis(12_345)), NOW);
    assertTrue(waited.contains("Reading has waited 12.3 s since the worker started"), waited);
  }

  @Test
  void lastCommitFreshnessAndThroughputShow() {
    MutableClock clock = new MutableClock(NOW.minusSeconds(125));
    Throughput throughput = new Throughput(clock);
    throughput.committed("orders_APPEND", 300);
    clock.set(NOW.minusSeconds(5));
    throughput.committed("orders_APPEND", 120);
    TableStatus t = table("orders_APPEND", "healthy", null, NOW.minusSeconds(125), List.of("Key looks wrong: set primary_key"));
    String html = new StatusPage(throughput, null).render(new WorkerStatus(NOW, List.of(sub(t, lag(0L)))), NOW);

    assertTrue(html.contains("2026-12-02T09:57:55Z<div class=\"sub\">version 42, 120 rows</div>"), html);
    assertTrue(html.contains("1234 rows since start"), html);
    assertTrue(html.contains("<strong>2 min 5 s</strong><div class=\"sub\">since the last commit</div></td>"), html);
    assertFalse(html.contains("caught up"), "7 events are buffered: " + html);
    assertTrue(html.contains("Key looks wrong: set primary_key"), html);
    assertTrue(html.contains("<meta http-equiv=\"refresh\" content=\"5\">"), html);
    // Two buckets with rows: two bars beside the background; the last minute held 120 rows.
    String svg = html.substring(html.indexOf("<svg"), html.indexOf("</svg>"));
    assertEquals(3, svg.split("<rect", -1).length - 1, svg);
    assertTrue(html.contains("2.0 rows/s last min, peak 30 rows/s"), html);
  }

  @Test
  void throughputKeepsTenMinutesOfTenSecondBuckets() {
    MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));
    Throughput t = new Throughput(clock);
    t.committed("a", 10);
    t.committed("a", 5);
    clock.set(clock.instant().plusSeconds(10));
    t.committed("a", 7);
    long[] rows = t.rows("a");
    assertEquals(Throughput.BUCKETS, rows.length);
    assertEquals(15, rows[Throughput.BUCKETS - 2]);
    assertEquals(7, rows[Throughput.BUCKETS - 1]);
    assertEquals(7, t.lastCommitRows("a"));
    assertEquals(-1, t.lastCommitRows("b"));
    assertArrayEquals(new long[Throughput.BUCKETS], t.rows("b"));

    clock.set(clock.instant().plus(Duration.ofMinutes(9)).plusSeconds(50)); // the first bucket just left the window
    assertEquals(7, t.rows("a")[0]);
    assertEquals(7, java.util.Arrays.stream(t.rows("a")).sum());
    // Writing after a long silence reuses the ring without bringing back what was there.
    clock.set(clock.instant().plus(Duration.ofMinutes(30)));
    t.committed("a", 1);
    assertEquals(1, java.util.Arrays.stream(t.rows("a")).sum());
  }

  @Test
  void aStartingWorkerAndNoTablesRender() {
    String html = new StatusPage(new Throughput(Clock.systemUTC()), null).render(WorkerStatus.STARTING, NOW);
    assertTrue(html.contains("<p id=\"summary\">starting</p>") && html.contains("No table yet."), html);
  }

  @Test
  void theServerServesThePageAtTheRootOnly() throws Exception {
    WorkerStatus s = new WorkerStatus(Instant.now(), List.of(sub(table("orders_APPEND", "healthy", null, null, List.of()), lag(0L))));
    try (StatusServer server = StatusServer.start("127.0.0.1", 0, () -> s, new WorkerMetrics(() -> s))) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode());
      assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElseThrow());
      assertTrue(page.headers().firstValue("Content-Security-Policy").orElseThrow().startsWith("default-src 'none'"));
      assertTrue(page.body().contains("<tr data-table=\"orders_APPEND\" data-state=\"healthy\">"), page.body());
      HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/nope")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, other.statusCode());
    }
  }


  /** The kept current-state table shows under its changelog, with its own state and reason (escaped). */
  @Test
  void theKeptCurrentStateTableShowsUnderItsChangelogWithItsOwnState() {
    Map<String, Object> kept = new LinkedHashMap<>();
    kept.put("table", "orders");
    kept.put("state", "stopped");
    kept.put("reason", "Another engine <wrote> version 7 of orders");
    kept.put("lag_versions", 3L);
    kept.put("registered", true);
    TableStatus t = table("orders_APPEND", "healthy", null, NOW.minusSeconds(5), List.of()).withCurrentStateTable(kept);
    TableStatus plain = table("items_APPEND", "healthy", null, NOW.minusSeconds(5), List.of());
    WorkerStatus s = new WorkerStatus(NOW, List.of(sub(t, lag(0L)), sub(plain, lag(0L))), List.of(), List.of());
    String html = new StatusPage(new Throughput(Clock.systemUTC()), Path.of("/etc/lakesink.yaml")).render(s, NOW);

    assertTrue(html.contains("data-kept-state=\"stopped\">current state: table <strong>orders</strong> · stopped · 3 versions behind"),
        html);
    assertTrue(html.contains("Another engine &lt;wrote&gt; version 7 of orders"), html);
    assertEquals(1, html.split("data-kept-state=", -1).length - 1, "only the changelog that keeps a table shows one");
  }
}
