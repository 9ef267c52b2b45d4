package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.net.URI;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Switching a changelog subscription between a kept current-state table and a view, with Unity
 * Catalog (the Databricks fake): table → view unregisters the kept table's own entry (its files
 * stay) so the view can take the name; view → table registers it again; an entry under the name
 * that is not the kept table's own is never touched.
 */
@Timeout(300)
class KeptTableSwitchTest {
  static final String KEPT = "main.bronze.stock";

  @TempDir Path data;

  static WorkerConfig config(WorkerHarness w, FakeDatabricks fake, boolean kept, String topic) {
    String yaml = w.yaml() + CatalogOwnershipEndToEndTest.catalogYaml(fake, "bronze");
    return new io.lakesink.app.config.ConfigLoader(n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(kept ? yaml : yaml.replace(", current_state: {object: table}}", "}"), "test");
  }

  @Test
  void tableToViewGivesTheNameUpKeepingTheFilesAndBackRegistersItAgainButAnotherObjectIsNeverTouched() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("kept-switch", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 5);
      WorkerHarness w = new WorkerHarness(data)
          .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerResult first = CatalogOwnershipEndToEndTest.run(config(w, fake, true, topic));
      assertTrue(first.allDelivering(), first.states().toString());
      DeltaTable kept = kept(config(w, fake, true, topic));
      assertEquals(kept.location(), fake.table(KEPT).path("storage_location").asText(), "registered as an external table");
      assertEquals(TableOwner.State.REGISTERED, owner(kept).state());
      Set<Path> files = IcebergRestHandOffTest.files(Path.of(URI.create(kept.location())));

      // table → view: the kept table's own entry goes, its files stay, it records the entry as to be created again.
      CatalogOwnershipEndToEndTest.send(topic, 5, 7);
      WorkerResult asView = CatalogOwnershipEndToEndTest.run(config(w, fake, false, topic));
      assertTrue(asView.allDelivering(), asView.states().toString());
      assertNull(fake.table(KEPT), "the name is free for the view");
      kept.refresh();
      assertEquals(TableOwner.State.REGISTERING, owner(kept).state());
      assertTrue(IcebergRestHandOffTest.files(Path.of(URI.create(kept.location()))).containsAll(files), "no file deleted");
      assertNotNull(fake.table("main.bronze.stock_APPEND"), "the changelog stays registered");

      // view → table: registered again, and caught up with what the changelog got meanwhile.
      WorkerResult back = CatalogOwnershipEndToEndTest.run(config(w, fake, true, topic));
      assertTrue(back.allDelivering(), back.states().toString());
      assertEquals(kept.location(), fake.table(KEPT).path("storage_location").asText());
      kept.refresh();
      assertEquals(TableOwner.State.REGISTERED, owner(kept).state());
      assertEquals(7, io.lakesink.delta.DeltaTableReader.readAll(kept).size());

      // Someone else's object under the name: a switch to the view leaves it as it is.
      fake.removeTable(KEPT);
      fake.putTable(KEPT, "EXTERNAL", "file:/somewhere/else", "id", "bigint");
      WorkerResult refused = CatalogOwnershipEndToEndTest.run(config(w, fake, false, topic));
      assertTrue(refused.allDelivering(), "the changelog keeps flowing: " + refused.states());
      assertEquals("file:/somewhere/else", fake.table(KEPT).path("storage_location").asText(), "not ours: untouched");
      kept.refresh();
      assertEquals(TableOwner.State.REGISTERED, owner(kept).state(), "nothing recorded as released");
    }
  }

  /** bin/lakesink register / unregister act on the kept table's entry too (each on the entry it records as its owner). */
  @Test
  void registerAndUnregisterCoverTheKeptTablesEntry() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("kept-register", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 3);
      WorkerHarness w = new WorkerHarness(data)
          .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
      w.delivery = "  flush_interval: 1s\n  flush_rows: 3\n";
      WorkerConfig config = config(w, fake, true, topic);
      assertTrue(CatalogOwnershipEndToEndTest.run(config).allDelivering());
      String location = kept(config).location();
      assertNotNull(fake.table(KEPT));

      fake.removeTable(KEPT); // an operator dropped the entry: the worker reports it, register brings it back
      String out = HandOffCommands.register(config, Commands.subscription(config, "stock"));
      assertTrue(out.contains("Registered default." + KEPT + " at " + location), out);
      assertEquals(location, fake.table(KEPT).path("storage_location").asText());

      String gone = HandOffCommands.unregister(config, Commands.subscription(config, "stock"));
      assertTrue(gone.contains("Unregistered default." + KEPT), gone);
      assertNull(fake.table(KEPT));
      assertNull(fake.table("main.bronze.stock_APPEND"), "the changelog's entry too");
      assertTrue(java.nio.file.Files.isDirectory(Path.of(URI.create(location)).resolve("_delta_log")), "the files stay");
    }
  }

  static DeltaTable kept(WorkerConfig config) {
    TableStorage storage = Pipeline.storage(config.storage());
    return Pipeline.keptTable(storage, KernelEngine.create(storage), config.subscriptions().get(0)).orElseThrow();
  }

  static TableOwner owner(DeltaTable t) {
    return TableOwner.of(t.properties()).orElseThrow();
  }
}
