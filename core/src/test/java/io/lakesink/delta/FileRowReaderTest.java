package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.LocalStorage;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRowReaderTest {
  @TempDir Path dir;

  static final Column ID = new Column("id", ColumnType.BIGINT);
  static final Column STATUS = new Column("status", ColumnType.STRING);
  static final Column AMOUNT = new Column("amount", ColumnType.decimal(12, 2));
  static final Column DAY = new Column("day", ColumnType.DATE);
  static final Column AT = new Column("at", ColumnType.TIMESTAMP);

  DeltaTable table() {
    LocalStorage storage = new LocalStorage(dir, "");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t"));
  }

  @Test
  void rowsComeInTheCallersColumnOrderWithColumnsAFilePredatesAsNullAndRepeatedStringsHeldOnce() {
    DeltaTable t = table();
    List<Object[]> rows = new ArrayList<>();
    for (long id = 0; id < 1000; id++) {
      // new String: equal values that are distinct objects, as Parquet's reader makes them
      rows.add(new Object[] {id, new String(id % 2 == 0 ? "paid" : "shipped"), BigDecimal.valueOf(id, 2)});
    }
    t.commit(t.prepareAppend(new AppendRequest(List.of(ID, STATUS, AMOUNT), List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    // A later commit widens the table: the first file predates "day" and "at".
    Instant at = Instant.parse("2026-11-29T10:00:00.123456Z");
    t.commit(t.prepareAppend(new AppendRequest(List.of(ID, STATUS, AMOUNT, DAY, AT), List.of(), Map.of(),
        List.<Object[]>of(new Object[] {5000L, "paid", BigDecimal.valueOf(1, 2), LocalDate.of(2026, 11, 29), at}),
        CommitOffsets.NONE, Map.of())));

    Column extra = new Column("not_in_table", ColumnType.STRING);
    FileRowReader reader = table().rowReader(List.of(AT, STATUS, extra, ID, DAY, AMOUNT));
    List<TableFile> files = table().files();
    TableFile first = files.stream().filter(f -> f.rows() == 1000).findFirst().orElseThrow();
    TableFile second = files.stream().filter(f -> f.rows() == 1).findFirst().orElseThrow();

    List<Object[]> read = reader.read(first);
    assertEquals(1000, read.size());
    assertArrayEquals(new Object[] {null, "shipped", null, 7L, null, new BigDecimal("0.07")}, read.get(7));
    assertSame(read.get(0)[1], read.get(2)[1], "one copy of a repeated string per file");
    assertSame(read.get(1)[1], read.get(999)[1]);
    assertArrayEquals(new Object[] {at, "paid", null, 5000L, LocalDate.of(2026, 11, 29), new BigDecimal("0.01")},
        reader.read(second).get(0));
    assertNotSame(read.get(0)[1], reader.read(first).get(0)[1], "shared within a file, not across reads");
  }
}
