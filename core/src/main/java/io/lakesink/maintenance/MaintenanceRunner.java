package io.lakesink.maintenance;

import io.lakesink.delta.DeltaTable;
import io.lakesink.error.Errors;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one table's maintenance when it is due, beside its delivery: optimize every
 * {@code optimizeEveryCommits} delivery commits, once the table holds more than
 * {@code optimizeAboveFiles} files, or once its deletion vectors delete more rows than its files
 * hold live (a reader would read more than twice the rows it returns), vacuum after every
 * {@code vacuumEveryOptimizes} optimizations. Driven from the delivery's poll thread
 * ({@link #committed}, {@link #poll}); the work itself runs on the policy's executor with its own
 * handle on the table.
 *
 * <p>An optimization goes in steps of bounded input ({@link MaintenanceSettings#stepBytes}).
 * For a table whose delivery rewrites or deletes rows (MERGE), a step <em>holds</em> the
 * delivery: while it runs no flush starts ({@link #holdsDelivery}), so the step's commit never
 * races the worker's own merges (it lost every race to a busy table before: every merge gives the
 * files it touches a new deletion vector). Between two steps the delivery gets its turn: a step
 * does not follow another until a delivery commit went through, if the delivery has events
 * waiting. A changelog's appends never conflict with a rewrite, so its steps hold nothing.
 *
 * <p>A step that loses to another writer (a second worker, delta-spark) gives up safely; the
 * optimization is tried again after {@code fileCountCheckEveryCommits} commits with half the
 * budget, down to a single file's worth, and repeated give-ups show as a warning in
 * {@code /status}.
 *
 * <p>Commits are counted from the worker's start; the file count is also looked at on start, so
 * a table that grew while no worker ran is optimized at once.
 */
public final class MaintenanceRunner {
  private static final Logger log = LoggerFactory.getLogger(MaintenanceRunner.class);
  /** Give-ups in a row before they are a warning: one is a race, three are another writer. */
  static final int GIVE_UPS_WARNED = 3;

  private final TableMaintenance maintenance;
  private final MaintenanceSettings settings;
  private final MaintenancePolicy policy;
  private final KeyWarnings warnings;
  private final boolean holds;
  private final StepGate gate;
  private int commitsSinceOptimize;
  private int commitsSinceFileCheck;
  private int commitsSinceStep;
  private int optimizesSinceVacuum;
  /** Commits after which the next optimization is due: fewer after a give-up. */
  private int optimizeAfter;
  private boolean optimizeWanted;
  private boolean vacuumDue;
  private int giveUpsInARow;
  private int files = -1;
  /** The optimization in progress, between its steps; null when none is. */
  private TableMaintenance.Optimization optimization;
  private OptimizeResult optimized;
  private Run running;
  private Report last = Report.NONE;

  /** What one run did; fields are null when that step did not run. */
  public record Report(OptimizeResult optimize, VacuumResult vacuum) {
    static final Report NONE = new Report(null, null);
  }

  /**
   * What {@code /status} shows of a table's maintenance.
   *
   * @param files the table's live files when last counted, or -1 before
   * @param optimizeGiveUps optimizations given up in a row (another writer won the race)
   */
  public record State(int files, int optimizeGiveUps) {}

  /** Work started on the executor; {@code holds} when the delivery waits for it. */
  private record Run(CompletableFuture<Outcome> future, boolean holds) {}

  /** What a run found, applied on the poll thread. */
  private sealed interface Outcome {
    record Counted(TableMaintenance.Layout layout) implements Outcome {}

    record Stepped(OptimizeResult result, int files) implements Outcome {}

    record Vacuumed(VacuumResult result) implements Outcome {}
  }

  /**
   * @param table the delivery's table; maintenance works on another handle of it
   * @param keyColumns the MERGE key to cluster on and check; empty for a changelog
   * @param holdsDelivery whether an optimize step holds the delivery (a MERGE table: its commits
   *     would conflict with the step's)
   */
  public MaintenanceRunner(
      String name, DeltaTable table, List<String> keyColumns, boolean holdsDelivery, MaintenancePolicy policy, Clock clock) {
    this(name, table, keyColumns, holdsDelivery, StepGate.NONE, policy, clock);
  }

  /**
   * @param gate what a holding step also takes before it starts (another thread committing to
   *     the table: a kept current-state table's follower)
   */
  public MaintenanceRunner(String name, DeltaTable table, List<String> keyColumns, boolean holdsDelivery, StepGate gate,
      MaintenancePolicy policy, Clock clock) {
    this(new TableMaintenance(name, table.another(), keyColumns, policy.settings(), clock, line -> log.info("{}", line)),
        keyColumns, holdsDelivery, gate, policy);
  }

  /** Runs {@code maintenance}, which works on its own handle of the table. */
  MaintenanceRunner(TableMaintenance maintenance, List<String> keyColumns, boolean holdsDelivery, MaintenancePolicy policy) {
    this(maintenance, keyColumns, holdsDelivery, StepGate.NONE, policy);
  }

  private MaintenanceRunner(
      TableMaintenance maintenance, List<String> keyColumns, boolean holdsDelivery, StepGate gate, MaintenancePolicy policy) {
    this.settings = policy.settings();
    this.policy = policy;
    this.holds = holdsDelivery;
    this.gate = gate;
    this.maintenance = maintenance;
    this.warnings = new KeyWarnings(maintenance.table(), keyColumns);
    this.commitsSinceFileCheck = settings.fileCountCheckEveryCommits(); // look at the table on start
    this.optimizeAfter = settings.optimizeEveryCommits();
  }

  public KeyWarnings warnings() {
    return warnings;
  }

  /** The last run that optimized or vacuumed. */
  public Report last() {
    return last;
  }

  public State state() {
    return new State(files, giveUpsInARow);
  }

  /** A delivery commit went through. */
  public void committed() {
    commitsSinceOptimize++;
    commitsSinceFileCheck++;
    commitsSinceStep++;
  }

  /**
   * Whether an optimize step of this table is running, or finished and not yet collected by
   * {@link #poll}: no flush of the table may start meanwhile.
   */
  public boolean holdsDelivery() {
    return running != null && running.holds();
  }

  /**
   * Collects a finished run and starts the next one when due; cheap otherwise. Call only while no
   * flush of the table is in flight.
   *
   * @param deliveryWaiting whether the delivery has events buffered: a step then waits for a
   *     delivery commit before the next one starts
   * @return the optimize step collected, when one was
   */
  public Optional<OptimizeResult> poll(boolean deliveryWaiting) {
    if (!policy.enabled()) {
      return Optional.empty();
    }
    Optional<OptimizeResult> collected = Optional.empty();
    if (running != null) {
      if (!running.future().isDone()) {
        return collected;
      }
      collected = collect();
    }
    if (optimization != null) {
      if (!(holds && deliveryWaiting && commitsSinceStep == 0)) {
        step();
      }
    } else if (vacuumDue) {
      start(() -> new Outcome.Vacuumed(maintenance.vacuum(Optional.empty(), false, false)), false);
    } else if (optimizeWanted || commitsSinceOptimize >= optimizeAfter) {
      optimizeWanted = false;
      commitsSinceOptimize = 0;
      commitsSinceFileCheck = 0;
      optimization = maintenance.startOptimization();
      step();
    } else if (commitsSinceFileCheck >= settings.fileCountCheckEveryCommits()) {
      commitsSinceFileCheck = 0;
      start(() -> new Outcome.Counted(maintenance.layout(warnings)), false);
    }
    return collected;
  }

  /** Waits for a run in progress, then collects it (tests, shutdown). */
  public void await() {
    if (running != null) {
      running.future().exceptionally(e -> null).join();
      collect();
    }
  }

  /** Whether work is left that the next {@link #poll} starts without waiting for a commit. */
  public boolean pending() {
    return running != null || optimization != null || vacuumDue || optimizeWanted;
  }

  /**
   * Waits up to {@code timeoutMillis} for a step that holds the delivery (a final flush before a
   * rebalance or a shutdown); the step is collected by the next {@link #poll}.
   */
  public void awaitHold(long timeoutMillis) {
    if (holdsDelivery()) {
      try {
        running.future().get(Math.max(0, timeoutMillis), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        log.info("An optimize step of {} is still running; the flush goes ahead and one of the two commits may have to"
            + " be planned again", maintenance.table());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.ExecutionException e) {
        // reported when collected
      }
    }
  }

  private void step() {
    if (holds && !gate.tryHold()) {
      return; // the other committer's work runs: the step starts on a later poll, after it
    }
    commitsSinceStep = 0;
    TableMaintenance.Optimization run = optimization;
    // After give-ups, a smaller scope: less to lose, and less for another writer to change.
    long budget = settings.stepBytes() >> Math.min(giveUpsInARow, 20);
    try {
      start(() -> {
        OptimizeResult r = run.step(budget);
        log.info("{}", r);
        return new Outcome.Stepped(r, r.committed() ? maintenance.fileCount(warnings) : -1);
      }, holds);
    } catch (RuntimeException e) {
      if (holds) {
        gate.release(); // the step never started: nothing to wait for
      }
      throw e;
    }
  }

  private void start(Supplier<Outcome> work, boolean holdsDelivery) {
    CompletableFuture<Outcome> future = CompletableFuture.supplyAsync(work, policy.executor());
    if (holdsDelivery) {
      // The gate's other committer goes on as soon as the step ended, not when it is collected.
      future.whenComplete((outcome, failure) -> gate.release());
    }
    running = new Run(future, holdsDelivery);
  }

  private Optional<OptimizeResult> collect() {
    Run done = running;
    running = null;
    Outcome outcome;
    try {
      outcome = done.future().join();
    } catch (RuntimeException e) {
      // Maintenance never stops delivery: it is tried again when next due.
      log.warn("Maintenance of {} failed, tried again when next due: {}", maintenance.table(), e.toString());
      optimization = null;
      optimized = null;
      vacuumDue = false;
      return Optional.empty();
    }
    if (outcome instanceof Outcome.Counted c) {
      files = c.layout().files();
      if (files > settings.optimizeAboveFiles()) {
        log.info("{} holds {} files, over {}: optimizing", maintenance.table(), files, settings.optimizeAboveFiles());
        optimizeWanted = true;
      } else if (c.layout().mostlyDeleted()) {
        // A MERGE or kept table whose updates are spread over its keys marks rows deleted in
        // every file and appends their new versions: long before 100 commits a reader reads
        // several times the rows it returns (the kept table of the read benchmark,
        // docs/current-state-table.md).
        log.info("{}: deletion vectors delete {} rows, more than the {} live: optimizing", maintenance.table(),
            c.layout().deletedRows(), c.layout().rows());
        optimizeWanted = true;
      }
      return Optional.empty();
    }
    if (outcome instanceof Outcome.Vacuumed v) {
      vacuumDue = false;
      optimizesSinceVacuum = 0;
      log.info("{}", v.result());
      last = new Report(last.optimize(), v.result());
      return Optional.empty();
    }
    Outcome.Stepped s = (Outcome.Stepped) outcome;
    apply(s.result(), s.files());
    return Optional.of(s.result());
  }

  private void apply(OptimizeResult step, int counted) {
    optimized = optimized == null ? step : optimized.then(step);
    if (counted >= 0) {
      files = counted;
    }
    if (step.gaveUp()) {
      giveUpsInARow++;
      optimization = null;
      optimizeAfter = settings.fileCountCheckEveryCommits();
      if (giveUpsInARow >= GIVE_UPS_WARNED) {
        warnings.warn("optimize", Errors.optimizeKeepsGivingUp(maintenance.table(), giveUpsInARow, files));
      }
    } else {
      giveUpsInARow = 0;
      warnings.clear("optimize");
      optimizeAfter = settings.optimizeEveryCommits();
      if (step.committed()) {
        warnings.optimized();
      }
      if (step.more()) {
        return; // the next step follows
      }
      // An optimization with nothing to rewrite counts too: a clustered MERGE table may need
      // none for long while its merges keep leaving replaced files for vacuum.
      optimization = null;
      vacuumDue = ++optimizesSinceVacuum >= settings.vacuumEveryOptimizes();
    }
    last = new Report(optimized, null);
    optimized = null;
  }
}
