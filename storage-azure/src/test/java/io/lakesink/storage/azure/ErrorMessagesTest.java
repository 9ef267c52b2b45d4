package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a user sees when the configuration or Azure is wrong: what to fix, and no secret. */
@ExtendWith(AzuriteExtension.class)
class ErrorMessagesTest {
  private static final String WRONG_KEY =
      Base64.getEncoder().encodeToString("not-the-key-of-devstoreaccount1-000000000000".getBytes(StandardCharsets.UTF_8));

  private static void assertMentions(Throwable e, String... parts) {
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + part + "' missing from: " + e.getMessage());
    }
  }

  private static void assertNowhere(Throwable e, String secret) {
    String all = TestStorages.allMessages(e);
    assertFalse(all.contains(secret), "secret leaked:\n" + all);
  }

  @Test
  void missingContainer(Azurite azurite) {
    AzureStorage storage = TestStorages.onAzurite(azurite, "no-such-container");
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertMentions(e, "'no-such-container'", "'devstoreaccount1'", "storage.container", "never creates");
    assertNowhere(e, Azurite.KEY);

    // Through Kernel: the unchecked ConfigurationException crosses it as the cause.
    RuntimeException viaKernel =
        assertThrows(
            RuntimeException.class,
            () -> TableManager.loadSnapshot(storage.tableLocation("t")).build(DefaultEngine.create(storage.fileIO())));
    assertInstanceOf(ConfigurationException.class, rootLakesinkCause(viaKernel), TestStorages.allMessages(viaKernel));
  }

  @Test
  void wrongAccountKey(Azurite azurite) {
    String connectionString = azurite.connectionString().replace(Azurite.KEY, WRONG_KEY);
    AzureStorage storage =
        AzureStorage.create(
            AzureStorageSettings.connectionStringOverHttp(azurite.createContainer(), connectionString),
            TestStorages.fastRetries());
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertMentions(e, "'devstoreaccount1'", "storage.connection_string", "Access keys");
    assertNowhere(e, WRONG_KEY);
    assertNowhere(e, Azurite.KEY);

    ConfigurationException fromFileIO =
        assertThrows(
            ConfigurationException.class,
            () -> storage.fileIO().getFileStatus(storage.tableLocation("t") + "/_delta_log/_last_checkpoint"));
    assertNowhere(fromFileIO, WRONG_KEY);
  }

  @Test
  void aWrongSasTokenIsNeverShown(Azurite azurite) {
    String sig = "Zm9yZ2VkLXNpZ25hdHVyZS0xMjM0NTY3ODkwYWJjZGVm";
    String sas = "sv=2024-08-04&ss=b&srt=sco&sp=rwdlac&se=2099-01-01T00:00:00Z&spr=https,http&sig=" + sig;
    String connectionString =
        "BlobEndpoint=" + azurite.blobEndpoint() + ";SharedAccessSignature=" + sas;
    AzureStorage storage =
        AzureStorage.create(
            AzureStorageSettings.connectionStringOverHttp(azurite.createContainer(), connectionString),
            TestStorages.fastRetries());
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertMentions(e, "'devstoreaccount1'", "storage.connection_string");
    assertNowhere(e, sig);
  }

  @Test
  void unreachableAccountIsAConfigurationErrorInTheConnectionTestButRetryableAtRunTime()
      throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String connectionString =
        "DefaultEndpointsProtocol=http;AccountName=nosuchaccount;AccountKey=" + Azurite.KEY
            + ";BlobEndpoint=http://127.0.0.1:" + closedPort + "/nosuchaccount;";
    AzureStorage storage =
        AzureStorage.create(
            AzureStorageSettings.connectionStringOverHttp("tables", connectionString), TestStorages.fastRetries());
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertMentions(e, "'nosuchaccount'", "connection refused", "AccountName");
    assertNowhere(e, Azurite.KEY);

    // While running, the same failure is transient: a private endpoint's tunnel can come back.
    RetryableException retryable =
        assertThrows(
            RetryableException.class,
            () -> storage.fileIO().getFileStatus(storage.tableLocation("t") + "/_delta_log/x.json"));
    assertMentions(retryable, "after 3 tries");
  }

  @Test
  void unknownAccountHostName() {
    // .invalid never resolves (RFC 6761): the DNS failure of a mistyped account name.
    String connectionString =
        "DefaultEndpointsProtocol=https;AccountName=typoaccount;AccountKey=" + Azurite.KEY
            + ";EndpointSuffix=invalid";
    AzureStorage storage =
        AzureStorage.create(
            AzureStorageSettings.connectionString("tables", connectionString), TestStorages.fastRetries());
    assertTrue(storage.tableLocation("t").startsWith("abfss://tables@typoaccount.dfs.invalid/"));
    ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
    assertMentions(e, "'typoaccount'", "host not found", "https://typoaccount.blob.invalid");
    assertNowhere(e, Azurite.KEY);
  }

  @Test
  void missingRoleOrPermission(Azurite azurite) {
    // Azurite does not enforce roles: the proxy answers like Azure does for a principal without
    // a data role. The SDK parses a real HTTP answer.
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      proxy.respondWithError(r -> true, 403, "AuthorizationPermissionMismatch");
      String sas = "sv=2024-08-04&ss=b&srt=sco&sp=r&se=2099-01-01T00:00:00Z&spr=https,http&sig=c2lnbmF0dXJlLW9mLWEtcmVhZC1vbmx5LXNhcw";
      AzureStorage storage =
          AzureStorage.create(
              AzureStorageSettings.connectionStringOverHttp(
                  "tables", "BlobEndpoint=" + proxy.url() + "/" + Azurite.ACCOUNT + ";SharedAccessSignature=" + sas),
              TestStorages.fastRetries());
      ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
      assertMentions(e, "'tables'", "'devstoreaccount1'", "AuthorizationPermissionMismatch", "write, delete and list");
      assertNowhere(e, "c2lnbmF0dXJlLW9mLWEtcmVhZC1vbmx5LXNhcw");
    }
  }

  @Test
  void wrongKeyAsRealAzureAnswersIt(Azurite azurite) {
    // Azure answers a bad shared-key signature with 403 AuthenticationFailed (Azurite with
    // AuthorizationFailure, covered above).
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      proxy.respondWithError(r -> true, 403, "AuthenticationFailed");
      String connectionString = azurite.connectionString().replace(Azurite.KEY, WRONG_KEY);
      AzureStorage storage =
          AzureStorage.create(
              AzureStorageSettings.connectionStringOverHttp("tables", connectionString)
                  .withEndpoint(proxy.url() + "/" + Azurite.ACCOUNT),
              TestStorages.fastRetries());
      ConfigurationException e = assertThrows(ConfigurationException.class, storage::checkAccess);
      assertMentions(e, "'devstoreaccount1'", "AuthenticationFailed", "storage.connection_string", "Access keys");
      assertNowhere(e, WRONG_KEY);
    }
  }

  @Test
  void aServiceThatRefusesStartFromStillLists(Azurite azurite) throws IOException {
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      proxy.respondWithError(r -> r.query() != null && r.query().contains("startFrom="), 400, "InvalidQueryParameterValue");
      AzureStorage storage = TestStorages.viaProxy(azurite, azurite.createContainer(), proxy);
      String log = storage.tableLocation("t") + "/_delta_log/";
      for (int v = 0; v < 3; v++) {
        storage.fileIO().newOutputFile(log + String.format("%020d.json", v))
            .writeAtomically(AzureFileIOContractTest.lines("{}"), false);
      }
      java.util.List<String> listed = new java.util.ArrayList<>();
      try (var it = storage.fileIO().listFrom(log + String.format("%020d.", 1))) {
        it.forEachRemaining(f -> listed.add(f.getPath()));
      }
      assertTrue(listed.size() == 2 && listed.get(0).endsWith(String.format("%020d.json", 1)), listed.toString());
    }
  }

  @Test
  void throttlingThatOutlastsTheRetriesIsRetryable(Azurite azurite) {
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      for (int i = 0; i < 3; i++) {
        proxy.respondWithError(r -> r.method().equals("HEAD"), 503, "ServerBusy");
      }
      AzureStorage storage = TestStorages.viaProxy(azurite, azurite.createContainer(), proxy);
      RetryableException e =
          assertThrows(
              RetryableException.class,
              () -> storage.fileIO().getFileStatus(storage.tableLocation("t") + "/x"));
      assertMentions(e, "503", "ServerBusy", "after 3 tries");
    }
  }

  private static Throwable rootLakesinkCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConfigurationException) return c;
    }
    return t;
  }
}
