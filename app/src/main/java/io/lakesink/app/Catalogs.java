package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.catalog.unity.ClientEnvironment;
import io.lakesink.catalog.unity.UnityCatalog;
import io.lakesink.catalog.unity.UnityEntries;
import io.lakesink.catalog.unity.UnitySettings;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.iceberg.rest.IcebergRestCatalog;
import io.lakesink.iceberg.rest.IcebergRestSettings;
import io.lakesink.iceberg.rest.StorageDeltaTables;
import io.lakesink.ownership.CatalogEntries;
import io.lakesink.storage.TableStorage;
import io.lakesink.view.CurrentStateSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The configuration's catalogs by name: {@code default} (the {@code catalog:} block) and those
 * of {@code catalogs:} (Unity Catalog or Iceberg REST), each created once, on first use. A
 * subscription's tables are registered in the catalog it names; a hand-off moves entries between
 * any two of them.
 */
final class Catalogs implements AutoCloseable {
  private final WorkerConfig config;
  private final TableStorage storage; // where an Iceberg REST catalog's Delta tables are read
  private final Map<String, TableCatalog> created = new HashMap<>();

  /** @param defaultCatalog the {@code default} catalog, as the caller built it */
  Catalogs(WorkerConfig config, TableCatalog defaultCatalog, TableStorage storage) {
    this.config = config;
    this.storage = storage;
    created.put(WorkerConfig.DEFAULT_CATALOG, defaultCatalog);
  }

  static Catalogs of(WorkerConfig config, TableStorage storage) {
    return new Catalogs(config, Pipeline.catalog(config), storage);
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
    if (IcebergRestCatalog.TYPE.equals(settings.type())) {
      catalog = new IcebergRestCatalog(IcebergRestSettings.fromConfig(name, settings.settings()), deltaTables());
      created.put(name, catalog);
      return catalog;
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
        return entriesOf(catalog).location(catalog, entry);
      }

      @Override
      public void register(String catalog, String entry, CatalogTable table) {
        entriesOf(catalog).register(catalog, entry, table);
      }

      @Override
      public void unregister(String catalog, String entry, String location) {
        entriesOf(catalog).unregister(catalog, entry, location);
      }

      @Override
      public void checkRegistrable(String catalog, String entry, CatalogTable table) {
        entriesOf(catalog).checkRegistrable(catalog, entry, table);
      }
    };
  }

  /** The entries of the named catalog, by its type. */
  private CatalogEntries entriesOf(String name) {
    TableCatalog catalog = get(name);
    if (catalog instanceof UnityCatalog unity) {
      return new UnityEntries(name, unity);
    }
    if (catalog instanceof IcebergRestCatalog iceberg) {
      return iceberg.entries();
    }
    throw new ConfigurationException("Catalog '" + name + "' registers no tables (catalog.type: none): a hand-off, register"
        + " and unregister need the catalog the table is registered in. Configure it as catalog.type: unity, or name a"
        + " catalog of catalogs: (type unity or iceberg_rest).");
  }

  /** The subscriptions' Delta tables, for the Iceberg metadata an Iceberg REST catalog points at. */
  private IcebergRestCatalog.DeltaTables deltaTables() {
    if (storage == null) {
      throw new IllegalStateException("an Iceberg REST catalog needs the table storage");
    }
    // A table no subscription writes is committed the general way (removed files as deletes).
    return StorageDeltaTables.of(storage, location -> config.subscriptions().stream()
        .filter(s -> storage.tableLocation(s.targetTable()).equals(location))
        .map(Subscription::mode).findFirst().orElse(DeliveryMode.MERGE));
  }

  @Override
  public synchronized void close() {
    created.values().forEach(TableCatalog::close);
  }
}
