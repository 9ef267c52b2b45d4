package io.lakesink.bench.soak;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.TableStorage;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.BooleanSupplier;
import io.delta.kernel.engine.Engine;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * One soak on one storage: workers in one consumer group deliver a changelog and a merge
 * subscription while the feed runs; the driver kills (SIGKILL) and restarts random workers at
 * random moments and now and then stops one (SIGSTOP) for longer than the poll interval. Then it
 * stops feeding, waits until the Delta logs store the topics' end offsets, stops the workers and
 * checks every row against the feed's model.
 *
 * <p>A kill or stop comes only after the tables made progress since the previous one (the
 * workers are working, not only rebalancing), then after a random delay: the random moment.
 */
final class SoakRun {
  static final String CHANGELOG_TABLE = "soak_changelog";
  static final String MERGE_TABLE = "soak_merge";
  private static final Duration POLL = Duration.ofMillis(500);

  private final SoakSettings settings;
  private final LocalKafkaBroker broker;
  private final SoakStorage storage;
  private final Path dir;
  private final PrintStream out;
  private final Random chaos;
  private final List<String> violations = new ArrayList<>();
  private final List<WorkerProcess> workers = new ArrayList<>();
  private int unexpectedExits;
  private WorkerProcess pausedWorker;
  private Instant resumeAt;

  SoakRun(SoakSettings settings, LocalKafkaBroker broker, SoakStorage storage, Path dir, PrintStream out) {
    this.settings = settings;
    this.broker = broker;
    this.storage = storage;
    this.dir = dir;
    this.out = out;
    // The chaos schedule has its own stream: the change stream stays the same for a seed
    // whatever the timing of the kills (which the machine decides anyway).
    this.chaos = new Random(settings.seed() ^ 0x5DEECE66DL);
  }

