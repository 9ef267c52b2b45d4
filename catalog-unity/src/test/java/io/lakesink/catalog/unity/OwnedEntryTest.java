package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A table that records its entry as registered: the entry is kept up to date, and when someone
 * removed it, it is reported with the command that restores it instead of being created again.
 */
class OwnedEntryTest {
  private static final String FULL = "main.bronze.orders_APPEND";
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void namesTheEntryItRegistersATableAs() {
    assertEquals(Optional.of(FULL), h.catalog().entryName("orders_APPEND"));
    assertEquals("default", h.catalog().catalogName());
  }

  @Test
  void aRemovedEntryIsReportedNotCreatedAgain() {
    h.catalog().register(Harness.orders());
    h.fake.removeTable(FULL);
    h.fake.clearRequests();

    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().registerExisting(Harness.orders()));
    assertTrue(e.getMessage().contains("Unity Catalog has no entry " + FULL + " any more"), e.getMessage());
    assertTrue(e.getMessage().contains("bin/lakesink register --config"), e.getMessage());
    assertTrue(e.getMessage().contains("bin/lakesink handoff --config"), e.getMessage());
    assertEquals(0, h.fake.count("POST", "/api/2.1/unity-catalog/tables"), "not created again");
  }

  @Test
  void theOwnersEntryIsStillReRegisteredWhenTheTableGainsAColumn() {
    h.catalog().register(Harness.orders());
    h.catalog().registerExisting(Harness.orders(new Column("note", ColumnType.STRING)));
    assertEquals("note", h.fake.table(FULL).get("columns").get(10).get("name").asText());
    assertEquals(1, h.fake.count("DELETE", "/api/2.1/unity-catalog/tables"));
    assertEquals(2, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
  }
}
