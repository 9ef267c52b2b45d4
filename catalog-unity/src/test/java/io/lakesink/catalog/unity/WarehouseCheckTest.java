package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.CheckResult.Status;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.view.CurrentStateKind;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** lakesink check with catalog.warehouse_id: the reference's order, and a missing grant only warns. */
class WarehouseCheckTest {
  private static final String ID = FakeDatabricks.CLIENT_ID;
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private List<CheckResult> check(CurrentStateKind kind) {
    return h.catalog(kind, Harness.ordersSpec(kind)).checkConnection();
  }

  private static List<String> names(List<CheckResult> results) {
    return results.stream().map(CheckResult::check).toList();
  }

  private static List<Status> statuses(List<CheckResult> results) {
    return results.stream().map(CheckResult::status).toList();
  }

  @Test
  void afterTheCatalogStepsTheWarehouseStepsRunInTheReferencesOrder() {
    List<CheckResult> results = check(CurrentStateKind.MATERIALIZED_VIEW);
    assertEquals(List.of("Databricks OAuth token exchange", "Catalog and schema", "Unity Catalog grants", "External data access",
        WarehouseCheck.CAN_USE, WarehouseCheck.ENTITLEMENT, WarehouseCheck.CREATE, WarehouseCheck.SERVERLESS), names(results));
    assertEquals(List.of(Status.PASSED, Status.PASSED, Status.PASSED, Status.PASSED, Status.PASSED, Status.PASSED, Status.PASSED,
        Status.PASSED), statuses(results), results.toString());
    assertEquals(List.of("SELECT 1"), h.fake.statements());
    assertEquals(7, check(CurrentStateKind.VIEW).size(), "serverless only matters for materialized views");
  }

  @Test
  void missingGrantsWarnWithWhatToGrant() {
    h.fake.revokeWarehouse(FakeDatabricks.WAREHOUSE_ID);
    h.fake.revoke("schema", "main.bronze", "CREATE_TABLE");
    List<CheckResult> results = check(CurrentStateKind.VIEW);
    assertEquals(List.of(Status.WARNING, Status.WARNING, Status.WARNING), statuses(results.subList(4, 7)), results.toString());
    assertTrue(results.get(4).detail().contains("\"service_principal_name\":\"" + ID + "\",\"permission_level\":\"CAN_USE\""),
        results.get(4).detail());
    assertTrue(results.get(6).detail().contains("GRANT CREATE TABLE ON SCHEMA main.bronze TO `" + ID + "`;"), results.get(6).detail());

    h.fake.addWarehouse(FakeDatabricks.WAREHOUSE_ID, "PRO", true);
    h.fake.revokeSqlEntitlement();
    h.fake.revoke("schema", "main.bronze", "CREATE_MATERIALIZED_VIEW");
    results = check(CurrentStateKind.MATERIALIZED_VIEW);
    assertEquals(Status.PASSED, results.get(4).status(), results.toString());
    assertEquals(Status.WARNING, results.get(5).status());
    assertTrue(results.get(5).detail().contains("Databricks SQL access entitlement"), results.get(5).detail());
    assertTrue(results.get(6).detail().contains("GRANT CREATE MATERIALIZED VIEW ON SCHEMA main.bronze TO `" + ID + "`;"),
        results.get(6).detail());
  }

  @Test
  void aClassicWarehouseWarnsForMaterializedViewsAndAnUnknownIdFails() throws Exception {
    try (FakeDatabricks classic = FakeDatabricks.start()) {
      classic.addWarehouse(FakeDatabricks.WAREHOUSE_ID, "CLASSIC", false);
      UnitySettings settings = UnitySettings.servicePrincipal(classic.url(), ID, FakeDatabricks.CLIENT_SECRET, "main", "bronze");
      List<CheckResult> results = UnityCatalog.create(settings.withWarehouse(FakeDatabricks.WAREHOUSE_ID, CurrentStateKind.MATERIALIZED_VIEW),
          h.environment()).checkConnection();
      assertEquals(Status.WARNING, results.get(7).status(), results.toString());
      assertTrue(results.get(7).detail().contains("serverless (or Pro)"), results.get(7).detail());

      results = UnityCatalog.create(settings.withWarehouse("ffff0000", CurrentStateKind.VIEW), h.environment()).checkConnection();
      assertEquals(Status.FAILED, results.get(4).status(), results.toString());
      assertTrue(results.get(4).detail().contains("no SQL warehouse ffff0000 exists"), results.get(4).detail());
      assertEquals(5, results.size());
    }
  }

  @Test
  void unreadableWarehousePermissionsAreNotVerifiedAndSelectOneDecides() {
    h.fake.hideWarehousePermissions();
    List<CheckResult> results = check(CurrentStateKind.VIEW);
    assertEquals(List.of(Status.NOT_VERIFIED, Status.PASSED, Status.PASSED), statuses(results.subList(4, 7)), results.toString());
  }
}
