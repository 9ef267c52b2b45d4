package io.lakesink.app;

import io.delta.kernel.engine.Engine;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.storage.TableStorage;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code lakesink maintain}: optimize, vacuum and log cleanup of the configured tables on demand,
 * printing what each step did (files and bytes before and after) and progress for long runs.
 * Safe beside a running worker: a delivery commit racing an optimization wins.
 */
final class Maintain {
  /** What to run. */
  record Request(Optional<String> table, boolean optimize, boolean vacuum, boolean dryRun, Optional<Duration> retention, boolean force) {}

  /** A table to maintain: clustered on {@code clusteredOn} when it names columns, else compacted. */
  private record Target(String name, DeltaTable table, List<String> clusteredOn) {}

  private Maintain() {}

  static int run(Path configFile, Request request, PrintStream out) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    List<Subscription> subscriptions = request.table().map(t -> List.of(Commands.subscription(config, t))).orElse(config.subscriptions());
    // Neither step named: both, and the log cleanup that goes with them.
    boolean all = !request.optimize() && !request.vacuum();
    try (TableStorage storage = Pipeline.storage(config.storage()); Catalogs catalogs = Catalogs.of(config, storage)) {
      Engine engine = KernelEngine.create(storage);
      // Every table's owner is checked before any is touched: a refusal leaves all of them as they were.
      List<Target> targets = new ArrayList<>();
      for (Subscription s : subscriptions) {
        boolean merges = s.mode() == DeliveryMode.MERGE;
        targets.add(new Target(s.targetTable(), OwnedTables.open("maintain", storage, engine, s, catalogs),
            merges ? s.primaryKey() : List.of()));
        // The current-state table kept from a changelog: maintained as a MERGE table, clustered on the key.
        OwnedTables.openKept("maintain", storage, engine, s, catalogs)
            .ifPresent(kept -> targets.add(new Target(TableNames.sanitize(s.table()), kept, s.primaryKey())));
      }
      for (Target target : targets) {
        TableMaintenance m = new TableMaintenance(target.name(), target.table(), target.clusteredOn(),
            Commands.maintenance(config).settings(), Clock.systemUTC(), line -> out.println("  " + line));
        if (all || request.optimize()) {
          out.println(m.optimize(request.dryRun()));
        }
        if (all || request.vacuum()) {
          out.println(m.vacuum(request.retention(), request.force(), request.dryRun()));
        }
        if (all && !request.dryRun()) {
          out.println("log " + target.name() + ": removed " + m.cleanupLog() + " expired log files");
        }
      }
    }
    return ExitCode.OK.code;
  }
}
