package io.lakesink.iceberg.rest;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.error.Errors;
import io.lakesink.ownership.CatalogEntries;
import java.util.List;
import java.util.Optional;

/**
 * A named Iceberg REST catalog as a hand-off sees it: entries named {@code <namespace>.<table>}.
 * {@link #register} writes the Iceberg metadata beside the Delta table's log and registers it
 * ({@code overwrite} false; an entry already at this location is accepted, any other refused);
 * {@link #unregister} releases the entry without deleting a file (the spec's unregister when the
 * server advertises it, else a drop with {@code purgeRequested=false}), only when it points at
 * the table's location.
 */
public final class IcebergRestEntries implements CatalogEntries {
  private final IcebergRestCatalog catalog;

  IcebergRestEntries(IcebergRestCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public Optional<String> location(String name, String entry) {
    check(name);
    return catalog.location(catalog.identifier(entry));
  }

  @Override
  public void register(String name, String entry, CatalogTable table) {
    check(name);
    catalog.register(catalog.identifier(entry), table, true);
  }

  /** Before a hand-off's fence: the name free (or this table's) and the namespace there. */
  @Override
  public void checkRegistrable(String name, String entry, CatalogTable table) {
    check(name);
    catalog.checkRegistrable(catalog.identifier(entry), table.location());
  }

  @Override
  public void unregister(String name, String entry, String location) {
    check(name);
    catalog.unregister(catalog.identifier(entry), location);
  }

  private void check(String name) {
    if (!catalog.catalogName().equals(name)) {
      throw Errors.unknownCatalog("The entry", name, name, List.of(catalog.catalogName()));
    }
  }
}
