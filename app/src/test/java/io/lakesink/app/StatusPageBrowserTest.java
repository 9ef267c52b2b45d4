package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.delivery.FlushHook;
import java.io.File;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser: a worker started as {@code lakesink run} starts one, one of
 * its tables quarantined, Debian's Chromium in headless mode loads {@code GET /}. The rendered
 * DOM must show the quarantined table with its reason and a release command that works; the
 * screenshot stays in {@code target/status-page.png} for a person to look at.
 *
 * <p>Chromium missing fails the test rather than skipping it: a skipped browser test would let
 * the page break unnoticed. {@code .ci/run} installs it.
 */
@Timeout(300)
class StatusPageBrowserTest {
  static final Path SCREENSHOT = Path.of("target", "status-page.png");
  static final Path DOM = Path.of("target", "status-page.html");
  @TempDir Path data;

  @Test
  void thePageRendersInChromiumAndShowsAQuarantinedTable() throws Exception {
    String chromium = chromium();
    String good = SharedKafka.newTopic("page-good", 2);
    String bad = SharedKafka.newTopic("page-bad", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 20; i++) SharedKafka.send(p, good, i % 2, null, ChangelogEndToEndTest.envelope("c", i, "g", i));
      SharedKafka.send(p, bad, 0, null, ChangelogEndToEndTest.envelope("c", 1, "b", 1));
      SharedKafka.send(p, bad, 0, null, "{not json"); // quarantines the table at offset 1
      p.flush();
    }
    int port = freePort();
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + good + ", table: orders}")
        .subscribe("- {topic: " + bad + ", table: stock}");
    Path configFile = data.resolve("lakesink.yaml");
    Files.writeString(configFile, w.yaml().replace("  port: 0\n", "  port: " + port + "\n"));
    WorkerConfig config = new ConfigLoader(name -> null).load(configFile);

    AtomicReference<Runnable> stop = new AtomicReference<>();
    try (var storage = Pipeline.storage(config.storage())) {
      Thread worker = new Thread(() -> Commands.run(config, storage, false, FlushHook.NONE, stop::set, configFile), "page-test-worker");
      worker.start();
      try {
        awaitStatus(port);
        String dom = browse(chromium, port, "--dump-dom");
        Files.writeString(DOM, dom);
        assertTrue(dom.contains("<tr data-table=\"stock_APPEND\" data-state=\"quarantined\">"), dom);
        assertTrue(dom.contains("<tr data-table=\"orders_APPEND\" data-state=\"healthy\">"), dom);
        assertTrue(dom.contains("<section id=\"quarantines\">") && dom.contains("offset 1"), dom);
        assertTrue(dom.contains("<svg class=\"chart\""), "the throughput chart is drawn: " + dom);

        // Before the release below, so that it shows the quarantine.
        browse(chromium, port, "--screenshot=" + SCREENSHOT.toAbsolutePath(), "--window-size=1200,900");
        byte[] png = Files.readAllBytes(SCREENSHOT);
        assertTrue(png.length > 10_000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a screenshot of " + png.length + " bytes");

        // The command on the page is the one that releases the table.
        Matcher command = Pattern.compile("<code>bin/lakesink (quarantine release --config (\\S+) --table stock_APPEND)</code>")
            .matcher(dom);
        assertTrue(command.find(), dom);
        assertEquals(configFile.toAbsolutePath().toString(), command.group(2));
        CommandLineTest.Output release = CommandLineTest.run(command.group(1).split(" "));
        assertEquals(Main.OK, release.exit(), release.err());
        assertTrue(release.out().contains("Released stock_APPEND"), release.out());
      } finally {
        if (stop.get() != null) stop.get().run();
        worker.join(60_000);
      }
    }
  }

  /** Chromium's path, or a failure that says how to install it. */
  static String chromium() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, "chromium"))) {
        return Path.of(dir, "chromium").toString();
      }
    }
    return fail("Chromium is not installed: the status page is tested in a real headless browser. On Debian run"
        + " `sudo apt-get update && sudo apt-get install -y chromium` (.ci/run does it), then run the tests again.");
  }

  /** Chromium in headless mode on the page; returns what it printed (the DOM with --dump-dom). */
  static String browse(String chromium, int port, String... what) throws Exception {
    List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + Files.createTempDirectory("chromium-profile")));
    command.addAll(Arrays.asList(what));
    command.add("http://127.0.0.1:" + port + "/");
    Path out = Files.createTempFile("chromium", ".out");
    Path err = Files.createTempFile("chromium", ".err");
    // Output to files: a pipe nobody reads while Chromium logs could block it.
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("Chromium did not finish in 120 s: " + Files.readString(err));
    }
    assertEquals(0, p.exitValue(), "Chromium failed: " + Files.readString(err));
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  /** Until the worker's /status shows the bad table quarantined and the good one's 20 rows committed. */
  static void awaitStatus(int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      try {
        last = StatusEndpointTest.get(port, "/status").body();
        JsonNode subs = new ObjectMapper().readTree(last).path("subscriptions");
        boolean quarantined = false;
        boolean delivered = false;
        for (JsonNode s : subs) {
          quarantined |= s.path("table").asText().equals("stock_APPEND") && s.path("state").asText().equals("quarantined");
          delivered |= s.path("table").asText().equals("orders_APPEND") && s.path("rows_delivered").asLong() == 20;
        }
        if (quarantined && delivered) {
          return;
        }
      } catch (java.io.IOException e) {
        last = e.toString(); // not listening yet
      }
      Thread.sleep(200); // polling interval, not a synchronization
    }
    fail("The worker never showed the quarantine and the delivered rows; last /status: " + last);
  }

  static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
