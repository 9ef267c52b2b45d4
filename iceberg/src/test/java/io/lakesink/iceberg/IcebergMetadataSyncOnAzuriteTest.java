package io.lakesink.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.models.BlobItem;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sync on Blob Storage (Azurite): metadata, manifests and position deletes are written into
 * the table's container through the Delta table's own storage, and read back from there by
 * Iceberg (the static metadata location, as a catalog would register it).
 */
@ExtendWith(AzuriteExtension.class)
class IcebergMetadataSyncOnAzuriteTest {
  static final List<Column> COLUMNS = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING));

  static ChangeEvent change(long offset, Operation op, long id, String v) {
    return new ChangeEvent(new SourcePosition("t", 0, offset), op, 1000 + offset, new RowSchema(COLUMNS, true),
        new Object[] {id, v}, List.of(), 10);
  }

  @Test
  void aMergeTableWithDeletionVectorsOnBlobStorageReadsTheSameThroughIceberg(Azurite azurite) {
    String container = azurite.createContainer();
    AzureStorage storage = AzureStorage.create(AzureStorageSettings.connectionStringOverHttp(container, azurite.connectionString()));
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    MergeDelivery d = new MergeDelivery(new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true),
        table, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
    for (long id = 0; id < 20; id++) {
      d.accept(change(id, Operation.CREATE, id, "a" + id));
    }
    d.flush();
    IcebergMetadataSync sync = new IcebergMetadataSync();
    SyncResult first = sync.sync(table, DeliveryMode.MERGE);
    assertTrue(first.metadataLocation().startsWith(table.location() + "/_lakesink_iceberg/metadata/v"), first.metadataLocation());
    assertSameRows(table, sync.load(table).orElseThrow(), 20);

    d.accept(change(20, Operation.UPDATE, 3, "b3"));
    d.accept(change(21, Operation.DELETE, 4, null));
    d.flush();
    table.refresh();
    assertTrue(table.files().stream().anyMatch(TableFile::hasDeletionVector));
    SyncResult second = sync.sync(table, DeliveryMode.MERGE);
    assertTrue(second.changed());

    // Read back from the container alone, as an engine given the metadata location would.
    Table iceberg = new BaseTable(new StaticTableOperations(second.metadataLocation(), new StorageFileIO(storage.fileIO())), "items");
    assertSameRows(table, iceberg, 19);

    Set<String> blobs = azurite.serviceClient().getBlobContainerClient(container).listBlobs().stream()
        .map(BlobItem::getName).collect(Collectors.toSet());
    String prefix = table.location().substring(table.location().indexOf('/', "abfss://".length()) + 1) + "/";
    assertTrue(blobs.contains(prefix + "_lakesink_iceberg/metadata/version-hint.text"), blobs.toString());
    assertTrue(blobs.contains(prefix + second.metadataLocation().substring(table.location().length() + 1)), blobs.toString());
    for (ManifestFile manifest : iceberg.currentSnapshot().allManifests(iceberg.io())) {
      assertTrue(blobs.contains(prefix + manifest.path().substring(table.location().length() + 1)), manifest.path());
    }
    Set<String> deletes = blobs.stream().filter(b -> b.startsWith(prefix + "_lakesink_iceberg/deletes/")).collect(Collectors.toSet());
    assertEquals(1, deletes.size(), blobs.toString());
  }

  static void assertSameRows(DeltaTable delta, Table iceberg, int expected) {
    delta.refresh();
    Map<Long, Object> fromDelta = new TreeMap<>();
    DeltaTableReader.readAll(delta).forEach(r -> fromDelta.put((Long) r.get("id"), r.get("v")));
    Map<Long, Object> fromIceberg = new TreeMap<>();
    List<Record> records = NameMappedRecords.read(iceberg);
    records.forEach(r -> fromIceberg.put((Long) r.getField("id"), r.getField("v")));
    assertEquals(expected, fromDelta.size());
    assertEquals(expected, records.size(), "no row twice");
    assertEquals(fromDelta, fromIceberg);
  }
}
