package io.lakesink.currentstate;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import io.lakesink.ownership.OwnerGuard;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwnership;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the kept current-state table in the subscription's catalog as an external table
 * under {@code <table>} (not a view), and again whenever it gains columns: like any table
 * lakesink writes, on the catalog thread, never on the thread that polls. lakesink's own view of
 * the subscription, from before a switch to the table, gives the name up first
 * ({@link TableCatalog#registerKeptTable}). A name the catalog
 * already holds for another object (a view, another table, another location) is refused by the
 * catalog, which leaves it untouched: the kept table then stops with that reason, and the
 * changelog keeps flowing. Any other failure is tried again.
 *
 * <p>Ownership is the same as every lakesink table's ({@link TableOwnership}, docs/catalog-handoff.md):
 * the kept table records the entry it is registered as in its Delta log, a table from before is
 * adopted, only the owning entry registers it, an entry removed by someone is reported rather than
 * created again, and the follow's commits are guarded ({@link OwnerGuard}), so a hand-off's fence
 * or another owner stops the kept table instead of forking it. A catalog that follows commits (an
 * Iceberg REST catalog: its pointer to the Iceberg metadata must move with the Delta log) hears of
 * the kept table's new commits at most once per its interval.
 */
public final class KeptTableRegistration {
  private static final Logger log = LoggerFactory.getLogger(KeptTableRegistration.class);
  static final long RECHECK_MILLIS = 10_000;

  private final CurrentStateTable kept;
  private final TableCatalog catalog;
  private final OwnerIdentity identity; // null without a catalog
  private final Executor executor;
  private final Clock clock;
  private final Duration followEvery; // null unless the catalog follows commits
  private volatile CompletableFuture<Void> inFlight;
  private volatile List<Column> registered;
  private volatile String problem;
  private long next;
  /** The kept table's commits (by {@link CurrentStateTable#commits}) the catalog has heard of. */
  private volatile long followed;
  private long nextFollow;

  public KeptTableRegistration(CurrentStateTable kept, TableCatalog catalog, Executor executor, Clock clock) {
    this.kept = kept;
    this.catalog = catalog;
    this.executor = executor;
    this.clock = clock;
    this.identity = catalog.entryName(kept.name()).map(e -> new OwnerIdentity(catalog.catalogName(), e)).orElse(null);
    this.followEvery = catalog.followsCommits().orElse(null);
    // On the writer's handle: the follow's commits land only while this entry owns the table
    // (and a new kept table is created recording it as its owner).
    kept.table().guard(new OwnerGuard(kept.name(), identity));
  }

  /** Registers the table, or brings its entry up to date, when due; returns at once. */
  public void poll() {
    if (enabled() && due() && (inFlight == null || inFlight.isDone())) {
      start();
    }
  }

  /**
   * At the worker's stop: waits up to {@code timeout} for the attempt in flight, then brings the
   * catalog up to the kept table's last commits without waiting for the follow interval (as the
   * changelog's registration does), so a stopped worker leaves no commit unsynced.
   */
  public void settle(Duration timeout) {
    if (!enabled()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int round = 0; round < 2; round++) {
      CompletableFuture<Void> running = inFlight;
      if (running == null || running.isDone()) {
        if (registered != null && (followEvery == null || kept.commits() == followed)) {
          return;
        }
        running = start();
      }
      try {
        running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        log.warn("The catalog entry of the current-state table {} is not up to date at the stop: {}", kept.name(), e.toString());
        return;
      } catch (ExecutionException e) {
        log.warn("Syncing the catalog entry of the current-state table {} failed at the stop", kept.name(), e.getCause());
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private boolean enabled() {
    return catalog != TableCatalog.NONE && kept.refusal().isEmpty();
  }

  private CompletableFuture<Void> start() {
    long now = clock.millis();
    next = now + RECHECK_MILLIS;
    if (followEvery != null) {
      nextFollow = now + followEvery.toMillis();
    }
    long commits = kept.commits();
    CompletableFuture<Void> started = CompletableFuture.runAsync(() -> sync(commits), executor);
    inFlight = started;
    return started;
  }

  /** On the catalog thread: the owner checked (a table from before adopted), then the entry registered or followed. */
  private void sync(long commits) {
    try {
      // A handle of its own: the kept table's is the writer thread's.
      DeltaTable table = kept.table().another();
      if (!table.exists()) {
        return;
      }
      TableOwnership ownership = new TableOwnership(kept.name(), table, identity);
      boolean mayCreate = ownership.beforeRegistration(); // adopts a table from before; refuses another owner's
      List<Column> columns = table.columns().orElse(null);
      if (columns == null) {
        return;
      }
      CatalogTable entry = new CatalogTable(kept.name(), table.location(), columns, List.of());
      if (!columns.equals(registered)) {
        register(ownership, entry, mayCreate);
      } else if (followEvery != null && commits != followed) {
        catalog.committed(entry);
        log.debug("The current-state table {}'s entry in {} follows its commits ({})", kept.name(), catalog.describe(), commits);
      }
      followed = commits;
      problem = null;
    } catch (TableFailureException e) {
      kept.stop(e);
    } catch (RuntimeException e) {
      problem = e.getMessage();
      log.warn("Cannot register the current-state table {} in {} yet: {}", kept.name(), catalog.describe(), e.toString());
    }
  }

  private boolean due() {
    long now = clock.millis();
    return now >= next || followEvery != null && kept.commits() != followed && now >= nextFollow;
  }

  /**
   * A new entry only while the table says none was created yet (lakesink's view from before a
   * switch gives the name up); an entry it says exists is brought up to date, never created again.
   */
  private void register(TableOwnership ownership, CatalogTable entry, boolean mayCreate) {
    if (mayCreate) {
      catalog.registerKeptTable(entry);
    } else {
      catalog.registerExisting(entry);
    }
    ownership.registered();
    registered = entry.columns();
    log.info("Registered the current-state table {} in {} ({} columns)", kept.name(), catalog.describe(), entry.columns().size());
  }

  /** Whether the catalog holds the table with its current columns as last registered. */
  public boolean registered() {
    return registered != null;
  }

  /** Why the last registration failed (to be tried again), or null. */
  public String problem() {
    return problem;
  }
}
