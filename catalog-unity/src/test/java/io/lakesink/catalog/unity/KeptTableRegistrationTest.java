package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.view.CurrentStateDefinition;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The current-state table lakesink keeps, registered under the subscription's name (current_state.object: table). */
class KeptTableRegistrationTest {
  private static final String FULL = "main.bronze.orders";
  private static final String LOCATION = "abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders";
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  static CatalogTable kept() {
    return new CatalogTable("orders", LOCATION, List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING),
        new Column("__op", ColumnType.STRING), new Column("__ts_ms", ColumnType.BIGINT), new Column("__partition", ColumnType.INT),
        new Column("__offset", ColumnType.BIGINT)), List.of());
  }

  @Test
  void isAnExternalDeltaTableNotAView() {
    h.catalog().registerKeptTable(kept());
    JsonNode t = h.fake.table(FULL);
    assertEquals("EXTERNAL", t.get("table_type").asText());
    assertEquals("DELTA", t.get("data_source_format").asText());
    assertEquals(LOCATION, t.get("storage_location").asText());
    assertEquals(6, t.get("columns").size());
  }

  @Test
  void lakesinksOwnViewGivesTheNameUp() {
    h.fake.putTable(FULL, "VIEW", null, "id", "bigint");
    h.fake.setComment(FULL, CurrentStateDefinition.MARKER + " changelog=orders_APPEND fingerprint=abc");
    h.catalog().registerKeptTable(kept());
    assertEquals("EXTERNAL", h.fake.table(FULL).get("table_type").asText());
    assertTrue(h.fake.count("DELETE", "/api/2.1/unity-catalog/tables/") >= 1, h.fake.requests().toString());
  }

  @Test
  void anotherOwnersViewOrTableStaysAndIsRefusedByName() {
    h.fake.putTable(FULL, "VIEW", null, "id", "bigint");
    TableFailureException e = assertThrows(TableFailureException.class, () -> h.catalog().registerKeptTable(kept()));
    assertTrue(e.getMessage().contains(FULL) && e.getMessage().contains("VIEW"), e.getMessage());
    assertEquals("VIEW", h.fake.table(FULL).get("table_type").asText(), "left untouched");
    h.fake.removeTable(FULL);
    h.fake.putTable(FULL, "EXTERNAL", "abfss://lake@myaccount.dfs.core.windows.net/elsewhere/orders", "id", "bigint");
    assertThrows(TableFailureException.class, () -> h.catalog().registerKeptTable(kept()));
    assertEquals("abfss://lake@myaccount.dfs.core.windows.net/elsewhere/orders", h.fake.table(FULL).get("storage_location").asText());
  }
}
