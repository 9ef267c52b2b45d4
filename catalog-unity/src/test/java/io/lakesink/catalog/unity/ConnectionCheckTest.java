package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.CheckResult.Status;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.catalog.unity.testing.FakeDatabricks.Flavor;
import io.lakesink.error.ConfigurationException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConnectionCheckTest {
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

  private static List<Status> statuses(List<CheckResult> results) {
    return results.stream().map(CheckResult::status).toList();
  }

  @Test
  void everyStepPassesOnAWellPreparedWorkspace() {
    List<CheckResult> results = h.catalog().checkConnection();
    assertEquals(List.of(Status.PASSED, Status.PASSED, Status.PASSED, Status.PASSED), statuses(results), results.toString());
    assertTrue(results.get(3).detail().contains(FakeDatabricks.METASTORE_ID), results.toString());
    // Paged effective permissions: the schema's second page was read.
    assertTrue(h.fake.requests().stream().anyMatch(r -> r.contains("effective-permissions/schema/main.bronze") && r.contains("page_token=2")));
    assertEquals(0, h.fake.count("POST", "/api/"));
  }

  @Test
  void aMissingGrantIsNamedWithTheGrantStatement() {
    h.fake.revoke("schema", "main.bronze", "EXTERNAL_USE_SCHEMA");
    h.fake.revoke("catalog", "main", "USE_CATALOG");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().checkPermissions());
    assertTrue(e.getMessage().contains("GRANT EXTERNAL USE SCHEMA ON SCHEMA main.bronze TO `" + ID + "`;"), e.getMessage());
    assertTrue(e.getMessage().contains("GRANT USE CATALOG ON CATALOG main TO `" + ID + "`;"), e.getMessage());
    assertTrue(!e.getMessage().contains("GRANT USE SCHEMA"), e.getMessage());
  }

  @Test
  void allPrivilegesCoversEverything() {
    h.fake.revoke("schema", "main.bronze", "USE_SCHEMA");
    h.fake.revoke("schema", "main.bronze", "CREATE_EXTERNAL_TABLE");
    h.fake.revoke("schema", "main.bronze", "EXTERNAL_USE_SCHEMA");
    h.fake.grant("catalog", "main", "ALL_PRIVILEGES");
    assertEquals(Status.PASSED, h.catalog().checkPermissions().status());
  }

  @Test
  void ownershipCoversAllButExternalUse() {
    h.fake.revoke("schema", "main.bronze", "USE_SCHEMA");
    h.fake.revoke("schema", "main.bronze", "CREATE_EXTERNAL_TABLE");
    h.fake.setOwner("schema", "main.bronze", ID);
    assertEquals(Status.PASSED, h.catalog().checkPermissions().status());
    h.fake.revoke("schema", "main.bronze", "EXTERNAL_USE_SCHEMA");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().checkPermissions());
    assertTrue(e.getMessage().contains("GRANT EXTERNAL USE SCHEMA ON SCHEMA main.bronze"), e.getMessage());
  }

  @Test
  void unreadablePermissionsAreNotAFailure() {
    h.fake.hidePermissions();
    h.fake.revoke("schema", "main.bronze", "EXTERNAL_USE_SCHEMA");
    assertEquals(Status.NOT_VERIFIED, h.catalog().checkPermissions().status());
  }

  @Test
  void theOpenSourceServerLeavesGrantsAndTheFlagUnverified() throws Exception {
    try (Harness oss = Harness.start(Flavor.OSS)) {
      UnityCatalog local = oss.catalog(UnitySettings.unauthenticatedLocalServer(oss.fake.url(), "main", "bronze"));
      assertEquals(
          List.of(Status.NOT_VERIFIED, Status.PASSED, Status.NOT_VERIFIED, Status.NOT_VERIFIED),
          statuses(local.checkConnection()));
    }
  }

  @Test
  void externalAccessDisabledFailsTheCheckWithTheFix() {
    h.fake.disableExternalAccess();
    List<CheckResult> results = h.catalog().checkConnection();
    assertEquals(List.of(Status.PASSED, Status.PASSED, Status.PASSED, Status.FAILED), statuses(results));
    String detail = results.get(3).detail();
    assertTrue(detail.contains("PATCH /api/2.1/unity-catalog/metastores/" + FakeDatabricks.METASTORE_ID + " {\"external_access_enabled\": true}"), detail);
  }

  @Test
  void theFirstFailureStopsTheTest() {
    h.fake.removeCatalog("main");
    List<CheckResult> results = h.catalog().checkConnection();
    assertEquals(List.of(Status.PASSED, Status.FAILED), statuses(results));
    assertTrue(results.get(1).detail().contains("catalog 'main' does not exist"), results.toString());
  }

  @Test
  void aWrongSecretFailsTheFirstStep() {
    UnitySettings wrong = UnitySettings.servicePrincipal(h.fake.url(), ID, "dose-wrong", "main", "bronze");
    List<CheckResult> results = h.catalog(wrong).checkConnection();
    assertEquals(List.of(Status.FAILED), statuses(results));
    assertTrue(results.get(0).detail().contains("catalog.client_secret"), results.toString());
  }
}