  SoakReport run() throws Exception {
    Instant start = Instant.now();
    String changelogTopic = "soak-" + storage.name() + "-changelog";
    String mergeTopic = "soak-" + storage.name() + "-merge";
    broker.createTopic(changelogTopic, settings.partitions());
    broker.createTopic(mergeTopic, settings.partitions());
    String yaml = workerYaml(changelogTopic, mergeTopic);
    Path config = Files.writeString(Files.createDirectories(dir).resolve("worker.yaml"), yaml);
    Path logDir = Files.createDirectories(dir.resolve("logs"));
    WorkerConfig parsed = ConfigLoader.fromSystemEnvironment().parse(yaml, config.toString());
    Thread killWorkers = new Thread(() -> workers.forEach(WorkerProcess::destroy), "soak-kill-workers");
    Runtime.getRuntime().addShutdownHook(killWorkers);

    int kills = 0;
    int stops = 0;
    Instant chaosEnd;
    Instant caughtUp;
    long changes;
    long tombstones;
    List<Map<String, Object>> changelogRows;
    List<Map<String, Object>> mergeRows;
    try (TableStorage tables = Pipeline.storage(parsed.storage());
        ChangeFeed feed = new ChangeFeed(broker.bootstrapServers(), changelogTopic, mergeTopic, settings.partitions(),
            settings.eventsPerSecond(), settings.seed())) {
      Engine engine = KernelEngine.create(tables);
      DeltaTable changelog = Pipeline.table(tables, engine, subscription(parsed, CHANGELOG_TABLE));
      DeltaTable merge = Pipeline.table(tables, engine, subscription(parsed, MERGE_TABLE));
      BooleanSupplier anyProgress = progressSince(changelog, changelogTopic, merge, mergeTopic);

      feed.start();
      for (int i = 0; i < settings.workers(); i++) {
        WorkerProcess w = new WorkerProcess(i, config, logDir.resolve("worker-" + i + ".log"), settings);
        workers.add(w);
        w.start();
      }
      out.printf("[%s] %d workers started (logs in %s); feeding %d events/s%n", storage.name(), workers.size(), logDir,
          settings.eventsPerSecond());

      while (kills < settings.kills() || stops < settings.stops()) {
        BooleanSupplier progress = anyProgress;
        if (!awaitCondition(progress, settings.stallTimeout())) {
          violations.add("no delivery progress for " + settings.stallTimeout().toSeconds() + " s after " + kills + " kills and "
              + stops + " stops (see the worker logs)");
          break;
        }
        anyProgress = progressSince(changelog, changelogTopic, merge, mergeTopic);
        pauseFor(Duration.ofMillis((long) (chaos.nextDouble() * settings.maxKillDelay().toMillis())));
        int killsLeft = settings.kills() - kills;
        int stopsLeft = settings.stops() - stops;
        boolean stop = pausedWorker == null && stopsLeft > 0 && chaos.nextInt(killsLeft + stopsLeft) < stopsLeft;
        if (stop) {
          WorkerProcess w = pick();
          w.pause();
          pausedWorker = w;
          resumeAt = Instant.now().plus(settings.pause());
          stops++;
        } else if (killsLeft > 0) {
          WorkerProcess w = pick();
          w.kill();
          w.start();
          kills++;
        }
        if ((kills + stops) % 20 == 0) {
          out.printf("[%s] %d kills, %d stops, %,d changes fed, %s elapsed%n", storage.name(), kills, stops, feed.changes(),
              Duration.between(start, Instant.now()).toSeconds() + " s");
        }
      }
      if (pausedWorker != null) {
        pauseFor(Duration.between(Instant.now(), resumeAt)); // a stop lasts its full pause, even the last one
      }
      chaosEnd = Instant.now();
      feed.stop();
      changes = feed.changes();
      tombstones = feed.tombstones();
      Map<Integer, Long> changelogEnd = endOffsets(changelogTopic);
      Map<Integer, Long> mergeEnd = endOffsets(mergeTopic);
      out.printf("[%s] chaos over after %d kills and %d stops; feeding stopped at %,d changes; waiting for the workers to catch up%n",
          storage.name(), kills, stops, changes);
      boolean done = awaitCondition(
          () -> stored(changelog, changelogTopic).equals(changelogEnd) && stored(merge, mergeTopic).equals(mergeEnd),
          settings.catchUpTimeout());
      caughtUp = Instant.now();
      if (!done) {
        violations.add("the workers did not catch up within " + settings.catchUpTimeout().toSeconds() + " s");
      }
      workers.forEach(WorkerProcess::stop);
      SoakChecks.offsets(CHANGELOG_TABLE, stored(changelog, changelogTopic), changelogEnd, violations);
      SoakChecks.offsets(MERGE_TABLE, stored(merge, mergeTopic), mergeEnd, violations);
      changelog.refresh();
      merge.refresh();
      changelogRows = DeltaTableReader.readAll(changelog);
      mergeRows = DeltaTableReader.readAll(merge);
      SoakChecks.changelog(changelogRows, feed.rowOffsets(), violations);
      SoakChecks.merge(mergeRows, feed.lastChangePerKey(), violations);
    } finally {
      workers.forEach(WorkerProcess::destroy);
      try {
        Runtime.getRuntime().removeShutdownHook(killWorkers);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
    if (unexpectedExits > 0) {
      violations.add(unexpectedExits + " worker(s) exited without being killed or stopped (see '=== soak' lines in the logs)");
    }
    WorkerLogs logs = WorkerLogs.read(workers.stream().map(w -> w.log).toList());
    return new SoakReport(storage.name(), settings.seed(), kills, stops, unexpectedExits, logs, changes,
        tombstones, changelogRows.size(), mergeRows.size(), Duration.between(start, chaosEnd),
        Duration.between(chaosEnd, caughtUp), Duration.between(start, Instant.now()), List.copyOf(violations));
  }

  private String workerYaml(String changelogTopic, String mergeTopic) {
    return """
        kafka:
          bootstrap_servers: %s
          group_id: soak-%s-%d
          properties:
            max.poll.interval.ms: "%d"
            session.timeout.ms: "%d"
            heartbeat.interval.ms: "2000"
            max.poll.records: "200"
        storage:
        %s
        delivery:
          flush_interval: 1s
          flush_rows: 100
        status:
          enabled: false
        subscriptions:
          - {topic: %s, table: %s, mode: changelog}
          - {topic: %s, table: %s, mode: merge, primary_key: [id]}
        """.formatted(broker.bootstrapServers(), storage.name(), settings.seed(), SoakSettings.MAX_POLL_INTERVAL.toMillis(),
        SoakSettings.SESSION_TIMEOUT.toMillis(), storage.yaml().stripTrailing(), changelogTopic, CHANGELOG_TABLE, mergeTopic,
        MERGE_TABLE);
  }

  private static Subscription subscription(WorkerConfig config, String table) {
    return config.subscriptions().stream().filter(s -> s.table().equals(table)).findFirst().orElseThrow();
  }

  /** A random worker that is not stopped. */
  private WorkerProcess pick() {
    List<WorkerProcess> candidates = workers.stream().filter(w -> w != pausedWorker).toList();
    return candidates.get(chaos.nextInt(candidates.size()));
  }

  /** True once either table's log stores more offsets than now. */
  private BooleanSupplier progressSince(DeltaTable changelog, String changelogTopic, DeltaTable merge, String mergeTopic) {
    long before = total(stored(changelog, changelogTopic)) + total(stored(merge, mergeTopic));
    return () -> total(stored(changelog, changelogTopic)) + total(stored(merge, mergeTopic)) > before;
  }

  private Map<Integer, Long> stored(DeltaTable table, String topic) {
    Map<String, Integer> byId = new HashMap<>();
    for (int p = 0; p < settings.partitions(); p++) {
      byId.put(new SourcePartition(topic, p).applicationId(), p);
    }
    table.refresh();
    Map<Integer, Long> result = new HashMap<>();
    table.transactionVersions(byId.keySet()).forEach((id, v) -> result.put(byId.get(id), v));
    return result;
  }

  private static long total(Map<Integer, Long> offsets) {
    return offsets.values().stream().mapToLong(Long::longValue).sum();
  }

  private Map<Integer, Long> endOffsets(String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      for (int i = 0; i < settings.partitions(); i++) {
        request.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      Map<Integer, Long> end = new HashMap<>();
      admin.listOffsets(request).all().get().forEach((tp, info) -> {
        if (info.offset() > 0) { // an empty partition has nothing to store
          end.put(tp.partition(), info.offset());
        }
      });
      return end;
    }
  }

  /**
   * Polls {@code condition} until it holds or {@code timeout} passes, meanwhile resuming a stopped
   * worker when its pause is over and restarting a worker that exited on its own (counted).
   */
  private boolean awaitCondition(BooleanSupplier condition, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      tend();
      if (condition.getAsBoolean()) {
        return true;
      }
      if (Instant.now().isAfter(deadline)) {
        return false;
      }
      pauseFor(POLL);
    }
  }

  /** Sleeps while still resuming and restarting on time. */
  private void pauseFor(Duration d) {
    Instant until = Instant.now().plus(d);
    while (Instant.now().isBefore(until)) {
      tend();
      long ms = Math.min(POLL.toMillis(), Duration.between(Instant.now(), until).toMillis());
      if (ms <= 0) {
        break;
      }
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    tend();
  }

  private void tend() {
    resumeDue();
    for (WorkerProcess w : workers) {
      Integer code = w.unexpectedExitCode();
      if (code != null) {
        unexpectedExits++;
        out.printf("[%s] worker %d exited on its own with code %d; restarting it (log %s)%n", storage.name(), w.slot, code, w.log);
        w.start();
      }
    }
  }

  private void resumeDue() {
    if (pausedWorker != null && !Instant.now().isBefore(resumeAt)) {
      pausedWorker.resume();
      pausedWorker = null;
    }
  }
}
