package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A MERGE table with deletion vectors on Blob Storage (Azurite): the vector files go through
 * {@link AzureFileIO} like the data files, Kernel reads them back, and vacuum keeps the ones the
 * live files name.
 */
@ExtendWith(AzuriteExtension.class)
class MergeDeletionVectorsOnAzuriteTest {
  static final List<Column> COLUMNS = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING));

  static ChangeEvent change(long offset, Operation op, long id, String v) {
    return new ChangeEvent(new SourcePosition("t", 0, offset), op, 1000 + offset, new RowSchema(COLUMNS, true),
        new Object[] {id, v}, List.of(), 10);
  }

  @Test
  void mergesDeleteRowsWithVectorsThatReadAndVacuumAsOnLocalDisk(Azurite azurite) {
    AzureStorage storage = TestStorages.onAzurite(azurite, azurite.createContainer());
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    MergeDelivery d = new MergeDelivery(new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true),
        table, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
    Map<Long, Object> expected = new TreeMap<>();
    for (long id = 0; id < 20; id++) {
      d.accept(change(id, Operation.CREATE, id, "a" + id));
      expected.put(id, "a" + id);
    }
    d.flush();
    d.accept(change(20, Operation.UPDATE, 3, "b3"));
    d.accept(change(21, Operation.DELETE, 4, null));
    d.flush();
    d.accept(change(22, Operation.UPDATE, 5, "c5")); // the same file's vector, merged with the first
    d.flush();
    expected.put(3L, "b3");
    expected.remove(4L);
    expected.put(5L, "c5");
    assertTrue(d.state().delivering(), d.state().toString());

    table.refresh();
    assertTrue(table.deletionVectorsEnabled());
    TableFile first = table.files().stream().filter(f -> f.rows() + f.deletedRows() == 20).findFirst().orElseThrow();
    assertEquals(3, first.deletedRows(), first.toString());
    assertEquals(expected, content(table));

    // Past the retention: the first merge's vector file (no longer named) goes, the live one stays.
    Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(8)), ZoneOffset.UTC);
    var vacuumed = new TableMaintenance("items", table, List.of("id"), MaintenanceSettings.DEFAULT, later, line -> {})
        .vacuum(Optional.empty(), false, false);
    assertEquals(1, vacuumed.filesDeleted(), vacuumed.toString());
    assertEquals(expected, content(table));
  }

  static Map<Long, Object> content(DeltaTable t) {
    t.refresh();
    Map<Long, Object> out = new TreeMap<>();
    DeltaTableReader.readAll(t).forEach(r -> out.put((Long) r.get("id"), r.get("v")));
    return out;
  }
}
