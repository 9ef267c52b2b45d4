package io.lakesink.catalog;

import io.lakesink.delta.DeltaTable;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one table's catalog registration in line with its Delta schema. Registration follows
 * the data and never holds it back: when the catalog is unavailable or refuses, the table keeps
 * being written, the problem is reported, and registration is tried again later.
 */
public final class CatalogSync {
  private static final Logger log = LoggerFactory.getLogger(CatalogSync.class);
  /** How long to wait before trying a failed registration again. */
  public static final Duration RETRY = Duration.ofMinutes(1);

  private final TableCatalog catalog;
  private final String name;
  private final Clock clock;
  private List<Column> registered; // the columns the catalog last accepted
  private String problem;
  private Instant nextAttempt = Instant.MIN;

  public CatalogSync(TableCatalog catalog, String name, Clock clock) {
    this.catalog = catalog;
    this.name = name;
    this.clock = clock;
  }

  /**
   * Registers the table if it exists and its columns changed since the last registration (or
   * a failed one is due again). Returns the problem that remains, if any.
   *
   * @throws TableFailureException when the catalog holds something else under the table's name
   */
  public Optional<String> sync(DeltaTable table) {
    if (catalog == TableCatalog.NONE) {
      return Optional.empty();
    }
    Optional<List<Column>> columns = table.columns();
    if (columns.isEmpty() || (columns.get().equals(registered) && problem == null)) {
      return Optional.ofNullable(problem);
    }
    if (problem != null && clock.instant().isBefore(nextAttempt)) {
      return Optional.of(problem);
    }
    try {
      catalog.register(new CatalogTable(name, table.location(), columns.get(), table.partitionColumns()));
      if (problem != null) {
        log.info("Table {} is registered in {} again", name, catalog.describe());
      }
      registered = columns.get();
      problem = null;
    } catch (RetryableException | ConfigurationException e) {
      problem = "catalog registration failed: " + e.getMessage();
      nextAttempt = clock.instant().plus(RETRY);
      log.error("Table {} could not be registered in {} (data keeps being written; retrying in {}): {}",
          name, catalog.describe(), RETRY, e.getMessage());
    }
    return Optional.ofNullable(problem);
  }
}
