package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A kept table taking a changelog's file over on Blob Storage (Azurite): the file is streamed
 * through {@link AzureFileIO} into the table's own directory (ranged reads, staged blocks, never
 * whole in memory) and read back through its deletion vector.
 */
@ExtendWith(AzuriteExtension.class)
class TakeOverOnAzuriteTest {
  private static final Column ID = new Column("id", ColumnType.BIGINT);
  private static final Column NOTE = new Column("note", ColumnType.STRING);

  @Test
  void aFileTakenOverIsACopyReadThroughItsVector(Azurite azurite) {
    AzureStorage storage = TestStorages.onAzurite(azurite, azurite.createContainer());
    var engine = KernelEngine.create(storage);
    DeltaTable source = new DeltaTable(engine, storage.tableLocation("orders_APPEND"));
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 50_000; i++) { // a few MB: more than one block and one ranged read
      rows.add(new Object[] {i, "note " + i + " leave at the door, ring twice; fragile items inside"});
    }
    source.commit(source.prepareAppend(new AppendRequest(List.of(ID, NOTE), List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    TableFile file = source.files().get(0);

    DeltaTable target = new DeltaTable(engine, storage.tableLocation("orders"));
    DeltaTable.PendingWrite out = target.begin(new AppendRequest(List.of(ID, NOTE), List.of(), Map.of(), List.of(), CommitOffsets.NONE,
        Map.of(DeltaTable.ENABLE_DELETION_VECTORS, "true")));
    long[] keep = {1, 7, 49_999};
    var taken = out.takeOver(source, file, keep);
    target.commit(out.prepare(List.of()));

    assertNotEquals(file.path(), taken.path());
    List<Map<String, Object>> read = new ArrayList<>(DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("orders"))));
    read.sort(Comparator.comparing(m -> (Long) m.get("id")));
    assertEquals(List.of(1L, 7L, 49_999L), read.stream().map(m -> m.get("id")).toList());
    assertEquals("note 7 leave at the door, ring twice; fragile items inside", read.get(1).get("note"));
    TableFile copy = target.files().get(0);
    assertEquals(file.size(), copy.size(), "a byte copy");
    assertTrue(copy.hasDeletionVector());
  }
}
