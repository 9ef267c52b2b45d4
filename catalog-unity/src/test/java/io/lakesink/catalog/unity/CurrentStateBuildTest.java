package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.CurrentStateSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The current-state object built on the fake's SQL warehouse (issue 12). */
class CurrentStateBuildTest {
  private static final String VIEW = "main.bronze.orders";
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private CurrentStateResult registerAndBuild(UnityCatalog catalog, CatalogTable table) {
    catalog.register(table);
    return catalog.buildCurrentState(table);
  }

  @Test
  void createsTheViewOverTheChangelogWithOurMarkedComment() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    assertEquals(CurrentStateResult.UP_TO_DATE, registerAndBuild(catalog, Harness.orders()));
    JsonNode view = h.fake.table(VIEW);
    assertEquals("VIEW", view.path("table_type").asText());
    assertTrue(view.path("comment").asText().startsWith("lakesink-current-state:v1 changelog=`main`.`bronze`.`orders_APPEND`"),
        view.path("comment").asText());
    assertTrue(view.path("view_definition").asText().contains("PARTITION BY `id`"));
    assertEquals(1, h.fake.statements().size(), h.fake.statements().toString());
    assertTrue(h.fake.statements().get(0).startsWith("CREATE OR REPLACE VIEW `main`.`bronze`.`orders`\nCOMMENT '"));

