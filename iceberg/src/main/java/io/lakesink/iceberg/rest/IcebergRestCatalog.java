package io.lakesink.iceberg.rest;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.DeltaTable;
import io.lakesink.iceberg.IcebergMetadataSync;
import io.lakesink.iceberg.StorageFileIO;
import io.lakesink.iceberg.SyncResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named Iceberg REST catalog of lakesink's configuration, for the worker: registers the tables
 * of its subscriptions as {@code <namespace>.<table>} and keeps the catalog's pointer current.
 * The catalog holds a pointer to Iceberg metadata, so "registering" a Delta table means writing
 * Iceberg metadata next to its {@code _delta_log} ({@link IcebergMetadataSync}) and registering
 * that metadata file; after each batch of commits ({@link #committed}, debounced by {@link
 * io.lakesink.catalog.CatalogSync}) the Delta files are synced again and committed through the
 * catalog, which then points at the new metadata.
 *
 * <p>Ownership rules as for Unity Catalog: an entry is created only when the table says it is
 * owned here and was never registered ({@link #register}); an entry that vanished afterwards is
 * reported, not re-created ({@link #registerExisting}); an entry at another location is never
 * overwritten.
 */
public final class IcebergRestCatalog implements TableCatalog {
  private static final Logger log = LoggerFactory.getLogger(IcebergRestCatalog.class);
  /** {@code catalogs.<name>.type} of an Iceberg REST catalog. */
  public static final String TYPE = "iceberg_rest";
  /** At most one metadata sync per table this often while commits arrive (and one at stop). */
  public static final Duration FOLLOW_EVERY = Duration.ofSeconds(5);

  /** The worker's Delta tables, by location: what the catalog's Iceberg metadata describes. */
  public interface DeltaTables {
    DeltaTable at(String location);

    /** How lakesink writes the table at {@code location} (decides how removed files are committed). */
    DeliveryMode mode(String location);

    /**
     * The file access of the storage these tables are on, which the catalog's client reads and
     * writes manifests and delete files with (rather than a FileIO the catalog's settings name,
     * which could not reach Azure).
     */
    io.delta.kernel.defaults.engine.fileio.FileIO fileIO();
  }

  private final IcebergRestSettings settings;
  private final IcebergRestConnection connection;
  private final DeltaTables tables;
  private final IcebergMetadataSync sync;
  private final Duration followEvery;

  public IcebergRestCatalog(IcebergRestSettings settings, DeltaTables tables) {
    this(settings, tables, new Configuration(), FOLLOW_EVERY);
  }

  public IcebergRestCatalog(IcebergRestSettings settings, DeltaTables tables, Configuration hadoop, Duration followEvery) {
    this.settings = settings;
    this.connection = new IcebergRestConnection(settings, hadoop, new StorageFileIO(tables.fileIO()));
    this.tables = tables;
    this.sync = new IcebergMetadataSync();
    this.followEvery = followEvery;
  }

  public IcebergRestSettings settings() {
    return settings;
  }

  /** This catalog's entries for hand-offs, {@code register} and {@code unregister}. */
  public IcebergRestEntries entries() {
    return new IcebergRestEntries(this);
  }

  @Override
  public void register(CatalogTable table) {
    register(identifier(entry(table.name())), table, true);
  }

  @Override
  public void registerExisting(CatalogTable table) {
    register(identifier(entry(table.name())), table, false);
  }

  @Override
  public Optional<Duration> followsCommits() {
    return Optional.of(followEvery);
  }

  /** New Delta commits: synced into the catalog's table, whose pointer advances. */
  @Override
  public void committed(CatalogTable table) {
    register(identifier(entry(table.name())), table, false);
  }

  @Override
  public Optional<String> entryName(String table) {
    return Optional.of(entry(table));
  }

  @Override
  public String catalogName() {
    return settings.name();
  }

  @Override
  public String describe() {
    return settings.describe();
  }

  @Override
  public void close() {
    connection.close();
  }

  private String entry(String table) {
    return settings.namespace() + "." + table;
  }

  /**
   * Brings entry {@code id} to the Delta table at {@code table.location()}: absent → (when {@code
   * mayCreate}) the metadata at the location is synced and registered; present at this location →
   * the Delta table's latest files are committed through the catalog; elsewhere → refused.
   */
  void register(TableIdentifier id, CatalogTable table, boolean mayCreate) {
    DeltaTable delta = tables.at(table.location());
    DeliveryMode mode = tables.mode(table.location());
    Optional<Table> existing = connection.load(id);
    if (existing.isEmpty()) {
      if (!mayCreate) {
        throw IcebergRestErrors.entryRemoved(settings, id.toString(), table.name(), table.location());
      }
      // The metadata beside _delta_log, written where the table is (no catalog involved yet).
      SyncResult written = sync.sync(delta, mode);
      connection.register(id, written.metadataLocation(), table.location());
      return;
    }
    Table iceberg = existing.get();
    if (!Locations.same(iceberg.location(), table.location())) {
      throw IcebergRestErrors.nameTaken(settings, id.toString(), iceberg.location(), table.location());
    }
    try {
      SyncResult result = sync.sync(delta, mode, iceberg);
      if (result.changed()) {
        log.debug("{} in {} now describes Delta version {} ({} files added, {} removed)", id, settings.name(),
            result.deltaVersion(), result.filesAdded(), result.filesRemoved());
      }
    } catch (RuntimeException e) {
      throw IcebergRestErrors.translate(settings, "commit the Iceberg metadata of " + id, e);
    }
  }

  void checkRegistrable(TableIdentifier id, String location) {
    Optional<String> theirs = connection.location(id);
    if (theirs.isPresent() && !Locations.same(theirs.get(), location)) {
      throw IcebergRestErrors.nameTaken(settings, id.toString(), theirs.get(), location);
    }
    if (!connection.namespaceExists(id.namespace())) {
      throw IcebergRestErrors.noNamespace(settings, id.namespace().toString());
    }
  }

  Optional<String> location(TableIdentifier id) {
    return connection.location(id);
  }

  void unregister(TableIdentifier id, String location) {
    connection.unregister(id, location);
  }

  /** {@code <namespace>.<table>} → Iceberg's identifier (the last part is the table). */
  TableIdentifier identifier(String entry) {
    String[] parts = entry.split("\\.");
    if (parts.length < 2 || Arrays.stream(parts).anyMatch(String::isBlank)) {
      throw IcebergRestErrors.badEntryName(settings, entry);
    }
    return TableIdentifier.of(Namespace.of(Arrays.copyOf(parts, parts.length - 1)), parts[parts.length - 1]);
  }

  @Override
  public String toString() {
    return "IcebergRestCatalog[" + settings + "]";
  }
}
