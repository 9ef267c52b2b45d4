package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.error.ConfigurationException;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.ownership.HandOff;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two named catalogs, each a Databricks workspace (two fakes): the table moves from {@code
 * default} to {@code west} with a hand-off, and the subscription then names {@code west}.
 */
@Timeout(300)
class CrossWorkspaceHandOffTest {
  static final String ENTRY = "main.bronze.stock_APPEND";

  @TempDir Path data;

  static WorkerConfig config(WorkerHarness w, FakeDatabricks east, FakeDatabricks west) {
    String yaml = w.yaml() + CatalogOwnershipEndToEndTest.catalogYaml(east, "bronze")
        + "catalogs:\n  west: {type: unity, workspace_url: \"" + west.url() + "\", client_id: " + FakeDatabricks.CLIENT_ID
        + ", client_secret: \"${env:DATABRICKS_CLIENT_SECRET}\", catalog: main, schema: bronze}\n";
    return new ConfigLoader(n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null).parse(yaml, "test");
  }

  @Test
  void aTableMovesBetweenWorkspacesAndTheSubscriptionFollowsItsNewCatalog() throws Exception {
    try (FakeDatabricks east = FakeDatabricks.start(); FakeDatabricks west = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("handoff-west", 1);
      CatalogOwnershipEndToEndTest.send(topic, 0, 5);
      WorkerHarness inDefault = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      WorkerConfig before = config(inDefault, east, west);
      assertTrue(CatalogOwnershipEndToEndTest.run(before).allDelivering());
      assertNotNull(east.table(ENTRY));

      HandOffTest.handoff(before, "west." + ENTRY, false, HandOff.Hook.NONE);
      assertNull(east.table(ENTRY), "unregistered in the first workspace");
      assertEquals(inDefault.table("stock").location(), west.table(ENTRY).path("storage_location").asText());
      TableOwner owner = TableOwner.of(inDefault.table("stock").properties()).orElseThrow();
      assertEquals("west", owner.catalog());

      // The old configuration (subscription in default) may not start: it would register a second entry.
      try (TableStorage storage = Pipeline.storage(before.storage()); Catalogs catalogs = Catalogs.of(before, storage)) {
        ConfigurationException e = assertThrows(ConfigurationException.class,
            () -> RenamedTargets.refuse(before, storage, catalogs, data.resolve("lakesink.yaml")));
        assertTrue(e.getMessage().contains("--to default." + ENTRY), e.getMessage());
      }

      WorkerHarness inWest = new WorkerHarness(data).subscribe(
          "- {topic: " + topic + ", table: stock, primary_key: [id], catalog: west}");
      WorkerConfig after = config(inWest, east, west);
      try (TableStorage storage = Pipeline.storage(after.storage()); Catalogs catalogs = Catalogs.of(after, storage)) {
        RenamedTargets.refuse(after, storage, catalogs, data.resolve("lakesink.yaml"));
      }
      CatalogOwnershipEndToEndTest.send(topic, 5, 8);
      WorkerResult result = CatalogOwnershipEndToEndTest.run(after);
      assertTrue(result.allDelivering(), result.states().toString());
      assertEquals(8, inDefault.rows("stock").size());
      assertNull(east.table(ENTRY), "never registered in the first workspace again");
      assertNotNull(west.table(ENTRY));
      assertEquals(1, west.count("POST", "/api/2.1/unity-catalog/tables"), "registered once, by the hand-off");
    }
  }
}
