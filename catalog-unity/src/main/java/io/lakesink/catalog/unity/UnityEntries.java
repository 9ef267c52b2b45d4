package io.lakesink.catalog.unity;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.ownership.CatalogEntries;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A named Unity Catalog of the configuration as a hand-off sees it: entries named {@code
 * <catalog>.<schema>.<table>} anywhere in the workspace, reached with the configured service
 * principal. Registering is {@link UnityCatalog#register} (a 409 for an entry at this same
 * location is accepted, any other refused); unregistering deletes the external entry, which
 * never deletes its files.
 */
public final class UnityEntries implements CatalogEntries {
  private final String name;
  private final UnityCatalog base;
  private final Map<List<String>, UnityCatalog> byNamespace = new ConcurrentHashMap<>();

  /** @param name the catalog's name in lakesink's configuration ({@code default} for {@code catalog:}) */
  public UnityEntries(String name, UnityCatalog base) {
    this.name = name;
    this.base = base;
  }

  @Override
  public Optional<String> location(String catalog, String entry) {
    String[] p = parts(catalog, entry);
    return namespace(p).entryLocation(p[2]);
  }

  @Override
  public void register(String catalog, String entry, CatalogTable table) {
    String[] p = parts(catalog, entry);
    namespace(p).register(new CatalogTable(p[2], table.location(), table.columns(), table.partitionColumns(), table.recordKey()));
  }

  @Override
  public void unregister(String catalog, String entry, String location) {
    String[] p = parts(catalog, entry);
    namespace(p).unregister(p[2], location);
  }

  private UnityCatalog namespace(String[] p) {
    return byNamespace.computeIfAbsent(List.of(p[0], p[1]), k -> base.inNamespace(p[0], p[1]));
  }

  private String[] parts(String catalog, String entry) {
    if (!name.equals(catalog)) {
      throw Errors.unknownCatalog("The entry", catalog + "." + entry, catalog, List.of(name));
    }
    String[] p = entry.split("\\.");
    if (p.length != 3 || java.util.Arrays.stream(p).anyMatch(String::isBlank)) {
      throw new ConfigurationException("A Unity Catalog entry is named <catalog>.<schema>.<table>, not '" + entry
          + "': write the destination as " + name + ".<catalog>.<schema>.<table>.");
    }
    return p;
  }
}
