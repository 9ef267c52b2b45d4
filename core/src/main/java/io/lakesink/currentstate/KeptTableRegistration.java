package io.lakesink.currentstate;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
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
 */
public final class KeptTableRegistration {
  private static final Logger log = LoggerFactory.getLogger(KeptTableRegistration.class);
  static final long RECHECK_MILLIS = 10_000;

  private final CurrentStateTable kept;
  private final TableCatalog catalog;
  private final Executor executor;
  private final Clock clock;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile List<Column> registered;
  private volatile String problem;
  private long next;

  public KeptTableRegistration(CurrentStateTable kept, TableCatalog catalog, Executor executor, Clock clock) {
    this.kept = kept;
    this.catalog = catalog;
    this.executor = executor;
    this.clock = clock;
  }

  /** Registers the table, or brings its entry up to date, when due; returns at once. */
  public void poll() {
    if (catalog == TableCatalog.NONE || kept.refusal().isPresent() || clock.millis() < next
        || !running.compareAndSet(false, true)) {
      return;
    }
    next = clock.millis() + RECHECK_MILLIS;
    executor.execute(() -> {
      try {
        // A handle of its own: the kept table's is the writer thread's.
        DeltaTable table = kept.table().another();
        List<Column> columns = table.columns().orElse(null);
        if (columns == null || columns.equals(registered)) {
          return;
        }
        catalog.registerKeptTable(new CatalogTable(kept.name(), table.location(), columns, List.of()));
        registered = columns;
        problem = null;
        log.info("Registered the current-state table {} in {} ({} columns)", kept.name(), catalog.describe(), columns.size());
      } catch (TableFailureException e) {
        kept.stop(e);
      } catch (RuntimeException e) {
        problem = e.getMessage();
        log.warn("Cannot register the current-state table {} in {} yet: {}", kept.name(), catalog.describe(), e.toString());
      } finally {
        running.set(false);
      }
    });
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
