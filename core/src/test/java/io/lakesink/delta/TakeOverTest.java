package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.LocalStorage;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table taking over another table's data file ({@link DeltaTable.PendingWrite#takeOver}): a
 * copy of its own, with a deletion vector keeping exactly the rows asked for, the source's
 * statistics for its own columns, and null in the column the file lacks.
 */
class TakeOverTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Column ID = new Column("id", ColumnType.BIGINT);
  private static final Column NAME = new Column("name", ColumnType.STRING);
  private static final Column EXTRA = new Column("extra", ColumnType.BOOLEAN);
  private static final Column RANK = new Column("rank", ColumnType.BIGINT);

  @TempDir Path dir;

  @Test
  void keepsTheRowsAtThePositionsInACopyOfItsOwn() throws Exception {
    LocalStorage storage = new LocalStorage(dir, "");
    var engine = KernelEngine.create(storage);
    DeltaTable source = new DeltaTable(engine, storage.tableLocation("source"));
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 1000; i++) {
      rows.add(new Object[] {i, "name-" + i, i % 2 == 0});
    }
    source.commit(source.prepareAppend(new AppendRequest(List.of(ID, NAME, EXTRA), List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    TableFile file = source.files().get(0);

    DeltaTable target = new DeltaTable(engine, storage.tableLocation("target"));
    List<Column> columns = List.of(ID, NAME, RANK);
    DeltaTable.PendingWrite out = target.begin(new AppendRequest(columns, List.of(), Map.of(), List.of(), CommitOffsets.NONE,
        Map.of(DeltaTable.ENABLE_DELETION_VECTORS, "true")));
    out.write(List.<Object[]>of(new Object[] {5000L, "written", 7L}));
    long[] keep = {0, 3, 500, 999};
    WrittenFile taken = out.takeOver(source, file, keep);
    target.commit(out.prepare(List.of()));

    assertEquals(4, taken.rows());
    assertEquals(500, taken.position(2));
    List<Map<String, Object>> read = new ArrayList<>(DeltaTableReader.readAll(target));
    read.sort(Comparator.comparing(m -> (Long) m.get("id")));
    assertEquals(List.of(0L, 3L, 500L, 999L, 5000L), read.stream().map(m -> m.get("id")).toList());
    assertEquals("name-500", read.get(2).get("name"));
    assertEquals(null, read.get(2).get("rank"), "a column the file lacks reads null");
    assertFalse(read.get(0).containsKey("extra"), "the file's other columns are not the table's");

    TableFile copy = target.files().stream().filter(f -> f.path().equals(taken.path())).findFirst().orElseThrow();
    assertTrue(copy.hasDeletionVector());
    assertEquals(4, copy.rows());
    assertEquals(1000, copy.physicalRows());
    assertNotEquals(file.path(), copy.path());
    JsonNode stats = JSON.readTree(new AddFile(copy.scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)).getStatsJson().orElseThrow());
    assertEquals(false, stats.get("tightBounds").asBoolean());
    assertTrue(stats.get("minValues").has("id") && !stats.get("minValues").has("extra"), stats.toString());

    // Its own copy: the source's file going (a vacuum of the source) leaves the table whole.
    Files.delete(Path.of(URI.create(source.location() + "/" + file.path())));
    assertEquals(5, DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("target"))).size());
  }

  @Test
  void keepingEveryRowNeedsNoVectorAndKeepsTheBoundsTight() throws Exception {
    LocalStorage storage = new LocalStorage(dir, "");
    var engine = KernelEngine.create(storage);
    DeltaTable source = new DeltaTable(engine, storage.tableLocation("source"));
    List<Object[]> rows = List.of(new Object[] {1L, "a", true}, new Object[] {2L, "b", false});
    source.commit(source.prepareAppend(new AppendRequest(List.of(ID, NAME, EXTRA), List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    DeltaTable target = new DeltaTable(engine, storage.tableLocation("target"));
    DeltaTable.PendingWrite out = target.begin(new AppendRequest(List.of(ID, NAME), List.of(), Map.of(), List.of(), CommitOffsets.NONE,
        Map.of(DeltaTable.ENABLE_DELETION_VECTORS, "true")));
    out.takeOver(source, source.files().get(0), new long[] {0, 1});
    target.commit(out.prepare(List.of()));
    TableFile copy = target.files().get(0);
    assertFalse(copy.hasDeletionVector());
    JsonNode stats = JSON.readTree(copy.stats);
    assertFalse(stats.has("tightBounds"), stats.toString());
    assertEquals(2, DeltaTableReader.readAll(target).size());
  }
}
