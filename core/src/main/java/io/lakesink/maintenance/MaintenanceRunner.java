package io.lakesink.maintenance;

import io.lakesink.delta.DeltaTable;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one table's maintenance when it is due, beside its delivery: optimize every
 * {@code optimizeEveryCommits} delivery commits or once the table holds more than
 * {@code optimizeAboveFiles} files, vacuum after every {@code vacuumEveryOptimizes}
 * optimizations. Driven from the delivery thread ({@link #committed}, {@link #poll}); the work
 * itself runs on the policy's executor with its own handle on the table.
 *
 * <p>Commits are counted from the worker's start; the file count is also looked at on start, so
 * a table that grew while no worker ran is optimized at once.
 */
public final class MaintenanceRunner {
  private static final Logger log = LoggerFactory.getLogger(MaintenanceRunner.class);

  private final TableMaintenance maintenance;
  private final MaintenanceSettings settings;
  private final MaintenancePolicy policy;
  private final KeyWarnings warnings;
  private int commitsSinceOptimize;
  private int commitsSinceFileCheck;
  private int optimizesSinceVacuum;
  private CompletableFuture<Report> running;
  private Report last = Report.NONE;

  /** What one run did; fields are null when that step did not run. */
  public record Report(OptimizeResult optimize, VacuumResult vacuum) {
    static final Report NONE = new Report(null, null);
  }

  /**
   * @param table the delivery's table; maintenance works on another handle of it
   * @param keyColumns the MERGE key to cluster on and check; empty for a changelog
   */
  public MaintenanceRunner(String name, DeltaTable table, List<String> keyColumns, MaintenancePolicy policy, Clock clock) {
    this.settings = policy.settings();
    this.policy = policy;
    this.maintenance = new TableMaintenance(name, table.another(), keyColumns, settings, clock, line -> log.info("{}", line));
    this.warnings = new KeyWarnings(name, keyColumns);
    this.commitsSinceFileCheck = settings.fileCountCheckEveryCommits(); // look at the table on start
  }

  public KeyWarnings warnings() {
    return warnings;
  }

  /** The last run that did something. */
  public Report last() {
    return last;
  }

  /** A delivery commit went through. */
  public void committed() {
    commitsSinceOptimize++;
    commitsSinceFileCheck++;
  }

  /** Collects a finished run and starts the next one when due; cheap otherwise. */
  public void poll() {
    if (!policy.enabled()) {
      return;
    }
    if (running != null) {
      if (!running.isDone()) {
        return;
      }
      collect();
    }
    boolean optimizeDue = commitsSinceOptimize >= settings.optimizeEveryCommits();
    if (!optimizeDue && commitsSinceFileCheck < settings.fileCountCheckEveryCommits()) {
      return;
    }
    commitsSinceFileCheck = 0;
    if (optimizeDue) {
      commitsSinceOptimize = 0;
    }
    boolean vacuumNext = optimizesSinceVacuum + 1 >= settings.vacuumEveryOptimizes();
    running = CompletableFuture.supplyAsync(() -> run(optimizeDue, vacuumNext), policy.executor());
  }

  /** Waits for a run in progress (tests, shutdown). */
  public void await() {
    if (running != null) {
      running.exceptionally(e -> null).join();
      collect();
    }
  }

  private void collect() {
    CompletableFuture<Report> done = running;
    running = null;
    try {
      Report r = done.join();
      if (r.optimize() != null && !r.optimize().gaveUp()) {
        // An optimization with nothing to rewrite counts too: a clustered MERGE table may need
        // none for long while its merges keep leaving replaced files for vacuum.
        commitsSinceOptimize = 0;
        optimizesSinceVacuum = r.vacuum() != null ? 0 : optimizesSinceVacuum + 1;
      }
      if (r.optimize() != null || r.vacuum() != null) {
        last = r;
      }
    } catch (RuntimeException e) {
      // Maintenance never stops delivery: it is tried again when next due.
      log.warn("Maintenance of {} failed, tried again when next due: {}", maintenance.table(), e.toString());
    }
  }

  private Report run(boolean optimizeDue, boolean vacuumNext) {
    if (!optimizeDue) {
      int files = maintenance.fileCount(warnings);
      if (files <= settings.optimizeAboveFiles()) {
        return Report.NONE;
      }
      log.info("{} holds {} files, over {}: optimizing", maintenance.table(), files, settings.optimizeAboveFiles());
    }
    OptimizeResult optimized = maintenance.optimize(false);
    log.info("{}", optimized);
    VacuumResult vacuumed = null;
    if (!optimized.gaveUp() && vacuumNext) {
      vacuumed = maintenance.vacuum(Optional.empty(), false, false);
      log.info("{}", vacuumed);
    }
    if (optimized.committed()) {
      warnings.optimized();
      maintenance.fileCount(warnings);
    }
    return new Report(optimized, vacuumed);
  }
}