    // Built for these columns: asking again runs nothing.
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertEquals(1, h.fake.statements().size());
  }

  @Test
  void aNewColumnRebuildsTheViewKeepingItsIdentity() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    registerAndBuild(catalog, Harness.orders());
    JsonNode before = h.fake.table(VIEW);
    assertEquals(CurrentStateResult.UP_TO_DATE, registerAndBuild(catalog, Harness.orders(new Column("coupon", ColumnType.STRING))));
    JsonNode after = h.fake.table(VIEW);
    assertEquals(2, h.fake.statements().stream().filter(st -> st.startsWith("CREATE OR REPLACE VIEW")).count(),
        "a Databricks view freezes SELECT *: a new column needs the view again: " + h.fake.statements());
    assertNotEquals(before.path("comment").asText(), after.path("comment").asText());
  }

  @Test
  void aChangedKeyOrMetadataSettingRebuildsAndAMissingViewIsCreatedAgain() {
    registerAndBuild(h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW)), Harness.orders());
    CurrentStateSpec otherKey = new CurrentStateSpec("orders", List.of("id", "note"), true, CurrentStateKind.VIEW, CurrentStateOptions.DEFAULT);
    registerAndBuild(h.catalog(CurrentStateKind.VIEW, otherKey), Harness.orders());
    assertTrue(h.fake.table(VIEW).path("view_definition").asText().contains("PARTITION BY `id`, `note`"));
    CurrentStateSpec noMetadata = new CurrentStateSpec("orders", List.of("id", "note"), false, CurrentStateKind.VIEW, CurrentStateOptions.DEFAULT);
    registerAndBuild(h.catalog(CurrentStateKind.VIEW, noMetadata), Harness.orders());
    assertTrue(h.fake.table(VIEW).path("view_definition").asText().contains("EXCEPT (`__op`, `__ts_ms`"));
    assertEquals(3, h.fake.statements().size());

    h.fake.runStatementDirectly("DROP VIEW IF EXISTS `main`.`bronze`.`orders`");
    registerAndBuild(h.catalog(CurrentStateKind.VIEW, noMetadata), Harness.orders()); // a restart
    assertEquals("VIEW", h.fake.table(VIEW).path("table_type").asText(), "missing at start: created again");
  }

  @Test
  void anObjectWithoutOurMarkerIsLeftAloneWithTheReferencesAdvice() {
    h.fake.putTable(VIEW, "VIEW", null, "id", "bigint");
    CurrentStateResult r = registerAndBuild(h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW)), Harness.orders());
    CurrentStateResult.Failed failed = assertInstanceOf(CurrentStateResult.Failed.class, r);
    assertFalse(failed.warehouseRefused());
    assertTrue(failed.reason().contains("Unity Catalog already has a VIEW main.bronze.orders that lakesink did not build"), failed.reason());
    assertTrue(failed.reason().contains("rename or drop it, or point the subscription's view to another schema"), failed.reason());
    assertTrue(failed.reason().contains("the current-state view is not built"), failed.reason());
    assertEquals(List.of(), h.fake.statements(), "nothing is run against an object that is not ours");
    assertEquals("SELECT 1", h.fake.table(VIEW).path("view_definition").asText());
  }

  @Test
  void theSubscriptionsFormerMergeTableIsNamedWithTheRenameThatFreesTheName() {
    h.fake.putTable(VIEW, "EXTERNAL", "abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders/", "id", "bigint");
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, registerAndBuild(catalog, Harness.orders()));
    assertTrue(f.reason().contains("is still this subscription's MERGE table"), f.reason());
    assertTrue(f.reason().contains("ALTER TABLE main.bronze.orders RENAME TO main.bronze.orders_PRE_CHANGELOG"), f.reason());
    assertEquals(List.of(), h.fake.statements());

    h.fake.runStatementDirectly("ALTER TABLE `main`.`bronze`.`orders` RENAME TO `main`.`bronze`.`orders_PRE_CHANGELOG`");
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertEquals("VIEW", h.fake.table(VIEW).path("table_type").asText());
    assertEquals("EXTERNAL", h.fake.table("main.bronze.orders_pre_changelog").path("table_type").asText(), "kept, renamed");
  }

  @Test
  void theMigrationRenamesTheFormerMergeTableOnceAndNeverDropsIt() {
    h.fake.putTable(VIEW, "EXTERNAL", "abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders/", "id", "bigint");
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.moveFormerMergeTable(Harness.orders()));
    assertEquals(List.of("ALTER TABLE `main`.`bronze`.`orders` RENAME TO `main`.`bronze`.`orders_PRE_CHANGELOG`"),
        h.fake.statements());
    JsonNode kept = h.fake.table("main.bronze.orders_PRE_CHANGELOG");
    assertEquals("abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders/", kept.path("storage_location").asText());

    // Again (a restart before the step was recorded), and once the view holds the name: nothing runs.
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.moveFormerMergeTable(Harness.orders()));
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.moveFormerMergeTable(Harness.orders()));
    assertEquals(2, h.fake.statements().size(), h.fake.statements().toString());
  }

  @Test
  void theMigrationRenamesNothingButTheSubscriptionsMergeTable() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    h.fake.putTable(VIEW, "MANAGED", "abfss://lake@myaccount.dfs.core.windows.net/managed/orders/", "id", "bigint");
    CurrentStateResult.Failed notOurs = assertInstanceOf(CurrentStateResult.Failed.class, catalog.moveFormerMergeTable(Harness.orders()));
    assertTrue(notOurs.reason().contains("that lakesink did not build"), notOurs.reason());
    assertEquals(List.of(), h.fake.statements());
  }

  @Test
  void theMigrationNeverRenamesOverAnExistingPreChangelogTable() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    h.fake.putTable(VIEW, "EXTERNAL", "abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders/", "id", "bigint");
    h.fake.putTable("main.bronze.orders_PRE_CHANGELOG", "EXTERNAL", "abfss://lake@myaccount.dfs.core.windows.net/old/", "id", "bigint");
    CurrentStateResult.Failed taken = assertInstanceOf(CurrentStateResult.Failed.class, catalog.moveFormerMergeTable(Harness.orders()));
    assertTrue(taken.reason().contains("cannot be renamed main.bronze.orders_PRE_CHANGELOG: that name is taken"), taken.reason());
    assertEquals(List.of(), h.fake.statements(), "nothing renamed, nothing dropped");
  }

  @Test
  void aViewInAnotherSchemaReadsTheChangelogInTheCatalogsSchema() {
    h.fake.addSchema("main", "silver");
    h.fake.grant("schema", "main.silver", "USE_SCHEMA", "CREATE_TABLE");
    CurrentStateSpec spec = new CurrentStateSpec("orders", List.of("id"), true, CurrentStateKind.VIEW,
        new CurrentStateOptions(true, "silver", CurrentStateOptions.DEFAULT_REFRESH_LAG));
    assertEquals(CurrentStateResult.UP_TO_DATE, registerAndBuild(h.catalog(CurrentStateKind.VIEW, spec), Harness.orders()));
    assertTrue(h.fake.table("main.silver.orders").path("view_definition").asText().contains("FROM `main`.`bronze`.`orders_APPEND`"));

    CurrentStateSpec missing = new CurrentStateSpec("orders", List.of("id"), true, CurrentStateKind.VIEW,
        new CurrentStateOptions(true, "gold", CurrentStateOptions.DEFAULT_REFRESH_LAG));
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class,
        registerAndBuild(h.catalog(CurrentStateKind.VIEW, missing), Harness.orders()));
    assertTrue(f.reason().contains("Schema main.gold of the current-state view does not exist"), f.reason());
  }

  @Test
  void buildingTurnedOffLeavesTheNameAlone() {
    CurrentStateSpec off = new CurrentStateSpec("orders", List.of("id"), true, CurrentStateKind.VIEW,
        new CurrentStateOptions(false, null, CurrentStateOptions.DEFAULT_REFRESH_LAG));
    assertEquals(CurrentStateResult.NOT_MANAGED, registerAndBuild(h.catalog(CurrentStateKind.VIEW, off), Harness.orders()));
    assertEquals(List.of(), h.fake.statements());
  }

  @Test
  void withoutAWarehouseNothingRuns() {
    UnityCatalog catalog = UnityCatalog.create(h.settings(), h.environment(),
        Map.of("orders_APPEND", Harness.ordersSpec(CurrentStateKind.VIEW)));
    assertEquals(CurrentStateResult.NOT_MANAGED, registerAndBuild(catalog, Harness.orders()));
    assertEquals(List.of(), h.fake.statements());
    assertEquals(0, h.fake.count("POST", "/api/2.0/sql"));
  }

  // ---- materialized views ------------------------------------------------------------------

  @Test
  void aMaterializedViewGetsItsScheduleFromTheRefreshLag() {
    CurrentStateSpec hourly = Harness.ordersSpec(CurrentStateKind.MATERIALIZED_VIEW);
    registerAndBuild(h.catalog(CurrentStateKind.MATERIALIZED_VIEW, hourly), Harness.orders());
    assertEquals("MATERIALIZED_VIEW", h.fake.table(VIEW).path("table_type").asText());
    assertEquals("SCHEDULE EVERY 1 HOURS", h.fake.table(VIEW).path("schedule").asText());

    CurrentStateSpec quarter = new CurrentStateSpec("orders", List.of("id"), true, CurrentStateKind.MATERIALIZED_VIEW,
        new CurrentStateOptions(true, null, Duration.ofMinutes(15)));
    registerAndBuild(h.catalog(CurrentStateKind.MATERIALIZED_VIEW, quarter), Harness.orders());
    assertEquals("SCHEDULE CRON '0 0/15 * * * ?' AT TIME ZONE 'UTC'", h.fake.table(VIEW).path("schedule").asText());
  }

  @Test
  void switchingKindDropsOurViewFirst() {
    registerAndBuild(h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW)), Harness.orders());
    CurrentStateResult r = registerAndBuild(
        h.catalog(CurrentStateKind.MATERIALIZED_VIEW, Harness.ordersSpec(CurrentStateKind.MATERIALIZED_VIEW)), Harness.orders());
    assertEquals(CurrentStateResult.UP_TO_DATE, r);
    assertEquals("DROP VIEW IF EXISTS `main`.`bronze`.`orders`", h.fake.statements().get(1));
    assertEquals("MATERIALIZED_VIEW", h.fake.table(VIEW).path("table_type").asText());
  }

  @Test
  void aClassicWarehouseIsRefusedForAMaterializedViewBeforeAnythingRuns() throws Exception {
    try (FakeDatabricks classic = FakeDatabricks.start()) {
      classic.addWarehouse(FakeDatabricks.WAREHOUSE_ID, "CLASSIC", false);
      UnityCatalog catalog = UnityCatalog.create(
          UnitySettings.servicePrincipal(classic.url(), FakeDatabricks.CLIENT_ID, FakeDatabricks.CLIENT_SECRET, "main", "bronze")
              .withWarehouse(FakeDatabricks.WAREHOUSE_ID, CurrentStateKind.MATERIALIZED_VIEW),
          h.environment(), Map.of("orders_APPEND", Harness.ordersSpec(CurrentStateKind.MATERIALIZED_VIEW)));
      CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, registerAndBuild(catalog, Harness.orders()));
      assertTrue(f.warehouseRefused(), "retried after an hour");
      assertTrue(f.reason().contains("is a CLASSIC warehouse, and Databricks builds materialized views only on a serverless (or Pro) one"),
          f.reason());
      assertEquals(List.of(), classic.statements());
    }
  }

  // ---- the warehouse refusing, statements failing --------------------------------------------

  @Test
  void aWarehouseThatRefusesIsReportedAsSuchWithWhatToGrant() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    h.fake.revokeWarehouse(FakeDatabricks.WAREHOUSE_ID);
    CurrentStateResult.Failed noUse = assertInstanceOf(CurrentStateResult.Failed.class, catalog.buildCurrentState(Harness.orders()));
    assertTrue(noUse.warehouseRefused());
    assertTrue(noUse.reason().contains("\"service_principal_name\":\"" + FakeDatabricks.CLIENT_ID + "\",\"permission_level\":\"CAN_USE\""),
        noUse.reason());

    h.fake.addWarehouse(FakeDatabricks.WAREHOUSE_ID, "PRO", true);
    h.fake.revokeSqlEntitlement();
    CurrentStateResult.Failed noSql = assertInstanceOf(CurrentStateResult.Failed.class, catalog.buildCurrentState(Harness.orders()));
    assertTrue(noSql.warehouseRefused());
    assertTrue(noSql.reason().contains("Databricks SQL access entitlement"), noSql.reason());

    h.fake.restoreSqlEntitlement();
    h.fake.stopWarehouse(true);
    CurrentStateResult.Failed stopped = assertInstanceOf(CurrentStateResult.Failed.class, catalog.buildCurrentState(Harness.orders()));
    assertTrue(stopped.warehouseRefused());
    assertTrue(stopped.reason().contains("start the warehouse"), stopped.reason());
    assertFalse(stopped.reason().contains(FakeDatabricks.CLIENT_SECRET));
  }

  @Test
  void aFailedStatementIsNotAWarehouseRefusal() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    h.fake.failNextStatement("INTERNAL_ERROR", "Something broke while analysing the query");
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, catalog.buildCurrentState(Harness.orders()));
    assertFalse(f.warehouseRefused());
    assertTrue(f.reason().contains("ended FAILED with INTERNAL_ERROR: Something broke"), f.reason());
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()), "the next attempt builds it");
  }

  @Test
  void aSlowStatementIsPolledUntilItEnds() {
    h.fake.slowStatements(6);
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    assertEquals(CurrentStateResult.UP_TO_DATE, registerAndBuild(catalog, Harness.orders()));
    String id = h.fake.statementIds().get(0);
    assertEquals(List.of("PENDING", "PENDING", "PENDING", "RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"), h.fake.statementStates(id));
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8),
        Duration.ofSeconds(10), Duration.ofSeconds(10)), h.sleeper.sleeps(), "polls back off up to 10 s");
  }

  @Test
  void aStatementStillRunningAtTheDeadlineIsCancelled() {
    h.fake.slowStatements(1_000_000);
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, registerAndBuild(catalog, Harness.orders()));
    assertFalse(f.warehouseRefused());
    assertTrue(f.reason().contains("did not finish within 30 minutes and was cancelled"), f.reason());
    List<String> states = h.fake.statementStates(h.fake.statementIds().get(0));
    assertEquals("CANCELED", states.get(states.size() - 1));
    assertEquals(1, h.fake.count("POST", "/api/2.0/sql/statements/" + h.fake.statementIds().get(0) + "/cancel"));
  }

  @Test
  void aStatementThatCanNoLongerBeFollowedIsAFailureNotARefusal() {
    h.fake.slowStatements(2);
    h.fake.loseStatements();
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, registerAndBuild(catalog, Harness.orders()));
    assertFalse(f.warehouseRefused(), f.reason());
    assertTrue(f.reason().contains("could no longer be followed (404 RESOURCE_DOES_NOT_EXIST"), f.reason());
  }

  @Test
  void throttledSubmissionsWaitForRetryAfter() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, Harness.ordersSpec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    h.fake.runStatementDirectly("SELECT 1"); // nothing, but keeps the recorded list honest below
    h.fake.throttle(2, "7");
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertEquals(List.of(Duration.ofSeconds(7), Duration.ofSeconds(7)), h.sleeper.sleeps());
    h.fake.unavailable(1);
    h.fake.runStatementDirectly("DROP VIEW IF EXISTS `main`.`bronze`.`orders`");
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()), "a 503 is waited out too");
  }
}
