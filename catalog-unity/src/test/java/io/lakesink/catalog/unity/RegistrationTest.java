package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.catalog.unity.testing.FakeDatabricks.Flavor;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistrationTest {
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
  void registersAnExternalDeltaTableWithEveryColumn() {
    h.catalog().register(Harness.orders());

    JsonNode t = h.fake.table(FULL);
    assertEquals("EXTERNAL", t.get("table_type").asText());
    assertEquals("DELTA", t.get("data_source_format").asText());
    assertEquals(Harness.LOCATION, t.get("storage_location").asText());
    assertEquals("main", t.get("catalog_name").asText());
    assertEquals("bronze", t.get("schema_name").asText());
    JsonNode columns = t.get("columns");
    assertEquals(10, columns.size());

    JsonNode id = columns.get(0);
    assertEquals("id", id.get("name").asText());
    assertEquals("LONG", id.get("type_name").asText());
    assertEquals("bigint", id.get("type_text").asText());
    assertEquals("{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}", id.get("type_json").asText());
    assertEquals(0, id.get("position").asInt());
    assertTrue(id.get("nullable").asBoolean());
    assertFalse(id.has("partition_index"));

    JsonNode amount = columns.get(1);
    assertEquals("DECIMAL", amount.get("type_name").asText());
    assertEquals("decimal(10,2)", amount.get("type_text").asText());
    assertEquals(10, amount.get("type_precision").asInt());
    assertEquals(2, amount.get("type_scale").asInt());
    assertTrue(amount.get("type_json").asText().contains("\"type\":\"decimal(10,2)\""));

    JsonNode quantity = columns.get(2);
    assertEquals("INT", quantity.get("type_name").asText());
    assertEquals("int", quantity.get("type_text").asText());
    assertTrue(quantity.get("type_json").asText().contains("\"type\":\"integer\""));

    List<String> typeNames = new ArrayList<>();
    columns.forEach(c -> typeNames.add(c.get("type_name").asText()));
    assertEquals(
        List.of("LONG", "DECIMAL", "INT", "STRING", "DOUBLE", "FLOAT", "BOOLEAN", "DATE", "TIMESTAMP", "DATE"), typeNames);

    JsonNode ingest = columns.get(9);
    assertEquals("__ingest_date", ingest.get("name").asText());
    assertEquals(0, ingest.get("partition_index").asInt());
    assertEquals(9, ingest.get("position").asInt());

    assertEquals(1, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
    assertEquals(1, h.fake.count("GET", "/api/2.1/unity-catalog/catalogs/main"));
    assertEquals(1, h.fake.count("GET", "/api/2.1/unity-catalog/schemas/main.bronze"));
  }

  @Test
  void registeringAgainChangesNothing() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    String tableId = h.fake.table(FULL).get("table_id").asText();
    catalog.register(Harness.orders());
    // A second worker process (fresh client) sees the same thing.
    h.catalog().register(Harness.orders(Harness.LOCATION + "/"));

    assertEquals(1, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
    assertEquals(0, h.fake.count("DELETE", ""));
    assertEquals(tableId, h.fake.table(FULL).get("table_id").asText());
  }

  @Test
  void newColumnsDeleteAndRecreateTheEntryAtTheSameLocation() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    String before = h.fake.table(FULL).get("table_id").asText();

    catalog.register(Harness.orders(new Column("coupon", ColumnType.STRING)));

    JsonNode t = h.fake.table(FULL);
    assertNotEquals(before, t.get("table_id").asText());
    assertEquals(Harness.LOCATION, t.get("storage_location").asText());
    assertEquals(11, t.get("columns").size());
    assertEquals("coupon", t.get("columns").get(10).get("name").asText());
    assertEquals(10, t.get("columns").get(10).get("position").asInt());
    assertEquals(1, h.fake.count("DELETE", "/api/2.1/unity-catalog/tables/main.bronze.orders_APPEND"));
    assertEquals(2, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
  }

  @Test
  void aRegistrationWithMoreColumnsThanThisTableIsLeftAlone() {
    h.catalog().register(Harness.orders(new Column("coupon", ColumnType.STRING)));
    // A replica that has not seen the new column yet must not take it away again.
    h.catalog().register(Harness.orders());
    assertEquals(11, h.fake.table(FULL).get("columns").size());
    assertEquals(0, h.fake.count("DELETE", ""));
  }

  @Test
  void anEntryAtAnotherLocationIsNotOursAndStaysUntouched() {
    String elsewhere = "abfss://other@otheraccount.dfs.core.windows.net/tables/orders";
    h.fake.putTable(FULL, "EXTERNAL", elsewhere, "id", "bigint");
    JsonNode before = h.fake.table(FULL);

    TableFailureException e = assertThrows(TableFailureException.class, () -> h.catalog().register(Harness.orders()));

    assertTrue(e.getMessage().contains(elsewhere), e.getMessage());
    assertTrue(e.getMessage().contains(Harness.LOCATION), e.getMessage());
    assertTrue(e.getMessage().contains("another target table name"), e.getMessage());
    assertEquals(before, h.fake.table(FULL));
    assertEquals(0, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
    assertEquals(0, h.fake.count("DELETE", ""));
  }

  @Test
  void aViewUnderTheNameIsNotOurs() {
    h.fake.putTable(FULL, "VIEW", null, "id", "bigint");
    JsonNode before = h.fake.table(FULL);

    TableFailureException e = assertThrows(TableFailureException.class, () -> h.catalog().register(Harness.orders()));

    assertTrue(e.getMessage().contains("VIEW"), e.getMessage());
    assertTrue(e.getMessage().contains(Harness.LOCATION), e.getMessage());
    assertEquals(before, h.fake.table(FULL));
    assertEquals(0, h.fake.count("DELETE", ""));
  }

  @Test
  void aManagedTableUnderTheNameIsNotOurs() {
    h.fake.putTable(FULL, "MANAGED", "abfss://managed@uc.dfs.core.windows.net/__unitystorage/t1", "id", "bigint");
    TableFailureException e = assertThrows(TableFailureException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(e.getMessage().contains("MANAGED"), e.getMessage());
    assertTrue(e.getMessage().contains("__unitystorage"), e.getMessage());
  }

  @Test
  void aConcurrentRegistrationIsRecognisedOnDatabricks409() {
    h.catalog().register(Harness.orders());
    h.fake.hideTableOnNextGet(FULL);
    h.catalog().register(Harness.orders());
    assertEquals(2, h.fake.count("POST", "/api/2.1/unity-catalog/tables"));
    assertEquals(0, h.fake.count("DELETE", ""));
  }

  @Test
  void theOpenSourceServersAnswer400ForAnExistingTableCountsAsExists() throws Exception {
    try (Harness oss = Harness.start(Flavor.OSS)) {
      UnityCatalog catalog = oss.catalog(UnitySettings.unauthenticatedLocalServer(oss.fake.url(), "main", "bronze"));
      catalog.register(Harness.orders());
      oss.fake.hideTableOnNextGet(FULL);
      catalog.register(Harness.orders());
      assertEquals(2, oss.fake.count("POST", "/api/2.1/unity-catalog/tables"));
      assertEquals(0, oss.fake.authorizationHeaders());
      assertTrue(catalog.describe().contains("local development server"), catalog.describe());
    }
  }

  @Test
  void aMissingCatalogSaysSoAndNothingIsCreated() {
    h.fake.removeCatalog("main");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(e.getMessage().contains("catalog 'main' does not exist"), e.getMessage());
    assertTrue(e.getMessage().contains("never creates"), e.getMessage());
    assertTrue(e.getMessage().contains("catalog.catalog"), e.getMessage());
    assertEquals(0, h.fake.count("POST", "/api/"));
  }

  @Test
  void aMissingSchemaSaysSoAndNothingIsCreated() {
    h.fake.removeSchema("main", "bronze");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(e.getMessage().contains("Schema 'bronze' does not exist in catalog 'main'"), e.getMessage());
    assertTrue(e.getMessage().contains("CREATE SCHEMA main.bronze"), e.getMessage());
    assertTrue(e.getMessage().contains("catalog.schema"), e.getMessage());
    assertEquals(0, h.fake.count("POST", "/api/"));
  }

  @Test
  void aSchemaDroppedAfterStartIsReportedAsMissing() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    h.fake.removeSchema("main", "bronze");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.register(Harness.orders()));
    assertTrue(e.getMessage().contains("Schema 'bronze' does not exist"), e.getMessage());
  }

  @Test
  void aMissingGrantNamesThePrivilegeAndTheGrantToRun() {
    h.fake.revoke("schema", "main.bronze", "CREATE_EXTERNAL_TABLE");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().register(Harness.orders()));
    assertTrue(
        e.getMessage().contains("GRANT CREATE EXTERNAL TABLE ON SCHEMA main.bronze TO `" + FakeDatabricks.CLIENT_ID + "`;"),
        e.getMessage());
    assertNull(h.fake.table(FULL));
  }

  @Test
  void externalAccessDisabledSaysHowToEnableIt() {
    h.fake.disableExternalAccess();
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().register(Harness.orders()));
    String m = e.getMessage();
    assertTrue(m.contains("External data access is disabled"), m);
    assertTrue(m.contains("PATCH /api/2.1/unity-catalog/metastores/" + FakeDatabricks.METASTORE_ID), m);
    assertTrue(m.contains("{\"external_access_enabled\": true}"), m);
    assertTrue(m.contains("Metastore details"), m);
  }

  @Test
  void listsTheTablesOfTheSchemaAcrossPages() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    h.fake.putTable("main.bronze.orders", "VIEW", null, "id", "bigint");
    h.fake.emptyFirstListPage();
    assertEquals(List.of("orders_append", "orders"), catalog.listTables());
  }
}
