package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.catalog.unity.ClientEnvironment;
import io.lakesink.catalog.unity.UnityCatalog;
import io.lakesink.catalog.unity.UnityEntries;
import io.lakesink.catalog.unity.UnitySettings;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.ownership.CatalogEntries;
import io.lakesink.view.CurrentStateSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The configuration's catalogs by name: {@code default} (the {@code catalog:} block) and those
 * of {@code catalogs:}, each created once, on first use. A subscription's tables are registered
 * in the catalog it names; a hand-off moves entries between any two of them.
 */
final class Catalogs implements AutoCloseable {
  private final WorkerConfig config;
  private final Map<String, TableCatalog> created = new HashMap<>();

  /** @param defaultCatalog the {@code default} catalog, as the caller built it */
  Catalogs(WorkerConfig config, TableCatalog defaultCatalog) {
    this.config = config;
    created.put(WorkerConfig.DEFAULT_CATALOG, defaultCatalog);
  }

  static Catalogs of(WorkerConfig config) {
    return new Catalogs(config, Pipeline.catalog(config));
  }

  /** @throws ConfigurationException for a name the configuration does not have */
  synchronized TableCatalog get(String name) {
    TableCatalog catalog = created.get(name);
    if (catalog != null) {
      return catalog;
    }
    WorkerConfig.CatalogSettings settings = config.catalog(name);
    if (settings == null) {
      throw Errors.unknownCatalog("The catalog", name, name, config.catalogNames());
    }
    Map<String, CurrentStateSpec> specs = new HashMap<>();
    Pipeline.currentStates(config).forEach((table, spec) -> {
      Subscription s = config.subscriptions().stream().filter(x -> x.targetTable().equals(table)).findFirst().orElse(null);
      if (s != null && config.catalogName(s).equals(name)) {
        specs.put(table, spec);
      }
    });
    catalog = UnityCatalog.named(name, UnitySettings.fromConfig(settings.settings()), ClientEnvironment.system(), specs);
    created.put(name, catalog);
    return catalog;
  }

  /** The catalog that owns a subscription's tables. */
  TableCatalog of(Subscription s) {
    return get(config.catalogName(s));
  }

  /** Entries of every configured catalog that registers tables, by catalog name. */
  CatalogEntries entries() {
    return new CatalogEntries() {
      @Override
      public Optional<String> location(String catalog, String entry) {
        return unity(catalog).location(catalog, entry);
      }

      @Override
      public void register(String catalog, String entry, CatalogTable table) {
        unity(catalog).register(catalog, entry, table);
      }

      @Override
      public void unregister(String catalog, String entry, String location) {
        unity(catalog).unregister(catalog, entry, location);
      }
    };
  }

  private UnityEntries unity(String name) {
    if (get(name) instanceof UnityCatalog unity) {
      return new UnityEntries(name, unity);
    }
    throw new ConfigurationException("Catalog '" + name + "' registers no tables (catalog.type: none): a hand-off, register"
        + " and unregister need the catalog the table is registered in. Configure it as catalog.type: unity.");
  }

  @Override
  public synchronized void close() {
    created.values().forEach(TableCatalog::close);
  }
}
