package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * storage.endpoint routes every request to the configured URL. Two recording forwarders stand in
 * front of Azurite: the "public" one is what the connection string names, the "private" one is
 * storage.endpoint. Only the private one may see traffic; table locations do not change.
 */
@ExtendWith(AzuriteExtension.class)
class PrivateEndpointTest {

  @Test
  void everyRequestGoesToTheConfiguredEndpoint(Azurite azurite) {
    String container = azurite.createContainer();
    try (RecordingProxy publicHost = RecordingProxy.start(azurite.baseUrl());
        RecordingProxy privateEndpoint = RecordingProxy.start(azurite.baseUrl())) {
      String connectionString =
          "DefaultEndpointsProtocol=http;AccountName=" + Azurite.ACCOUNT + ";AccountKey=" + Azurite.KEY
              + ";BlobEndpoint=" + publicHost.url() + "/" + Azurite.ACCOUNT + ";";
      AzureStorageSettings settings =
          AzureStorageSettings.connectionStringOverHttp(container, connectionString)
              .withEndpoint(privateEndpoint.url() + "/" + Azurite.ACCOUNT);
      AzureStorage storage = AzureStorage.create(settings, TestStorages.fastRetries());

      storage.checkAccess();
      Engine engine = DefaultEngine.create(storage.fileIO());
      String path = storage.tableLocation("routed");
      var snapshot = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();
      DeltaTables.append(engine, snapshot, "routed", 1, 7L, 8L);
      assertEquals(List.of(7L, 8L), DeltaTables.readIds(engine, path).stream().sorted().toList());

      assertEquals(
          "abfss://" + container + "@devstoreaccount1.dfs.core.windows.net/lakesink/routed", path);
      assertEquals(List.of(), publicHost.requests(), "the public endpoint must see nothing");
      List<RecordingProxy.Request> routed = privateEndpoint.requests();
      assertTrue(routed.size() > 10, "private endpoint saw " + routed.size() + " requests");
      String expectedHost = privateEndpoint.url().substring("http://".length());
      for (RecordingProxy.Request request : routed) {
        assertEquals(expectedHost, request.host(), request.toString());
        assertTrue(request.path().startsWith("/" + Azurite.ACCOUNT + "/" + container), request.toString());
      }
      assertTrue(storage.describe().contains("via endpoint " + privateEndpoint.url()), storage.describe());
      assertFalse(storage.describe().contains(Azurite.KEY));
    }
  }
}
