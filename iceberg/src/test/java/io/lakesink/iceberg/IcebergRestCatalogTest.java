package io.lakesink.iceberg;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Operation;
import io.lakesink.iceberg.rest.IcebergRestCatalog;
import io.lakesink.iceberg.rest.IcebergRestEntries;
import io.lakesink.iceberg.rest.IcebergRestSettings;
import io.lakesink.iceberg.rest.StorageDeltaTables;
import io.lakesink.iceberg.rest.RestCatalogServer;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ShiftableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * lakesink's Iceberg REST catalog against a real Iceberg REST server (the iceberg-open-api test
 * fixtures over SQLite): registering a Delta table's Iceberg metadata, following its commits
 * through the catalog, the ownership guards, and unregistering without deleting a file — by the
 * spec's unregister where the server lists it, else by a drop with purgeRequested=false.
 */
@Timeout(120)
class IcebergRestCatalogTest {
  static final String ENTRY = "lakesink.orders_APPEND";

  @TempDir Path dir;
  final ShiftableClock clock = new ShiftableClock();

  @Test
  void registersTheDeltaTableAndAdvancesTheCatalogsPointerWithEachSync() throws Exception {
    try (RestCatalogServer server = server(true); IcebergRestCatalog catalog = catalog(server)) {
      ChangelogDelivery d = changelog();
      d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "status", "new")));
      d.flush();
      catalog.register(shape());
      assertEquals(location(), server.location(ENTRY));
      String first = server.metadataLocation(ENTRY);
      assertEquals(deltaPaths(), icebergPaths(ENTRY, server), "the catalog's table lists exactly the Delta files");

      catalog.register(shape()); // again: the entry of this same table is kept, nothing fails
      d.accept(event("db.orders", 0, 1, Operation.UPDATE, 2000L, row("id", 1L, "status", "paid", "note", "gift")));
      d.flush();
      catalog.committed(shape());
      String second = server.metadataLocation(ENTRY);
      assertNotEquals(first, second, "the catalog points at the new metadata");
      assertEquals(deltaPaths(), icebergPaths(ENTRY, server));
      try (RESTCatalog reader = reader(server)) {
        Table t = reader.loadTable(TableIdentifier.parse(ENTRY));
        assertNotNull(t.schema().findField("note"), "the added column reached the catalog");
        assertEquals(2, NameMappedRecords.read(t).size(), "an Iceberg reader sees the Delta table's rows");
        assertEquals(Long.toString(table().version()), t.properties().get(IcebergMetadataSync.DELTA_VERSION));
      }

      catalog.committed(shape()); // nothing new: no new metadata
      assertEquals(second, server.metadataLocation(ENTRY));
    }
  }

  @Test
  void aVanishedEntryIsReportedNotCreatedAgain() throws Exception {
    try (RestCatalogServer server = server(true); IcebergRestCatalog catalog = catalog(server)) {
      written();
      catalog.register(shape());
      server.backend().dropTable(TableIdentifier.parse(ENTRY), false); // an operator removed it
      ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.registerExisting(shape()));
      assertTrue(e.getMessage().contains("bin/lakesink register --config"), e.getMessage());
      assertThrows(ConfigurationException.class, () -> catalog.committed(shape()));
      assertNull(server.location(ENTRY), "not created again");
    }
  }

  @Test
  void aNameHeldByAnotherTableIsRefusedAndAnEntryAtThisLocationAccepted() throws Exception {
    try (RestCatalogServer server = server(true); IcebergRestCatalog catalog = catalog(server)) {
      written();
      // Another table's metadata under our name.
      ChangelogDelivery other = changelog("db.other", "other");
      other.accept(event("db.other", 0, 0, Operation.CREATE, 1000L, row("id", 9L)));
      other.flush();
      DeltaTable otherTable = table("other_APPEND");
      String otherMetadata = new IcebergMetadataSync().sync(otherTable, DeliveryMode.CHANGELOG).metadataLocation();
      server.backend().registerTable(TableIdentifier.parse(ENTRY), otherMetadata);

      IcebergRestEntries entries = catalog.entries();
      TableFailureException e = assertThrows(TableFailureException.class, () -> entries.register("lake", ENTRY, shape()));
      assertTrue(e.getMessage().contains(otherTable.location()), e.getMessage());
      assertEquals(otherTable.location(), server.location(ENTRY), "never overwritten");
      assertThrows(TableFailureException.class, () -> entries.unregister("lake", ENTRY, location()));
      assertEquals(otherTable.location(), server.location(ENTRY), "another table's entry is never unregistered");

      // The name freed and registered by hand at this table's location: a 409 for our own table is accepted.
      server.backend().dropTable(TableIdentifier.parse(ENTRY), false);
      String ours = new IcebergMetadataSync().sync(table(), DeliveryMode.CHANGELOG).metadataLocation();
      server.backend().registerTable(TableIdentifier.parse(ENTRY), ours);
      entries.register("lake", ENTRY, shape());
      assertEquals(location(), entries.location("lake", ENTRY).orElseThrow());
    }
  }

  @Test
  void unregisterUsesTheAdvertisedRouteAndLeavesEveryFile() throws Exception {
    try (RestCatalogServer server = server(true); IcebergRestCatalog catalog = catalog(server)) {
      written();
      catalog.register(shape());
      Set<Path> before = files();
      catalog.entries().unregister("lake", ENTRY, location());
      assertEquals(1, server.unregistered());
      assertNull(server.location(ENTRY));
      assertTrue(catalog.entries().location("lake", ENTRY).isEmpty());
      assertEquals(before, files(), "no file deleted");
      catalog.entries().unregister("lake", ENTRY, location()); // absent: nothing to do
      assertTrue(server.requests().stream().noneMatch(r -> r.startsWith("DELETE")), server.requests().toString());
    }
  }

  @Test
  void withoutTheRouteUnregisterIsADropThatSaysPurgeRequestedFalse() throws Exception {
    try (RestCatalogServer server = server(false); IcebergRestCatalog catalog = catalog(server)) {
      written();
      catalog.register(shape());
      Set<Path> before = files();
      catalog.entries().unregister("lake", ENTRY, location());
      assertEquals(0, server.unregistered());
      assertNull(server.location(ENTRY));
      assertTrue(server.requests().contains("DELETE /v1/namespaces/lakesink/tables/orders_APPEND?purgeRequested=false"),
          server.requests().toString());
      assertEquals(before, files(), "no file deleted: the data files are all still there");
      assertTrue(deltaPaths().stream().allMatch(p -> Files.exists(Path.of(URI.create(p)))));
    }
  }

  @Test
  void aCatalogThatIsDownIsRetryableAndAMissingNamespaceIsAConfigurationError() throws Exception {
    written();
    String uri;
    try (RestCatalogServer server = server(true); IcebergRestCatalog catalog = catalog(server)) {
      uri = server.uri();
      ConfigurationException e = assertThrows(ConfigurationException.class,
          () -> catalog.entries().register("lake", "nowhere.orders_APPEND", shape()));
      assertTrue(e.getMessage().contains("namespace"), e.getMessage());
    }
    IcebergRestSettings down = IcebergRestSettings.fromConfig("lake", Map.of("uri", uri, "namespace", "lakesink"));
    try (IcebergRestCatalog catalog = new IcebergRestCatalog(down, tables(), new Configuration(), Duration.ZERO)) {
      assertThrows(RetryableException.class, () -> catalog.registerExisting(shape()));
    }
  }

  @Test
  void settingsAreCheckedAndSecretsNeverShown() {
    IcebergRestSettings s = IcebergRestSettings.fromConfig("lake", Map.of("uri", "https://c.example.com/api", "namespace", "a.b",
        "client_id", "lakesink", "client_secret", "s3cr3t-value", "scope", "PRINCIPAL_ROLE:ALL"));
    assertFalse(s.toString().contains("s3cr3t-value"), s.toString());
    assertFalse(s.describe().contains("s3cr3t-value"));
    IcebergRestSettings t = IcebergRestSettings.fromConfig("lake", Map.of("uri", "https://c", "namespace", "a", "token", "tok-123"));
    assertFalse(t.toString().contains("tok-123"), t.toString());
    assertThrows(ConfigurationException.class, () -> IcebergRestSettings.fromConfig("lake", Map.of("namespace", "a")));
    assertThrows(ConfigurationException.class, () -> IcebergRestSettings.fromConfig("lake", Map.of("uri", "ftp://x", "namespace", "a")));
    assertThrows(ConfigurationException.class, () -> IcebergRestSettings.fromConfig("lake", Map.of("uri", "https://c")));
    ConfigurationException half = assertThrows(ConfigurationException.class,
        () -> IcebergRestSettings.fromConfig("lake", Map.of("uri", "https://c", "namespace", "a", "client_id", "x")));
    assertTrue(half.getMessage().contains("catalogs.lake.client_secret"), half.getMessage());
    assertThrows(ConfigurationException.class, () -> IcebergRestSettings.fromConfig("lake",
        Map.of("uri", "https://c", "namespace", "a", "client_id", "x", "client_secret", "y", "token", "z")));
  }

  // ---------------------------------------------------------------- helpers

  private RestCatalogServer server(boolean advertiseUnregister) throws Exception {
    RestCatalogServer server = RestCatalogServer.start(Files.createDirectories(dir.resolve("catalog")), advertiseUnregister);
    server.createNamespace("lakesink");
    return server;
  }

  private IcebergRestCatalog catalog(RestCatalogServer server) {
    IcebergRestSettings settings = IcebergRestSettings.fromConfig("lake", Map.of("uri", server.uri(), "namespace", "lakesink"));
    return new IcebergRestCatalog(settings, tables(), new Configuration(), Duration.ZERO);
  }

  private IcebergRestCatalog.DeltaTables tables() {
    return StorageDeltaTables.of(storage(), location -> DeliveryMode.CHANGELOG);
  }

  private static RESTCatalog reader(RestCatalogServer server) {
    RESTCatalog reader = new RESTCatalog();
    reader.setConf(new Configuration());
    reader.initialize("reader", Map.of("uri", server.uri()));
    return reader;
  }

  private LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  private void written() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "status", "new")));
    d.flush();
  }

  private ChangelogDelivery changelog() {
    return changelog("db.orders", "orders");
  }

  private ChangelogDelivery changelog(String topic, String name) {
    Subscription sub = new Subscription(topic, name, DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    return new ChangelogDelivery(sub, table(name + "_APPEND"),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withClock(clock).withBackoff(millis -> {}));
  }

  private DeltaTable table() {
    return table("orders_APPEND");
  }

  private DeltaTable table(String name) {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation(name));
  }

  private String location() {
    return table().location();
  }

  private CatalogTable shape() {
    DeltaTable t = table();
    return new CatalogTable("orders_APPEND", t.location(), t.columns().orElseThrow(), t.partitionColumns());
  }

  private Set<String> deltaPaths() {
    DeltaTable t = table();
    return t.files().stream().map(f -> DeltaDataFiles.absolutePath(t.location(), f.path())).collect(Collectors.toSet());
  }

  private static Set<String> icebergPaths(String entry, RestCatalogServer server) {
    try (RESTCatalog reader = reader(server);
        CloseableIterable<FileScanTask> tasks = reader.loadTable(TableIdentifier.parse(entry)).newScan().planFiles()) {
      Set<String> paths = new HashSet<>();
      tasks.forEach(task -> paths.add(task.file().location()));
      return paths;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Set<Path> files() {
    try (Stream<Path> files = Files.walk(dir.resolve("lakesink"))) {
      return files.filter(Files::isRegularFile).collect(Collectors.toSet());
    }  catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
