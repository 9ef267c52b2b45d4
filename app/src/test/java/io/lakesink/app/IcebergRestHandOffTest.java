package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.iceberg.rest.RestCatalogServer;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.ownership.HandOff;
import io.lakesink.ownership.HandOffRecord.Step;
import io.lakesink.ownership.TableOwner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakesink handoff} between Unity Catalog (the Databricks fake) and an Iceberg REST
 * catalog (a real server: the iceberg-open-api test fixtures over SQLite), both ways, with a
 * crash injected after every step and the same command run again; then a worker subscribed to
 * the Iceberg REST catalog keeps delivering and the catalog's table follows the Delta table.
 */
@Timeout(300)
class IcebergRestHandOffTest {
  static final String BRONZE = HandOffTest.BRONZE;
  static final String LAKE = "lakesink.stock_APPEND";

  @TempDir Path data;

  static String lakeYaml(RestCatalogServer server) {
    return "catalogs:\n  lake:\n    type: iceberg_rest\n    uri: \"" + server.uri() + "\"\n    namespace: lakesink\n";
  }

  /** @param subscribedToLake whether the subscription's tables belong to the Iceberg REST catalog (else Unity) */
  static WorkerConfig config(WorkerHarness w, FakeDatabricks fake, RestCatalogServer server, boolean subscribedToLake) {
    String yaml = w.yaml();
    if (subscribedToLake) {
      yaml = yaml.replace("primary_key: [id]}", "primary_key: [id], catalog: lake}");
    }
    return new ConfigLoader(n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(yaml + CatalogOwnershipEndToEndTest.catalogYaml(fake, "bronze") + lakeYaml(server), "test");
  }

  static RestCatalogServer server(Path data, boolean advertiseUnregister) throws Exception {
    RestCatalogServer server = RestCatalogServer.start(Files.createDirectories(data.resolve("iceberg-catalog")), advertiseUnregister);
    server.createNamespace("lakesink");
    return server;
  }

  @Test
  void unityToIcebergRestAndBackWithACrashAfterEveryStep() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start(); RestCatalogServer server = server(data, true)) {
      String topic = SharedKafka.newTopic("iceberg-handoff", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 5);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig uc = config(w, fake, server, false);
      assertTrue(CatalogOwnershipEndToEndTest.run(uc).allDelivering());
      String location = w.table("stock").location();
      assertNotNull(fake.table(BRONZE));

      // A configuration naming the Iceberg REST catalog registers nothing there while Unity owns the table.
      WorkerConfig lake = config(w, fake, server, true);
      HandOffCommands.register(lake, Commands.subscription(lake, "stock"));
      assertNull(server.location(LAKE), "no register without the owner's unregister first");

      for (Step crash : List.of(Step.FENCED, Step.UNREGISTERED, Step.REGISTERED)) {
        assertThrows(HandOffTest.Crash.class, () -> HandOffTest.handoff(uc, "lake", false, HandOffTest.crashAfter(crash)));
        assertInAtMostOne(fake, server, crash);
        HandOffTest.handoff(uc, "lake", false, HandOff.Hook.NONE); // resumes forward
        assertOwnedByLake(fake, server, w, location);

        assertThrows(HandOffTest.Crash.class, () -> HandOffTest.handoff(uc, "default", false, HandOffTest.crashAfter(crash)));
        assertInAtMostOne(fake, server, crash);
        HandOffTest.handoff(uc, "default", false, HandOff.Hook.NONE);
        assertOwnedByUnity(fake, server, w, location);
      }
      assertEquals(3, server.unregistered(), "the advertised unregister released the Iceberg entry each time");
      assertEquals(5, w.rows("stock").size(), "no byte of data was touched");
    }
  }

  @Test
  void afterAHandOffToIcebergRestTheWorkerDeliversAndTheCatalogFollowsThenItGoesBackByAGuardedDrop() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start(); RestCatalogServer server = server(data, false)) {
      String topic = SharedKafka.newTopic("iceberg-follow", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 5);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig uc = config(w, fake, server, false);
      assertTrue(CatalogOwnershipEndToEndTest.run(uc).allDelivering());
      String location = w.table("stock").location();

      // The name is held by another table: the hand-off is refused before it fences anything.
      String elsewhere = otherIcebergTable(data.resolve("elsewhere"));
      server.backend().registerTable(TableIdentifier.parse(LAKE), elsewhere);
      long version = w.table("stock").version();
      TableFailureException taken = assertThrows(TableFailureException.class,
          () -> HandOffTest.handoff(uc, "lake", false, HandOff.Hook.NONE));
      assertTrue(taken.getMessage().contains("elsewhere"), taken.getMessage());
      assertNotNull(fake.table(BRONZE), "the source keeps its entry");
      assertEquals(TableOwner.State.REGISTERED, owner(w).state(), "not fenced");
      assertEquals(version, w.table("stock").version(), "nothing committed");
      assertTrue(server.location(LAKE).endsWith("elsewhere"), "the other table's entry is untouched");
      // Nor into a namespace the catalog does not have.
      assertThrows(io.lakesink.error.ConfigurationException.class,
          () -> HandOffTest.handoff(uc, "lake.nowhere.stock_APPEND", false, HandOff.Hook.NONE));
      assertNotNull(fake.table(BRONZE));
      server.backend().dropTable(TableIdentifier.parse(LAKE), false); // the operator frees the name
      HandOffTest.handoff(uc, "lake", false, HandOff.Hook.NONE);
      assertOwnedByLake(fake, server, w, location);
      String registered = server.metadataLocation(LAKE);

      // The worker, pointed at the new owner, keeps delivering; the catalog's table follows.
      CatalogOwnershipEndToEndTest.send(topic, 5, 25);
      WorkerConfig lake = config(w, fake, server, true);
      WorkerResult result = CatalogOwnershipEndToEndTest.run(lake);
      assertTrue(result.allDelivering(), result.states().toString());
      assertEquals(25, w.rows("stock").size());
      assertNotEquals(registered, server.metadataLocation(LAKE), "the catalog's pointer advanced");
      assertEquals(deltaPaths(w.table("stock")), icebergPaths(server),
          "scanning the table through the Iceberg REST catalog gives exactly the Delta table's files");
      assertNull(fake.table(BRONZE));

      // Back to Unity: the server lists no unregister, so the entry goes by a drop that says purgeRequested=false.
      Set<Path> files = files(Path.of(URI.create(location)));
      HandOffTest.handoff(lake, "default", false, HandOff.Hook.NONE);
      assertOwnedByUnity(fake, server, w, location);
      assertTrue(server.requests().contains("DELETE /v1/namespaces/lakesink/tables/stock_APPEND?purgeRequested=false"),
          server.requests().toString());
      assertTrue(files(Path.of(URI.create(location))).containsAll(files), "no file deleted");
      assertEquals(25, w.rows("stock").size());
    }
  }

  @Test
  void aNewTableOfASubscriptionInAnIcebergRestCatalogIsRegisteredThereAndAVanishedEntryIsReportedNotCreatedAgain()
      throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start(); RestCatalogServer server = server(data, true)) {
      String topic = SharedKafka.newTopic("iceberg-new", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 5);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig lake = config(w, fake, server, true);
      WorkerResult first = CatalogOwnershipEndToEndTest.run(lake);
      assertTrue(first.allDelivering(), first.states().toString());
      assertOwnedByLake(fake, server, w, w.table("stock").location());
      assertEquals(deltaPaths(w.table("stock")), icebergPaths(server));

      server.backend().dropTable(TableIdentifier.parse(LAKE), false); // an operator removed the entry
      CatalogOwnershipEndToEndTest.send(topic, 5, 10);
      WorkerResult second = CatalogOwnershipEndToEndTest.run(lake);
      var degraded = org.junit.jupiter.api.Assertions.assertInstanceOf(io.lakesink.delivery.DeliveryState.Degraded.class,
          second.states().get("stock_APPEND"));
      assertTrue(degraded.reason().contains("bin/lakesink register --config"), degraded.reason());
      assertNull(server.location(LAKE), "the entry was not created again");
      assertEquals(10, w.rows("stock").size(), "the data kept flowing");

      HandOffCommands.register(lake, Commands.subscription(lake, "stock")); // what the message says to run
      assertOwnedByLake(fake, server, w, w.table("stock").location());
      assertEquals(deltaPaths(w.table("stock")), icebergPaths(server));
    }
  }

  /**
   * The kept current-state table ({@code current_state.object: table}) is owned like the changelog:
   * it records its Unity entry, moves with the changelog's hand-off to the Iceberg REST catalog
   * (its Unity entry gone, registered at its own location, no file copied), an Iceberg reader
   * reads the current state through the catalog (the updates' deletion vectors as position
   * deletes), and a worker delivering under the Iceberg catalog moves the catalog's pointer on.
   */
  @Test
  void theKeptCurrentStateTableMovesWithItsChangelogAndAnIcebergReaderReadsItThroughTheRestCatalog() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start(); RestCatalogServer server = server(data, true)) {
      String topic = SharedKafka.newTopic("iceberg-kept", 1);
      try (var p = SharedKafka.producer()) {
        for (int i = 0; i < 5; i++) SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "a", i));
        SharedKafka.send(p, topic, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("u", 1, "b", 10));
        SharedKafka.send(p, topic, 0, "{\"id\":2}", ChangelogEndToEndTest.envelope("u", 2, "b", 11));
        SharedKafka.send(p, topic, 0, "{\"id\":3}", ChangelogEndToEndTest.envelope("d", 3, "a", 12));
        p.flush();
      }
      WorkerHarness w = new WorkerHarness(data)
          .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig uc = config(w, fake, server, false);
      assertTrue(CatalogOwnershipEndToEndTest.run(uc).allDelivering());
      DeltaTable kept = new DeltaTable(io.lakesink.delta.KernelEngine.create(Pipeline.storage(uc.storage())),
          w.table("stock").location().replace("stock_APPEND", "stock"));
      assertEquals(Map.of(0L, "a", 1L, "b", 2L, "b", 4L, "a"), names(io.lakesink.delta.DeltaTableReader.readAll(kept)));
      TableOwner before = TableOwner.of(kept.properties()).orElseThrow();
      assertEquals("default", before.catalog());
      assertEquals(KEPT_BRONZE, before.entry(), "the kept table records its Unity entry as its owner");
      assertEquals(TableOwner.State.REGISTERED, before.state());
      assertEquals(kept.location(), fake.table(KEPT_BRONZE).path("storage_location").asText());
      Set<Path> files = files(Path.of(URI.create(kept.location())));

      String plan = HandOffTest.handoff(uc, "lake", true, HandOff.Hook.NONE);
      assertTrue(plan.contains("create the entry lake." + KEPT_LAKE), plan);
      HandOffTest.handoff(uc, "lake", false, HandOff.Hook.NONE);
      assertOwnedByLake(fake, server, w, w.table("stock").location());
      kept.refresh();
      TableOwner after = TableOwner.of(kept.properties()).orElseThrow();
      assertEquals("lake", after.catalog());
      assertEquals(KEPT_LAKE, after.entry());
      assertEquals(TableOwner.State.REGISTERED, after.state());
      assertNull(fake.table(KEPT_BRONZE), "the kept table's Unity entry is gone: one owner");
      assertEquals(URI.create(kept.location()).getPath(), URI.create(server.location(KEPT_LAKE)).getPath());
      assertTrue(files(Path.of(URI.create(kept.location()))).containsAll(files), "no file of the kept table deleted");
      assertEquals(Map.of(0L, "a", 1L, "b", 2L, "b", 4L, "a"), icebergNames(server, KEPT_LAKE),
          "an Iceberg reader reads the current state through the REST catalog");

      // Delivering under the Iceberg REST catalog: the kept table's entry follows its commits.
      try (var p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, "{\"id\":0}", ChangelogEndToEndTest.envelope("u", 0, "c", 20));
        SharedKafka.send(p, topic, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("d", 1, "b", 21));
        SharedKafka.send(p, topic, 0, "{\"id\":3}", ChangelogEndToEndTest.envelope("c", 3, "d", 22));
        p.flush();
      }
      WorkerConfig lake = new ConfigLoader(n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
          .parse(w.yaml().replace("current_state: {object: table}}", "current_state: {object: table}, catalog: lake}")
              + CatalogOwnershipEndToEndTest.catalogYaml(fake, "bronze") + lakeYaml(server), "test");
      WorkerResult result = CatalogOwnershipEndToEndTest.run(lake);
      assertTrue(result.allDelivering(), result.states().toString());
      Map<Long, String> expected = Map.of(0L, "c", 2L, "b", 3L, "d", 4L, "a");
      kept.refresh();
      assertEquals(expected, names(io.lakesink.delta.DeltaTableReader.readAll(kept)));
      assertEquals(expected, icebergNames(server, KEPT_LAKE), "the catalog's pointer followed the kept table's commits");
      assertNull(fake.table(KEPT_BRONZE), "not registered again in Unity");
    }
  }

  static final String KEPT_BRONZE = "main.bronze.stock";
  static final String KEPT_LAKE = "lakesink.stock";

  static Map<Long, String> names(List<Map<String, Object>> rows) {
    return rows.stream().collect(Collectors.toMap(r -> Long.parseLong(String.valueOf(r.get("id"))), r -> String.valueOf(r.get("name"))));
  }

  /** The rows an Iceberg reader gets through the catalog (name mapping and position deletes applied). */
  static Map<Long, String> icebergNames(RestCatalogServer server, String entry) {
    RESTCatalog reader = new RESTCatalog();
    reader.setConf(new Configuration());
    reader.initialize("reader", Map.of("uri", server.uri()));
    try (reader) {
      return io.lakesink.iceberg.NameMappedRecords.read(reader.loadTable(TableIdentifier.parse(entry))).stream()
          .collect(Collectors.toMap(r -> Long.parseLong(String.valueOf(r.getField("id"))), r -> String.valueOf(r.getField("name"))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void assertInAtMostOne(FakeDatabricks fake, RestCatalogServer server, Step after) {
    assertFalse(fake.table(BRONZE) != null && server.location(LAKE) != null, "in both catalogs after a crash at " + after);
  }

  static void assertOwnedByLake(FakeDatabricks fake, RestCatalogServer server, WorkerHarness w, String location) {
    assertNull(fake.table(BRONZE), BRONZE + " is not registered");
    assertNotNull(server.location(LAKE), LAKE + " is registered");
    assertEquals(URI.create(location).getPath(), URI.create(server.location(LAKE)).getPath());
    TableOwner recorded = TableOwner.of(w.table("stock").properties()).orElseThrow();
    assertEquals("lake", recorded.catalog());
    assertEquals(LAKE, recorded.entry());
    assertEquals(TableOwner.State.REGISTERED, recorded.state());
  }

  static void assertOwnedByUnity(FakeDatabricks fake, RestCatalogServer server, WorkerHarness w, String location) {
    assertNull(server.location(LAKE), LAKE + " is not registered");
    assertEquals(location, fake.table(BRONZE).path("storage_location").asText());
    TableOwner recorded = TableOwner.of(w.table("stock").properties()).orElseThrow();
    assertEquals("default", recorded.catalog());
    assertEquals(BRONZE, recorded.entry());
    assertEquals(TableOwner.State.REGISTERED, recorded.state());
  }

  static TableOwner owner(WorkerHarness w) {
    return TableOwner.of(w.table("stock").properties()).orElseThrow();
  }

  /** Another Iceberg table's metadata file, at another location. */
  static String otherIcebergTable(Path location) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    var table = new HadoopTables(new Configuration()).create(schema, location.toUri().toString());
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
  }

  static Set<String> deltaPaths(DeltaTable t) {
    return t.files().stream().map(f -> URI.create(t.location() + "/" + URI.create(f.path()).getPath()).getPath())
        .collect(Collectors.toSet());
  }

  static Set<String> icebergPaths(RestCatalogServer server) {
    RESTCatalog reader = new RESTCatalog();
    reader.setConf(new Configuration());
    reader.initialize("reader", Map.of("uri", server.uri()));
    try (reader; CloseableIterable<FileScanTask> tasks = reader.loadTable(TableIdentifier.parse(LAKE)).newScan().planFiles()) {
      Set<String> paths = new HashSet<>();
      tasks.forEach(task -> paths.add(URI.create(task.file().location()).getPath()));
      return paths;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Set<Path> files(Path root) {
    try (var s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
