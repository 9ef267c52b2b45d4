package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.error.ConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OAuthTest {
  private static final String TOKEN = "POST /oidc/v1/token";
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private long tokenRequests() {
    return h.fake.requests().stream().filter(r -> r.equals(TOKEN)).count();
  }

  @Test
  void discoversTheTokenEndpointAndCachesTheToken() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    catalog.register(Harness.orders());
    assertEquals(1, h.fake.count("GET", OAuthM2M.DISCOVERY_PATH));
    assertEquals(1, tokenRequests());
  }

  @Test
  void fallsBackToTheWellKnownTokenPath() {
    h.fake.disableDiscovery();
    h.catalog().register(Harness.orders());
    assertEquals(1, tokenRequests());
  }

  @Test
  void renewsShortlyBeforeExpiry() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    h.clock.advance(Duration.ofMinutes(50));
    catalog.register(Harness.orders());
    assertEquals(1, tokenRequests(), "a token with ten minutes left is still used");
    h.clock.advance(Duration.ofMinutes(6));
    catalog.register(Harness.orders());
    assertEquals(2, tokenRequests(), "a token with four minutes left is renewed first");
  }

  @Test
  void anExpiredTokenIsRenewedOnce() {
    UnityCatalog catalog = h.catalog();
    catalog.register(Harness.orders());
    h.fake.expireTokens();
    catalog.register(Harness.orders());
    assertEquals(2, tokenRequests());
    assertEquals(0, h.fake.count("DELETE", ""));
  }

  @Test
  void aFreshTokenRefusedAgainIsAConfigurationError() {
    UnityCatalog catalog = h.catalog();
    h.fake.refuseAllTokens();
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.register(Harness.orders()));
    assertTrue(e.getMessage().contains("rejected a freshly issued OAuth token"), e.getMessage());
    assertTrue(e.getMessage().contains(FakeDatabricks.CLIENT_ID), e.getMessage());
    assertTrue(e.getMessage().contains("catalog.workspace_url"), e.getMessage());
    assertEquals(2, tokenRequests());
  }

  @Test
  void aWrongSecretIsAConfigurationError() {
    UnitySettings wrong =
        UnitySettings.servicePrincipal(h.fake.url(), FakeDatabricks.CLIENT_ID, "dose-not-the-right-secret", "main", "bronze");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog(wrong).register(Harness.orders()));
    assertTrue(e.getMessage().contains("invalid_client"), e.getMessage());
    assertTrue(e.getMessage().contains("catalog.client_secret"), e.getMessage());
    assertTrue(e.getMessage().contains(FakeDatabricks.CLIENT_ID), e.getMessage());
    assertFalse(e.getMessage().contains("dose-not-the-right-secret"), e.getMessage());
    assertEquals(0, h.fake.count("GET", "/api/"));
  }

  @Test
  void theTokenCheckReportsTheEndpoint() {
    CheckResult r = h.catalog().checkToken();
    assertEquals(CheckResult.Status.PASSED, r.status());
    assertTrue(r.detail().contains(h.fake.url() + "/oidc/v1/token"), r.detail());
  }

  @Test
  void aServerWithoutOAuthIsNotAWorkspace() {
    h.fake.disableOAuth();
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> h.catalog().checkToken());
    assertTrue(e.getMessage().contains("does not look like a Databricks workspace"), e.getMessage());
    assertTrue(e.getMessage().contains("catalog.workspace_url"), e.getMessage());
  }
}
