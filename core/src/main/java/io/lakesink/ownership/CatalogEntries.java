package io.lakesink.ownership;

import io.lakesink.catalog.CatalogTable;
import java.util.Optional;

/**
 * The catalogs of lakesink's configuration as a hand-off sees them: entries by named catalog and
 * full name, each pointing at a table's location. Implemented per catalog type outside the core
 * (the core speaks no HTTP).
 *
 * <p>Errors follow lakesink's taxonomy: {@link io.lakesink.error.RetryableException} when the
 * catalog is unavailable, {@link io.lakesink.error.TableFailureException} when the name holds
 * something that is not this table, {@link io.lakesink.error.ConfigurationException} for an
 * unknown catalog, credentials or grants.
 */
public interface CatalogEntries {
  /** Where the entry points; empty when there is none. */
  Optional<String> location(String catalog, String entry);

  /**
   * Creates the entry at the table's location. An entry already at that same location is
   * accepted (a resumed hand-off, or a 409 for our own entry); any other is refused.
   */
  void register(String catalog, String entry, CatalogTable table);

  /**
   * Refuses, before a hand-off fences the table, a destination whose {@link #register} would be
   * refused now (its name held by another table, its namespace missing), so that such a hand-off
   * does not leave the table fenced and without an entry. Changes nothing; the register itself
   * checks again (the name can be taken in between). By default nothing is checked here.
   */
  default void checkRegistrable(String catalog, String entry, CatalogTable table) {}

  /** Deletes the entry when it points at {@code location}, leaving the files; nothing when absent. */
  void unregister(String catalog, String entry, String location);
}
