package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.status.StatusServer;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and the Grafana dashboard shipped under {@code contrib/} name only metrics a
 * worker serves: renaming a metric in {@code WorkerMetrics} without them fails here, not silently
 * in someone's monitoring. The metrics come from a real worker's {@code /metrics} after it
 * committed, quarantined a table and optimized one, so that every family has a sample.
 * ({@code promtool check rules} and the rules' unit tests run in {@code .ci/run}.)
 */
@Timeout(300)
class AlertRulesAndDashboardTest {
  static final Path CONTRIB = Path.of("..", "contrib");
  static final Path RULES = CONTRIB.resolve("prometheus/lakesink-alerts.yml");
  static final Path DASHBOARD = CONTRIB.resolve("grafana/lakesink-dashboard.json");
  private static final Pattern METRIC = Pattern.compile("\\blakesink_[a-z0-9_]+");

  @TempDir Path data;

  @Test
  void everyMetricTheRulesAndTheDashboardUseIsServed() throws Exception {
    Set<String> used = new TreeSet<>();
    for (String expr : ruleExpressions()) {
      used.addAll(metricNames(expr));
    }
    Set<String> usedByRules = new TreeSet<>(used);
    for (String query : dashboardQueries()) {
      used.addAll(metricNames(query));
    }
    // Guards the guard: a parse that finds nothing would pass any rename.
    assertTrue(usedByRules.containsAll(List.of("lakesink_table_state", "lakesink_consumer_lag",
        "lakesink_table_last_commit_timestamp_seconds", "lakesink_optimize_gave_up_in_a_row", "lakesink_table_files",
        "lakesink_worker_faults", "lakesink_service_outage")), usedByRules.toString());
    assertTrue(used.size() >= 14, used.toString());

    Set<String> missing = missingFromAWorkerThatDidEverything(used);
    assertEquals(Set.of(), missing, "used by contrib/ but not on a worker's /metrics");
  }

  @Test
  void everyRuleIsAnAlertWithASeverityAndASummary() throws Exception {
    JsonNode groups = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile()).path("groups");
    List<String> names = new ArrayList<>();
    for (JsonNode group : groups) {
      for (JsonNode rule : group.path("rules")) {
        String name = rule.path("alert").asText();
        assertFalse(name.isEmpty(), "a rule without an alert name: " + rule);
        assertTrue(Set.of("critical", "warning").contains(rule.path("labels").path("severity").asText()), name);
        assertFalse(rule.path("annotations").path("summary").asText().isEmpty(), name);
        names.add(name);
      }
    }
    // What issue 28 asks the rules to cover.
    assertTrue(names.containsAll(List.of("LakesinkWorkerDown", "LakesinkServiceOutage", "LakesinkTableQuarantined", "LakesinkTableDegraded",
        "LakesinkConsumerLagGrowing", "LakesinkTableNotFresh", "LakesinkOptimizeGivingUp", "LakesinkTableFilesGrowing")),
        names.toString());
  }

  static List<String> ruleExpressions() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (JsonNode group : new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile()).path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        exprs.add(rule.path("expr").asText());
      }
    }
    return exprs;
  }

  /** Every query of the dashboard: panel targets and template variables, wherever they nest. */
  static List<String> dashboardQueries() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    List<String> queries = new ArrayList<>();
    for (JsonNode expr : dashboard.findValues("expr")) {
      queries.add(expr.asText());
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      queries.add(variable.path("definition").asText());
    }
    assertTrue(queries.size() >= 10, "dashboard queries: " + queries);
    return queries;
  }

  static Set<String> metricNames(String promql) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(promql);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /** The sample names of a Prometheus text exposition (histogram _bucket/_count/_sum included). */
  static Set<String> servedMetricNames(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = 0;
      while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
        end++;
      }
      names.add(line.substring(0, end));
    }
    return names;
  }

  /**
   * What of {@code used} a worker's /metrics lacks, once it committed a table several times,
   * optimized it, quarantined another and had a third wait on a schema registry that answers
   * 503: counters, histograms and per-table gauges only have samples once those happened. The
   * worker keeps running (maintenance steps are collected on later turns of its loop) until
   * /metrics has them all or two minutes passed.
   */
  private Set<String> missingFromAWorkerThatDidEverything(Set<String> used) throws Exception {
    String good = SharedKafka.newTopic("alerts-good", 2);
    String bad = SharedKafka.newTopic("alerts-bad", 1);
    String waits = SharedKafka.newTopic("alerts-waits", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 30; i++) {
        SharedKafka.send(p, good, i % 2, null, ChangelogEndToEndTest.envelope("c", i, "g", i));
      }
      SharedKafka.send(p, bad, 0, null, "garbage");
      p.flush();
    }
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      Schema envelope = AvroRecords.envelope(AvroEndToEndTest.V1, false);
      int schemaId = registry.register(waits + "-value", envelope);
      registry.failWith(503); // the worker has never seen the schema: its table waits on the registry
      OutagesVisibleTest.produceAvro(waits, 0, 1, schemaId, envelope, AvroEndToEndTest.V1);
      return missingFromAWorker(used, good, bad, waits, registry.url());
    }
  }

  private Set<String> missingFromAWorker(Set<String> used, String good, String bad, String waits, String registry)
      throws Exception {
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + good + ", table: good}")
        .subscribe("- {topic: " + bad + ", table: bad}")
        .subscribe("- {topic: " + waits + ", table: waits}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    w.kafkaExtra = "  properties: {max.poll.records: 5}\n";
    var config = new ConfigLoader(n -> null).parse(w.yaml() + "schema_registry:\n  url: " + registry + "\n", "test");
    // Optimize after every 2 commits, on the loop's own thread, so this short run has steps.
    MaintenancePolicy eager = new MaintenancePolicy(true,
        new MaintenanceSettings(128L << 20, 100, 1_000, 10, 1).withTriggers(2, 1_000, 10), Runnable::run);
    try (var storage = Pipeline.storage(config.storage())) {
      KafkaWorker[] holder = new KafkaWorker[1];
      WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
      DeliveryContext context =
          DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withMetrics(metrics).withMaintenance(eager);
      try (KafkaWorker worker = Pipeline.worker(config, storage, context);
          StatusServer server = StatusServer.start("127.0.0.1", 0, worker::status, metrics)) {
        holder[0] = worker;
        Thread run = new Thread(() -> worker.run(false), "alerts-test-worker");
        run.start();
        try {
          long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
          while (true) {
            String scraped = StatusEndpointTest.get(server.port(), "/metrics").body();
            Set<String> missing = new TreeSet<>(used);
            missing.removeAll(servedMetricNames(scraped));
            if (missing.isEmpty() || System.nanoTime() > deadline) {
              assertTrue(scraped.contains("lakesink_table_state{state=\"quarantined\",table=\"bad_APPEND\"} 1.0"), scraped);
              return missing;
            }
            Thread.sleep(200); // polling interval, not a synchronization
          }
        } finally {
          worker.stop();
          run.join();
        }
      }
    }
  }
}
