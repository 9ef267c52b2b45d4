package io.lakesink.catalog;

import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one table's catalog registration in line with its Delta schema. Registration follows
 * the data and never holds it back: catalog calls run on their own executor, never on the thread
 * that polls Kafka (a slow catalog must not get the worker evicted from its group), and when the
 * catalog is unavailable or refuses, the table keeps being written, the problem is reported, and
 * registration is tried again later.
 *
 * <p>{@link #tableChanged} and {@link #outcome} are called by the delivery thread; the catalog
 * calls and the registration state below them belong to the executor, one call per table at a
 * time.
 */
public final class CatalogSync {
  private static final Logger log = LoggerFactory.getLogger(CatalogSync.class);
  /** How long to wait before trying a failed registration again. */
  public static final Duration RETRY = Duration.ofMinutes(1);

  /** What the last finished registration attempt found. */
  public sealed interface Outcome {
    /** The catalog holds the table as it is. */
    record InSync() implements Outcome {}

    /** Registration failed for now; the data keeps flowing and it is retried. */
    record Problem(String reason) implements Outcome {}

    /** The catalog holds something else under the table's name: the table must stop. */
    record Refused(TableFailureException reason) implements Outcome {}
  }

  private final TableCatalog catalog;
  private final String name;
  private final Clock clock;
  private final Executor executor;
  // Executor side.
  private CatalogTable registered; // the shape the catalog last accepted
  private String problem;
  private Instant nextAttempt = Instant.MIN;
  private CatalogTable built; // the shape the current-state object was last built (or found) for
  private String buildProblem;
  private int buildFailures;
  private Instant nextBuild = Instant.MIN;
  private String followProblem; // why the last TableCatalog.committed failed; null when it did not
  // Delivery-thread side.
  private CompletableFuture<Outcome> inFlight;
  private CatalogTable waiting; // the latest shape, to register once the call in flight ends
  private volatile boolean mayCreate = true; // whether a missing entry may be created (see TableOwnership)
  /** Null unless the catalog follows commits: then at most one attempt per this interval. */
  private final Duration followEvery;
  private Instant lastStarted = Instant.MIN;
  private CatalogTable owed; // commits the catalog has not heard of, held back by followEvery

  public CatalogSync(TableCatalog catalog, String name, Clock clock, Executor executor) {
    this.catalog = catalog;
    this.name = name;
    this.clock = clock;
    this.executor = executor;
    this.followEvery = catalog.followsCommits().orElse(null);
  }

  public boolean enabled() {
    return catalog != TableCatalog.NONE;
  }

  /**
   * Like {@link #tableChanged(CatalogTable)}; {@code mayCreate} false: the entry was created
   * before, and when it is missing it is reported, not created again.
   */
  public void tableChanged(CatalogTable table, boolean mayCreate) {
    this.mayCreate = mayCreate;
    tableChanged(table);
  }

  /**
   * The table has this shape now (and, for a catalog that follows commits, new commits):
   * registers it (or checks it) in the background. A catalog that follows commits hears of them
   * at most once per its interval; what arrives in between is owed, and {@link #poll} or {@link
   * #await} pass it on.
   */
  public void tableChanged(CatalogTable table) {
    if (!enabled()) {
      return;
    }
    if (inFlight != null && !inFlight.isDone()) {
      waiting = table;
      return;
    }
    if (followEvery != null && clock.instant().isBefore(lastStarted.plus(followEvery))) {
      owed = table;
      return;
    }
    start(table);
  }

  /** On the delivery thread, between polls: passes owed commits on once the interval is over. */
  public void poll() {
    if (owed != null && inFlight == null && !clock.instant().isBefore(lastStarted.plus(followEvery))) {
      start(owed);
    }
  }

  private void start(CatalogTable table) {
    waiting = null;
    owed = null;
    lastStarted = clock.instant();
    inFlight = CompletableFuture.supplyAsync(() -> sync(table), executor);
  }

  /** The outcome of the last attempt once it finished, at most once per attempt. */
  public Optional<Outcome> outcome() {
    if (inFlight == null || !inFlight.isDone()) {
      return Optional.empty();
    }
    return Optional.of(take());
  }

  /**
   * Like {@link #outcome}, waiting up to {@code timeout} for the attempt in flight and for the
   * shape that arrived meanwhile (a new column committed while the start-up registration ran):
   * every finished attempt's outcome is handed to {@code apply}, in order. Without following the
   * queued shape, a worker that stops right after a schema change would leave its catalog
   * entry and current-state object on the old columns until its next start.
   */
  public void await(Duration timeout, Consumer<Outcome> apply) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (inFlight == null) {
        if (owed == null) {
          return;
        }
        start(owed); // at stop, the last commits reach the catalog without waiting for the interval
      }
      try {
        inFlight.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        // handled by take()
      }
      apply.accept(take()); // starts the queued shape, if any
    }
  }

  private Outcome take() {
    Outcome result;
    try {
      result = inFlight.join();
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      result = new Outcome.Problem("catalog registration failed unexpectedly: " + cause);
      log.error("Registering {} failed unexpectedly", name, cause);
    }
    inFlight = null;
    if (waiting != null) {
      tableChanged(waiting);
    }
    return result;
  }

  /**
   * One registration attempt, then the current-state object over it, then (for a catalog that
   * follows commits) the commits since the last attempt; runs on the executor.
   */
  private Outcome sync(CatalogTable table) {
    boolean registeredNow = !table.equals(registered) || problem != null;
    Outcome outcome = registration(table);
    if (followEvery == null || registeredNow || registered == null || !(outcome instanceof Outcome.InSync)) {
      return outcome; // a registration that just ran brought the catalog up to the latest commit
    }
    try {
      catalog.committed(table);
      if (followProblem != null) {
        log.info("Table {} is current in {} again", name, catalog.describe());
      }
      followProblem = null;
      return outcome;
    } catch (RuntimeException e) {
      // Whatever it is, the data keeps flowing: the next commit (or the degraded table's recheck) tries again.
      String reason = "catalog not advanced to the latest commits: " + e.getMessage();
      if (!reason.equals(followProblem)) {
        log.error("Table {} is written, but {} does not follow its latest commits (retried with the next ones): {}",
            name, catalog.describe(), e.getMessage());
      }
      followProblem = reason;
      return new Outcome.Problem(reason);
    }
  }

  private Outcome registration(CatalogTable table) {
    if (!table.equals(registered) || problem != null) {
      if (problem != null && clock.instant().isBefore(nextAttempt)) {
        return new Outcome.Problem(problem);
      }
      try {
        if (mayCreate) {
          catalog.register(table);
        } else {
          catalog.registerExisting(table);
        }
        if (problem != null) {
          log.info("Table {} is registered in {} again", name, catalog.describe());
        }
        registered = table;
        problem = null;
      } catch (TableFailureException e) {
        return new Outcome.Refused(e);
      } catch (RetryableException | ConfigurationException e) {
        problem = "catalog registration failed: " + e.getMessage();
        nextAttempt = clock.instant().plus(RETRY);
        log.error("Table {} could not be registered in {} (data keeps being written; retrying in {}): {}",
            name, catalog.describe(), RETRY, e.getMessage());
        return new Outcome.Problem(problem);
      }
    }
    return currentState(table);
  }

  /**
   * The current-state object over the table, built when the table's shape changed or a failed
   * build is due again ({@link RetrySchedule}); a new shape does not jump the schedule, so a
   * warehouse that refused is asked again only after the hour.
   */
  private Outcome currentState(CatalogTable table) {
    Instant now = clock.instant();
    if (buildProblem == null && table.equals(built)) {
      return new Outcome.InSync();
    }
    if (buildProblem != null && now.isBefore(nextBuild)) {
      return new Outcome.Problem(describeBuildProblem());
    }
    CurrentStateResult result = catalog.buildCurrentState(table);
    if (result instanceof CurrentStateResult.Failed f) {
      buildFailures++;
      Duration wait = RetrySchedule.after(buildFailures, f.warehouseRefused());
      nextBuild = now.plus(wait);
      buildProblem = f.reason();
      log.error("The current-state object over {} is not built (data keeps being written; attempt {} failed, next in {}): {}",
          name, buildFailures, wait, f.reason());
      return new Outcome.Problem(describeBuildProblem());
    }
    if (buildProblem != null) {
      log.info("The current-state object over {} is built again after {} failed attempts", name, buildFailures);
    }
    built = table;
    buildProblem = null;
    buildFailures = 0;
    return new Outcome.InSync();
  }

  /** For status: the reason, how many attempts failed and when the next one is. */
  private String describeBuildProblem() {
    return "current-state object not built: " + buildProblem + " (attempt " + buildFailures + " failed; next attempt at "
        + nextBuild + ")";
  }
}
