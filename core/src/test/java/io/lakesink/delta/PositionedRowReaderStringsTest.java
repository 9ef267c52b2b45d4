package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merge reads string columns as their bytes and makes the strings itself
 * ({@link DeltaTypes#toReadStruct}): the values are those Kernel's string reader gives, multi-byte
 * characters, empty strings and nulls included.
 */
class PositionedRowReaderStringsTest {
  @TempDir Path dir;

  private static final Column KEY = new Column("key", ColumnType.STRING);
  private static final Column N = new Column("n", ColumnType.BIGINT);
  private static final Column NOTE = new Column("note", ColumnType.STRING);

  @Test
  void readsTheStringsKernelReads() {
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t"));
    String[] notes = {"plain", "", "café crème", "東京都", "emoji \uD83D\uDE00 and \u00A0nbsp", null};
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 600; i++) {
      rows.add(new Object[] {i % 97 == 5 ? null : "k-" + i + (i % 3 == 0 ? "-ä" : ""), i, notes[(int) (i % notes.length)]});
    }
    List<Column> columns = List.of(KEY, N, NOTE);
    table.commit(table.prepareAppend(new AppendRequest(columns, List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));

    List<String> expected = new ArrayList<>();
    DeltaTableReader.readAll(table).forEach(r -> expected.add(Arrays.asList(r.get("key"), r.get("n"), r.get("note")).toString()));
    PositionedRowReader reader = table.positionedReader(columns, List.of("key", "n", "note"));
    List<String> read = new ArrayList<>();
    reader.forEach(table.files().get(0), (row, position) -> read.add(Arrays.asList(row).toString()));
    assertEquals(expected, read);
    assertEquals(600, read.size());

    // Probed on the key first, the rest read for the rows wanted: the same values.
    List<String> some = new ArrayList<>();
    reader.forEach(table.files().get(0), List.of("key"), probe -> probe[0] == null || ((String) probe[0]).endsWith("ä"),
        (row, position) -> some.add(Arrays.asList(row).toString()));
    List<String> expectedSome = expected.stream().filter(s -> s.startsWith("[null") || s.contains("-ä,")).toList();
    assertEquals(expectedSome, some);
    assertEquals(205, some.size()); // 200 keys ending in ä, 7 null keys, 2 of those both
  }
}
