package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.view.HistoryView;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.app.status.StatusServer;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.catalog.unity.CheckResult;
import io.lakesink.catalog.unity.UnityCatalog;
import io.lakesink.error.LakesinkException;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.quarantine.QuarantineRecord;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The commands behind {@link Main}. */
final class Commands {
  private Commands() {}

  static int run(Path configFile, boolean stopAtEnd) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    java.time.Duration timeout = GracefulShutdown.timeout(
        System.getProperty(GracefulShutdown.TIMEOUT_PROPERTY), System.getenv(GracefulShutdown.TIMEOUT_ENV));
    try (GracefulShutdown shutdown = GracefulShutdown.install(timeout);
        TableStorage storage = Pipeline.storage(config.storage())) {
      try (Catalogs catalogs = Catalogs.of(config, storage)) {
        RenamedTargets.refuse(config, storage, catalogs, configFile);
      }
      SourceTopics.refuse(config); // a heartbeat, transaction or schema-change topic: exit 4, nothing delivered
      int exit = ExitCode.CRASHED.code;
      try {
        exit = run(config, storage, stopAtEnd, FlushHook.NONE, shutdown::onStop, configFile);
        if (exit == ExitCode.OK.code) {
          ClassDataArchive.writeIfAsked(); // after a clean run only: its classes are what the next start loads
        }
        return exit;
      } finally {
        shutdown.finished(exit); // lets a SIGTERM's shutdown hook halt with this code
      }
    }
  }

  static int run(WorkerConfig config, boolean stopAtEnd, FlushHook hook) {
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      return run(config, storage, stopAtEnd, hook);
    }
  }

  static int run(WorkerConfig config, TableStorage storage, boolean stopAtEnd, FlushHook hook) {
    return run(config, storage, stopAtEnd, hook, stop -> {}, null);
  }

  /** The worker's maintenance, its clustering steps sized to what a merge may hold. */
  static MaintenancePolicy maintenance(WorkerConfig config) {
    MaintenancePolicy base = config.maintenance() ? MaintenancePolicy.DEFAULT : MaintenancePolicy.OFF;
    return base.withSettings(base.settings().withMergeMemory(config.merge().scanLimitBytes()));
  }

  /**
   * @param onStop receives what stops the running worker, for a signal handler
   * @param configFile the file the configuration came from, for the status page's release commands; null if none
   */
  static int run(WorkerConfig config, TableStorage storage, boolean stopAtEnd, FlushHook hook,
      java.util.function.Consumer<Runnable> onStop, Path configFile) {
    WorkerResult result;
    KafkaWorker[] holder = new KafkaWorker[1];
    WorkerMetrics metrics = new WorkerMetrics(() -> holder[0] == null ? WorkerStatus.STARTING : holder[0].status());
    DeliveryContext context =
        DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withHook(hook)
            .withMetrics(metrics).withCatalog(Pipeline.catalog(config))
            .withMaintenance(maintenance(config));
    // Closing the worker commits nothing more but leaves the consumer group, so the partitions
    // move to another member at once instead of after the session timeout.
    try (KafkaWorker worker = Pipeline.worker(config, storage, context);
        StatusServer server = startStatus(config, worker, metrics, configFile)) {
      holder[0] = worker;
      onStop.accept(worker::stop);
      result = worker.run(stopAtEnd);
    }
    return exitCode(result);
  }

  /**
   * Quarantine (3) before a worker-level fault (8) before a failed final flush (6): a quarantined
   * table needs the operator, a fault explains why the final flush failed.
   */
  static int exitCode(WorkerResult result) {
    result.states().forEach((table, state) -> {
      if (state instanceof DeliveryState.Quarantined f) {
        System.err.println("Table " + table + " is quarantined: " + f.record().reason());
      }
    });
    if (result.finalFlushFailed()) {
      System.err.println("The final flush could not write every table (see the log): those events are read again at the"
          + " next start.");
    }
    if (!result.allDelivering()) {
      return ExitCode.TABLES_QUARANTINED.code;
    }
    if (!result.faults().isEmpty()) {
      result.faults().forEach(f -> System.err.println("Worker-level fault: " + f));
      return ExitCode.WORKER_FAULT.code;
    }
    return result.finalFlushFailed() ? ExitCode.FINAL_FLUSH_FAILED.code : ExitCode.OK.code;
  }

  /** The status endpoint, or null when disabled (try-with-resources accepts null). */
  private static StatusServer startStatus(WorkerConfig config, KafkaWorker worker, WorkerMetrics metrics, Path configFile) {
    WorkerConfig.StatusSettings s = config.status();
    if (!s.enabled()) {
      return null;
    }
    StatusServer server = StatusServer.start(s.host(), s.port(), worker::status, metrics, configFile);
    LoggerFactory.getLogger(Commands.class).info(
        "Status page on http://{}:{}/, JSON on /status, metrics on /metrics, health on /health", s.host(), server.port());
    return server;
  }

  /** {@code lakesink status}: asks a running worker for its status. */
  static int status(Path configFile) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    WorkerConfig.StatusSettings s = config.status();
    String host = s.host().equals("0.0.0.0") ? "127.0.0.1" : s.host();
    URI uri = URI.create("http://" + host + ":" + s.port() + "/status");
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
      System.out.println(response.body());
      return response.statusCode() == 200 ? Main.OK : ExitCode.CHECK_FAILED.code;
    } catch (IOException e) {
      System.err.println("No worker answers on " + uri + " (" + e.getMessage() + "): is it running, with status.port " + s.port() + "?");
      return ExitCode.CHECK_FAILED.code;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCode.CHECK_FAILED.code;
    }
  }

  static int quarantine(Path configFile, String action, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      QuarantineStore store = new QuarantineStore(storage);
      switch (action) {
        case "list" -> {
          List<QuarantineRecord> records = store.list();
          if (records.isEmpty()) {
            System.out.println("No table is quarantined.");
          }
          for (QuarantineRecord r : records) {
            System.out.println(r.table() + "  quarantined since " + r.since()
                + (r.topic() == null ? "" : "  at topic " + r.topic() + ", partition " + r.partition() + ", offset " + r.offset()));
            System.out.println("  " + r.reason());
          }
          return Main.OK;
        }
        case "release" -> {
          Subscription s = subscription(config, table);
          // The subscription's table, and the current-state table a changelog keeps (its own record, under <table>).
          String kept = TableNames.sanitize(s.table());
          boolean keptReleased = s.mode() == DeliveryMode.CHANGELOG && !kept.equals(s.targetTable()) && store.release(kept);
          if (keptReleased) {
            System.out.println("Released the current-state table " + kept + ": it follows the changelog again at the next"
                + " start, or within " + KafkaWorker.RELEASE_CHECK.toSeconds() + " s in a running worker.");
          }
          if (!store.release(s.targetTable())) {
            if (!keptReleased) {
              System.out.println("Table " + s.targetTable() + " is not quarantined.");
            }
            return Main.OK;
          }
          System.out.println("Released " + s.targetTable() + ": it resumes from its stored offsets at the next start,"
              + " or within " + KafkaWorker.RELEASE_CHECK.toSeconds() + " s in a running worker.");
          return Main.OK;
        }
        default -> throw new ConfigurationException("Unknown quarantine action '" + action + "': use list or release.");
      }
    }
  }

  static Subscription subscription(WorkerConfig config, String table) {
    return config.subscriptions().stream()
        .filter(x -> x.table().equals(table) || TableNames.sanitize(x.table()).equals(table) || x.targetTable().equals(table))
        .findFirst()
        .orElseThrow(() -> new ConfigurationException(
            "No subscription writes table " + table + "; configured tables: "
                + config.subscriptions().stream().map(Subscription::table).toList()));
  }

  /**
   * {@code lakesink check}: the connection test. Each step says what it checked and, when it
   * fails, what to fix; nothing is delivered.
   */
  static int check(Path configFile) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    boolean ok = true;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      ok &= step("storage: write and delete lakesink-test.txt in " + storage.describe(), () -> {
        if (storage instanceof AzureStorage azure) {
          azure.checkAccess();
        } else {
          LocalStorageCheck.run(storage);
        }
      });
    }
    java.util.Set<String> topics = new java.util.HashSet<>();
    boolean kafka = step("kafka: reach " + config.kafka().bootstrapServers() + " and find the subscribed topics",
        () -> topics.addAll(KafkaCheck.run(config)));
    ok &= kafka;
    if (kafka && !config.patterns().isEmpty()) {
      ok &= KafkaCheck.patterns(config, topics, System.out);
    }
    if (kafka) {
      ok &= step("kafka: every subscribed topic carries table changes (its first record; not a heartbeat, transaction"
          + " or schema-change topic)", () -> {
            List<String> problems = SourceTopics.find(config).stream().map(f -> SourceTopics.error(config, f).getMessage()).toList();
            if (!problems.isEmpty()) {
              throw new IllegalStateException(String.join("\n      ", problems));
            }
          });
    }
    TableCatalog catalog = Pipeline.catalog(config);
    if (catalog instanceof UnityCatalog unity) {
      try {
        for (CheckResult r : unity.checkConnection()) {
          System.out.println(switch (r.status()) {
                case FAILED -> "FAIL  ";
                case PASSED -> "ok    ";
                case WARNING -> "warn  ";
                case NOT_VERIFIED -> "??    ";
              }
              + "catalog: " + r.check() + (r.detail() == null || r.detail().isBlank() ? "" : " — " + r.detail()));
          ok &= r.status() != CheckResult.Status.FAILED;
        }
      } catch (LakesinkException e) {
        System.out.println("FAIL  catalog: " + e.getMessage());
        ok = false;
      }
    } else {
      System.out.println("ok    catalog: none (tables are only written)");
    }
    return ok ? Main.OK : ExitCode.CHECK_FAILED.code;
  }

  private interface Check {
    void run() throws Exception;
  }

  private static boolean step(String what, Check check) {
    try {
      check.run();
      System.out.println("ok    " + what);
      return true;
    } catch (Exception e) {
      Throwable cause = e.getCause() != null && e.getCause() != e ? e.getCause() : null;
      System.out.println("FAIL  " + what + " — " + e.getMessage() + (cause == null ? "" : " (" + cause.getMessage() + ")"));
      return false;
    }
  }

  static int views(Path configFile) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    for (Subscription s : config.subscriptions()) {
      if (s.mode() == DeliveryMode.MERGE) {
        System.out.println("-- " + s.topic() + " → " + s.targetTable() + ": merge mode, the table is the current state (no view)");
        System.out.println();
        continue;
      }
      System.out.println("-- " + s.topic() + " → " + s.targetTable());
      if (Pipeline.keepsTable(config, s)) {
        System.out.println("-- " + TableNames.sanitize(s.table()) + " is a Delta table lakesink keeps from the changelog"
            + " (current_state.object: table): no view to create");
      } else {
        System.out.println(Pipeline.viewSql(config, s));
      }
      System.out.println();
      Pipeline.historySql(config, s).ifPresent(history -> {
        System.out.println("-- " + s.topic() + " → " + HistoryView.name(TableNames.sanitize(s.table()))
            + ": every version of each key (SCD type 2)");
        System.out.println(history);
        System.out.println();
      });
    }
    return Main.OK;
  }

  static int show(Path configFile, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    Subscription s = subscription(config, table);
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      System.out.print(currentState(storage, s));
    }
    return Main.OK;
  }

  /** A subscription's current state as text, one row per line, ordered by key. */
  static String currentState(TableStorage storage, Subscription s) {
    io.delta.kernel.engine.Engine engine = KernelEngine.create(storage);
    DeltaTable t = Pipeline.table(storage, engine, s);
    if (!t.exists()) {
      return "Table " + s.targetTable() + " does not exist yet at " + t.location() + "\n";
    }
    List<Map<String, Object>> rows;
    java.util.Optional<DeltaTable> kept = Pipeline.keptTable(storage, engine, s);
    if (kept.isPresent()) {
      // The current-state table lakesink keeps: read as it is, not the whole changelog.
      t = kept.get();
      rows = new ArrayList<>(DeltaTableReader.readAll(t));
      rows.forEach(r -> {
        // As the view shows it: without what ranks the stored change beside its own time.
        r.keySet().removeAll(List.of(ChangelogColumns.PARTITION, ChangelogColumns.OFFSET, ChangelogColumns.RANK_TS_MS));
        if (!s.includeMetadataColumns()) {
          r.keySet().removeAll(List.of(ChangelogColumns.OP, ChangelogColumns.TS_MS));
        }
      });
    } else {
      rows = s.mode() == DeliveryMode.MERGE
          ? DeltaTableReader.readAll(t) // a merged table is the current state
          : CurrentState.collapse(DeltaTableReader.readAll(t), s.primaryKey(), s.includeMetadataColumns());
    }
    rows.sort(Comparator.comparing(r -> s.primaryKey().stream().map(k -> String.valueOf(r.get(k))).collect(Collectors.joining("\u0000"))));
    StringBuilder out = new StringBuilder();
    out.append("Current state of ").append(TableNames.sanitize(s.table())).append(" (")
        .append(rows.size()).append(" rows, from ").append(t.location()).append(" version ").append(t.version()).append("):\n");
    for (Map<String, Object> r : rows) {
      out.append("  ").append(r).append('\n');
    }
    return out.toString();
  }
}
