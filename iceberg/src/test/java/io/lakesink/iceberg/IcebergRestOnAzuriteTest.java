package io.lakesink.iceberg;

import static io.lakesink.iceberg.IcebergMetadataSyncOnAzuriteTest.assertSameRows;
import static io.lakesink.iceberg.IcebergMetadataSyncOnAzuriteTest.change;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.models.BlobItem;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Operation;
import io.lakesink.iceberg.rest.AzuriteServerFileIO;
import io.lakesink.iceberg.rest.IcebergRestCatalog;
import io.lakesink.iceberg.rest.IcebergRestSettings;
import io.lakesink.iceberg.rest.RestCatalogServer;
import io.lakesink.iceberg.rest.StorageDeltaTables;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table on Blob Storage (Azurite) owned by an Iceberg REST catalog: registered, then each sync
 * committed through the catalog, lakesink's client writing manifests and delete files with the
 * Delta table's own storage and credentials, the server its metadata JSON (with a FileIO of its
 * own on the same container, as a real catalog server would have).
 */
@ExtendWith(AzuriteExtension.class)
@Timeout(180)
class IcebergRestOnAzuriteTest {
  static final String ENTRY = "lakesink.items";

  @TempDir Path dir;

  @Test
  void aCatalogOwnedTableOnBlobStorageFollowsItsCommitsThroughTheCatalog(Azurite azurite) throws Exception {
    String container = azurite.createContainer();
    AzureStorage storage = AzureStorage.create(AzureStorageSettings.connectionStringOverHttp(container, azurite.connectionString()));
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    MergeDelivery d = new MergeDelivery(new Subscription("t", "items", DeliveryMode.MERGE, java.util.List.of("id"), SourceFormat.JSON, true),
        table, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
    for (long id = 0; id < 20; id++) {
      d.accept(change(id, Operation.CREATE, id, "a" + id));
    }
    d.flush();

    Map<String, String> serverFiles = Map.of("io-impl", AzuriteServerFileIO.class.getName(),
        AzuriteServerFileIO.CONTAINER, container, AzuriteServerFileIO.CONNECTION_STRING, azurite.connectionString());
    try (RestCatalogServer server = RestCatalogServer.start(dir, true, serverFiles)) {
      server.createNamespace("lakesink");
      IcebergRestSettings settings = IcebergRestSettings.fromConfig("lake", Map.of("uri", server.uri(), "namespace", "lakesink"));
      try (IcebergRestCatalog catalog = new IcebergRestCatalog(settings, StorageDeltaTables.of(storage, location -> DeliveryMode.MERGE), new Configuration(), Duration.ZERO)) {
        catalog.register(shape(table));
        String first = server.metadataLocation(ENTRY);
        assertTrue(first.startsWith(table.location() + "/_lakesink_iceberg/metadata/"), first);

        d.accept(change(20, Operation.UPDATE, 3, "b3"));
        d.accept(change(21, Operation.DELETE, 4, null));
        d.flush();
        table.refresh();
        assertTrue(table.files().stream().anyMatch(TableFile::hasDeletionVector), "the merge wrote a deletion vector");
        catalog.committed(shape(table));

        String second = server.metadataLocation(ENTRY);
        assertNotEquals(first, second, "the catalog points at the new metadata");
        assertTrue(second.startsWith(table.location() + "/_lakesink_iceberg/metadata/"), second);
        Table owned = server.backend().loadTable(TableIdentifier.parse(ENTRY));
        assertEquals(Long.toString(table.version()), owned.properties().get(IcebergMetadataSync.DELTA_VERSION));
        assertSameRows(table, owned, 19);

        Set<String> blobs = azurite.serviceClient().getBlobContainerClient(container).listBlobs().stream()
            .map(BlobItem::getName).collect(Collectors.toSet());
        String prefix = table.location().substring(table.location().indexOf('/', "abfss://".length()) + 1) + "/";
        assertTrue(blobs.contains(prefix + second.substring(table.location().length() + 1)), "the server's metadata: " + blobs);
        for (ManifestFile manifest : owned.currentSnapshot().allManifests(owned.io())) {
          assertTrue(blobs.contains(prefix + manifest.path().substring(table.location().length() + 1)),
              "lakesink's client wrote " + manifest.path() + " into the container: " + blobs);
        }
        assertTrue(blobs.stream().anyMatch(b -> b.startsWith(prefix + "_lakesink_iceberg/deletes/")), blobs.toString());
      }
    }
  }

  private static CatalogTable shape(DeltaTable table) {
    return new CatalogTable("items", table.location(), table.columns().orElseThrow(), table.partitionColumns());
  }

}
