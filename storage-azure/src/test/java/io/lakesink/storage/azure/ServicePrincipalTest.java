package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.FakeEntra;
import io.lakesink.storage.azure.testing.TestHttpClients;
import io.lakesink.storage.azure.testing.TestTls;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Option B for real: azure-identity's ClientSecretCredential gets a token from a local HTTPS
 * token endpoint, and Azurite in OAuth mode (HTTPS) checks it on every request.
 */
class ServicePrincipalTest {
  private static final String TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  private static final String CLIENT_ID = "0c6a3b5e-2f1d-4e8a-9b7c-1d2e3f4a5b6c";
  private static final String SECRET = "sp-secret~Q8x.Jk2-V9nLpR4tW7yZ0aBcDeFgHi";

  private static TestTls tls;
  private static FakeEntra entra;
  private static Azurite azurite;
  private static String container;

  @BeforeAll
  static void start() {
    tls = TestTls.generate();
    entra = FakeEntra.start(tls, TENANT, CLIENT_ID, SECRET);
    azurite = Azurite.startWithOAuth(tls);
    container = azurite.createContainer("spn-tables");
  }

  @AfterAll
  static void stop() {
    if (azurite != null) azurite.close();
    if (entra != null) entra.close();
  }

  private static AzureStorage storage(String clientId, String secret) {
    AzureStorageSettings settings =
        AzureStorageSettings.servicePrincipal(container, Azurite.ACCOUNT, TENANT, clientId, secret)
            .withEndpoint(azurite.blobEndpoint())
            .withAuthorityHost(entra.authorityHost());
    return AzureStorage.create(
        settings, TestStorages.fastRetries().withHttpClient(TestHttpClients.trusting(tls)));
  }

  @Test
  void writesAndReadsADeltaTableWithATokenFromEntra() {
    AzureStorage storage = storage(CLIENT_ID, SECRET);
    storage.checkAccess();
    assertTrue(entra.tokensIssued() >= 1, "token endpoint was used: " + entra.requests());

    Engine engine = DefaultEngine.create(storage.fileIO());
    String path = storage.tableLocation("spn_table");
    assertEquals(
        "abfss://spn-tables@devstoreaccount1.dfs.core.windows.net/lakesink/spn_table", path);
    var snapshot = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();
    DeltaTables.append(engine, snapshot, "spn", 1, 1L, 2L, 3L);
    assertEquals(1, DeltaTables.load(engine, path).getVersion());
    assertEquals(List.of(1L, 2L, 3L), DeltaTables.readIds(engine, path).stream().sorted().toList());

    String described = storage.describe();
    assertTrue(described.contains(CLIENT_ID), described);
    assertFalse(described.contains(SECRET), described);
  }

  @Test
  void aWrongSecretIsAConfigurationErrorThatNamesTheKeyButNotTheSecret() {
    String wrong = "wrong-secret~Zz9.Yy8-Xx7Ww6Vv5Uu4Tt3";
    AzureStorage storage = storage(CLIENT_ID, wrong);
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    String message = e.getMessage();
    assertTrue(message.contains("storage.client_secret"), message);
    assertTrue(message.contains(CLIENT_ID), message);
    assertTrue(message.contains(TENANT), message);
    assertTrue(message.contains("AADSTS7000215"), message);
    String everything = TestStorages.allMessages(e);
    assertFalse(everything.contains(wrong), everything);
    assertFalse(everything.contains(SECRET), everything);

    // The same failure through Kernel's FileIO (an unchecked exception crossing Kernel).
    assertThrows(
        ConfigurationException.class,
        () -> storage.fileIO().getFileStatus(storage.tableLocation("t") + "/_delta_log/x.json"));
  }

  @Test
  void anUnknownClientIdPointsAtClientIdAndTenant() {
    AzureStorage storage = storage("11111111-2222-3333-4444-555555555555", SECRET);
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertTrue(e.getMessage().contains("storage.client_id"), e.getMessage());
    assertFalse(TestStorages.allMessages(e).contains(SECRET));
  }
}
