package io.lakesink.app.status;

import io.lakesink.delivery.DeliveryMetrics;
import io.lakesink.error.ErrorKind;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.maintenance.OptimizeResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * lakesink's Prometheus metrics. Counters and histograms are fed by the deliveries as they
 * commit; gauges (consumer lag, states, events consumed) are read from the worker's latest
 * status snapshot at each scrape.
 */
public final class WorkerMetrics implements DeliveryMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Supplier<WorkerStatus> status;
  private final MultiGauge lastCommit;
  private final MultiGauge buffered;
  /** Each commit's rows, also kept by time for the status page's throughput chart. */
  private final Throughput throughput = new Throughput(java.time.Clock.systemUTC());
  private final MultiGauge lag;
  private final MultiGauge consumed;
  private final MultiGauge states;
  private final MultiGauge files;
  private final MultiGauge giveUps;
  private final MultiGauge outages;
  private final MultiGauge outageSeconds;
  private final MultiGauge waiting;
  private final MultiGauge keptLagVersions;
  private final MultiGauge keptLagSeconds;
  private final MultiGauge keptStopped;
  /** Every service an outage can name: each gets a row, 0 while it answers, so alerts need no absent(). */
  static final List<String> SERVICES = List.of("kafka", "schema_registry", "storage");

  public WorkerMetrics(Supplier<WorkerStatus> status) {
    this.status = status;
    // Freshness for alerts: a table with events waiting (lag or buffered) and an old last commit
    // is stale; Prometheus computes the age with time(), so the gauge holds the instant itself.
    this.lastCommit = MultiGauge.builder("lakesink.table.last.commit.timestamp").baseUnit("seconds")
        .description("When this worker last committed to the table, in seconds since the epoch").register(registry);
    this.buffered = MultiGauge.builder("lakesink.table.buffered.events")
        .description("Events read and not yet committed, per table").register(registry);
    Gauge.builder("lakesink.worker.faults", this, m -> m.status.get().faults().size())
        .description("Worker-level faults standing (credentials or permissions refused): /health is 503 while above 0")
        .register(registry);
    // A counter of seconds: its rate is the share of the time reading waits for the writers.
    FunctionCounter.builder("lakesink.buffers.full", this, m -> m.status.get().buffersFull().toNanos() / 1e9).baseUnit("seconds")
        .description("How long reading has waited because the buffers held delivery.max_buffer_bytes (back-pressure)")
        .register(registry);
    this.lag = MultiGauge.builder("lakesink.consumer.lag").description("Records not yet read, per partition").register(registry);
    this.consumed = MultiGauge.builder("lakesink.events.consumed").description("Records read since start, per table").register(registry);
    this.states = MultiGauge.builder("lakesink.table.state").description("1 for the state each table is in").register(registry);
    this.files = MultiGauge.builder("lakesink.table.files").description("Live data files per table, as maintenance last counted")
        .register(registry);
    this.giveUps = MultiGauge.builder("lakesink.optimize.gave.up.in.a.row")
        .description("Optimizations of a table given up in a row: another writer keeps winning the race").register(registry);
    this.outages = MultiGauge.builder("lakesink.service.outage")
        .description("1 while an outside service (kafka, schema_registry, storage) does not answer").register(registry);
    this.outageSeconds = MultiGauge.builder("lakesink.service.outage.seconds")
        .description("How long the service's current outage has lasted, 0 while it answers").register(registry);
    this.waiting = MultiGauge.builder("lakesink.table.waiting")
        .description("1 for each table and the service it waits on because that service does not answer").register(registry);
    this.keptLagVersions = MultiGauge.builder("lakesink.current.state.table.lag.versions")
        .description("Changelog versions the kept current-state table does not reflect yet (current_state.object: table)")
        .register(registry);
    this.keptLagSeconds = MultiGauge.builder("lakesink.current.state.table.lag.seconds")
        .description("How long the kept current-state table has been behind its changelog, 0 while it is not").register(registry);
    this.keptStopped = MultiGauge.builder("lakesink.current.state.table.stopped")
        .description("1 while the kept current-state table is stopped (refused; see /status), its changelog still flowing")
        .register(registry);
    Gauge.builder("lakesink.tables.quarantined", this, m -> m.count("quarantined"))
        .description("Tables quarantined").register(registry);
  }

  @Override
  public void committed(String table, int rows, long bytes, Duration latency) {
    throughput.committed(table, rows);
    Counter.builder("lakesink.events.delivered").description("Rows committed to Delta").tag("table", table)
        .register(registry).increment(rows);
    DistributionSummary.builder("lakesink.flush.rows").description("Rows per Delta commit").tag("table", table)
        .publishPercentileHistogram().register(registry).record(rows);
    Timer.builder("lakesink.commit.latency").description("Parquet write and Delta commit of one flush").tag("table", table)
        .publishPercentileHistogram().register(registry).record(latency);
  }

  @Override
  public void error(String table, ErrorKind kind) {
    Counter.builder("lakesink.errors").description("Errors by kind").tag("table", table)
        .tag("kind", kind.name().toLowerCase()).register(registry).increment();
  }

  @Override
  public void optimized(String table, OptimizeResult step) {
    String outcome = step.gaveUp() ? "gave_up" : step.committed() ? "committed" : "nothing";
    Counter.builder("lakesink.optimize.steps").description("Optimize steps by outcome").tag("table", table)
        .tag("outcome", outcome).register(registry).increment();
  }

  public Throughput throughput() {
    return throughput;
  }

  /** The Prometheus text exposition, with gauges refreshed from the latest status. */
  public synchronized String scrape() {
    WorkerStatus s = status.get();
    List<MultiGauge.Row<?>> lastCommitRows = new ArrayList<>();
    List<MultiGauge.Row<?>> bufferedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> lagRows = new ArrayList<>();
    List<MultiGauge.Row<?>> consumedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> stateRows = new ArrayList<>();
    List<MultiGauge.Row<?>> fileRows = new ArrayList<>();
    List<MultiGauge.Row<?>> giveUpRows = new ArrayList<>();
    List<MultiGauge.Row<?>> waitingRows = new ArrayList<>();
    List<MultiGauge.Row<?>> keptLagVersionRows = new ArrayList<>();
    List<MultiGauge.Row<?>> keptLagSecondRows = new ArrayList<>();
    List<MultiGauge.Row<?>> keptStoppedRows = new ArrayList<>();
    for (WorkerStatus.Subscription sub : s.subscriptions()) {
      String table = sub.table().table();
      sub.lag().forEach((p, l) -> {
        if (l != null) { // unknown (a stale end offset): no sample rather than a wrong one
          lagRows.add(MultiGauge.Row.of(Tags.of("table", table, "partition", String.valueOf(p)), l));
        }
      });
      sub.table().waitingOn().forEach(service ->
          waitingRows.add(MultiGauge.Row.of(Tags.of("table", table, "service", service), 1)));
      consumedRows.add(MultiGauge.Row.of(Tags.of("table", table), sub.consumed()));
      var maintenance = sub.table().maintenance();
      if (maintenance.files() >= 0) {
        fileRows.add(MultiGauge.Row.of(Tags.of("table", table), maintenance.files()));
      }
      giveUpRows.add(MultiGauge.Row.of(Tags.of("table", table), maintenance.optimizeGiveUps()));
      for (String state : List.of("healthy", "degraded", "quarantined")) {
        stateRows.add(MultiGauge.Row.of(Tags.of("table", table, "state", state), state.equals(sub.table().state()) ? 1 : 0));
      }
      if (sub.table().lastCommitAt() != null) {
        lastCommitRows.add(MultiGauge.Row.of(Tags.of("table", table), sub.table().lastCommitAt().toEpochMilli() / 1000.0));
      }
      bufferedRows.add(MultiGauge.Row.of(Tags.of("table", table), sub.table().bufferedEvents()));
      Map<String, Object> kept = sub.table().currentStateTable();
      if (kept != null) {
        Tags tags = Tags.of("table", table, "current_state_table", String.valueOf(kept.get("table")));
        keptLagVersionRows.add(MultiGauge.Row.of(tags, ((Number) kept.get("lag_versions")).doubleValue()));
        keptLagSecondRows.add(MultiGauge.Row.of(tags, ((Number) kept.get("lag_seconds")).doubleValue()));
        keptStoppedRows.add(MultiGauge.Row.of(tags, "stopped".equals(kept.get("state")) ? 1 : 0));
      }
    }
    keptLagVersions.register(keptLagVersionRows, true);
    keptLagSeconds.register(keptLagSecondRows, true);
    keptStopped.register(keptStoppedRows, true);
    lastCommit.register(lastCommitRows, true);
    buffered.register(bufferedRows, true);
    lag.register(lagRows, true);
    consumed.register(consumedRows, true);
    states.register(stateRows, true);
    files.register(fileRows, true);
    giveUps.register(giveUpRows, true);
    waiting.register(waitingRows, true);
    registerOutages(s);
    return registry.scrape();
  }

  private void registerOutages(WorkerStatus s) {
    List<MultiGauge.Row<?>> down = new ArrayList<>();
    List<MultiGauge.Row<?>> seconds = new ArrayList<>();
    for (String service : SERVICES) {
      var outage = s.outages().stream().filter(o -> o.service().equals(service)).findFirst();
      down.add(MultiGauge.Row.of(Tags.of("service", service), outage.isPresent() ? 1 : 0));
      seconds.add(MultiGauge.Row.of(Tags.of("service", service),
          outage.map(o -> Math.max(0, Duration.between(o.since(), s.at()).toMillis() / 1000.0)).orElse(0.0)));
    }
    outages.register(down, true);
    outageSeconds.register(seconds, true);
  }

  private double count(String state) {
    return status.get().subscriptions().stream().filter(x -> x.table().state().equals(state)).count();
  }
}
