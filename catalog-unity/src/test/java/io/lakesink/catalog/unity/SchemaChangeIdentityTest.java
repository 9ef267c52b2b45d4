package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.view.CurrentStateKind;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A new column keeps the table's identity in Unity Catalog: grants and comment survive (issue 12). */
class SchemaChangeIdentityTest {
  private static final String FULL = "main.bronze.orders_APPEND";
  private static final Column COUPON = new Column("coupon", ColumnType.STRING);
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private void deltaLogWithCoupon() {
    h.fake.deltaLogColumns(Harness.LOCATION, "id", "bigint", "amount", "decimal(10,2)", "quantity", "int", "note", "string",
        "price", "double", "ratio", "float", "paid", "boolean", "ordered_on", "date", "updated_at", "timestamp",
        "__ingest_date", "date", "coupon", "string");
  }

  @Test
  void withAWarehouseTheEntryIsRepairedInPlace() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    String id = h.fake.table(FULL).path("table_id").asText();
    h.fake.grantOnTable(FULL, "analysts", "SELECT");
    deltaLogWithCoupon();
    catalog.register(Harness.orders(COUPON));
    assertEquals(List.of("REPAIR TABLE `main`.`bronze`.`orders_APPEND` SYNC METADATA"), h.fake.statements());
    assertEquals(id, h.fake.table(FULL).path("table_id").asText(), "the same entry");
    assertEquals(0, h.fake.count("DELETE", "/api/2.1/unity-catalog/tables"));
    assertEquals(Set.of("SELECT"), h.fake.tableGrants(FULL, "analysts"));
    List<String> columns = UnityCatalogColumns.names(h.fake.table(FULL));
    assertEquals("coupon", columns.get(columns.size() - 1));
  }

  @Test
  void withoutAWarehouseGrantsAndCommentAreReadFirstAndReappliedToTheNewEntry() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    String id = h.fake.table(FULL).path("table_id").asText();
    h.fake.grantOnTable(FULL, "analysts", "SELECT");
    h.fake.grantOnTable(FULL, "auditors", "SELECT", "MODIFY");
    h.fake.setComment(FULL, "Orders, every change");
    catalog.register(Harness.orders(COUPON));
    assertEquals(1, h.fake.count("DELETE", "/api/2.1/unity-catalog/tables"));
    assertNotEquals(id, h.fake.table(FULL).path("table_id").asText(), "Unity Catalog has no call that changes columns");
    assertEquals(Set.of("SELECT"), h.fake.tableGrants(FULL, "analysts"));
    assertEquals(Set.of("SELECT", "MODIFY"), h.fake.tableGrants(FULL, "auditors"));
    assertEquals("Orders, every change", h.fake.table(FULL).path("comment").asText());
  }

  @Test
  void aRepairThatFailsFallsBackToReCreatingWithTheGrants() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    h.fake.grantOnTable(FULL, "analysts", "SELECT");
    h.fake.failNextStatement("PERMISSION_DENIED", "User does not have MODIFY on Table 'main.bronze.orders_append'.");
    catalog.register(Harness.orders(COUPON));
    assertEquals(1, h.fake.count("DELETE", "/api/2.1/unity-catalog/tables"));
    assertEquals(Set.of("SELECT"), h.fake.tableGrants(FULL, "analysts"));
    List<String> columns = UnityCatalogColumns.names(h.fake.table(FULL));
    assertTrue(columns.contains("coupon"), columns.toString());
  }
}
