package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The page reader of a merge's key and ordering columns against Kernel's reader and against the values written. */
class PageColumnsTest {
  @TempDir Path dir;

  private static final Column ID = new Column("id", ColumnType.BIGINT);
  private static final Column P = new Column("p", ColumnType.INT);
  private static final Column TS = new Column("ts", ColumnType.BIGINT);

  /**
   * Two files of a table with deletion vectors (a second vector on top of a first), nulls in the
   * key and in the other columns, and a column the first file lacks (added later): every live
   * row, its values and its position as Kernel's reader gives them, for all rows and for a few.
   */
  @Test
  void readsWhatKernelReadsWithDeletionVectorsNullsAndAColumnAFileLacks() {
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t"));
    Map<String, String> vectors = Map.of(DeltaTable.ENABLE_DELETION_VECTORS, "true");
    List<Object[]> first = new ArrayList<>();
    for (long i = 0; i < 3000; i++) {
      first.add(new Object[] {i % 7 == 3 ? null : i, i % 11 == 0 ? null : (int) (i % 5)});
    }
    table.commit(table.prepareAppend(new AppendRequest(List.of(ID, P), List.of(), Map.of(), first, CommitOffsets.NONE, vectors)));
    List<Object[]> second = new ArrayList<>();
    for (long i = 0; i < 500; i++) {
      second.add(new Object[] {10_000 + i, -(int) i, i % 3 == 0 ? null : i * 1000});
    }
    List<Column> all = List.of(ID, P, TS);
    table.commit(table.prepareAppend(new AppendRequest(all, List.of(), Map.of(), second, CommitOffsets.NONE, vectors)));
    deleteRows(table, all, Map.of(0, new long[] {0, 5, 6, 2999}, 1, new long[] {3}));
    deleteRows(table, all, Map.of(0, new long[] {10, 11, 1500}));

    List<TableFile> files = table.files();
    assertEquals(2, files.size());
    PositionedRowReader reader = table.positionedReader(all, List.of("id", "p", "ts"));
    for (TableFile file : files) {
      List<String> kernel = new ArrayList<>();
      reader.forEach(file, (row, position) -> kernel.add(position + "=" + Arrays.asList(row)));
      List<String> read = new ArrayList<>();
      reader.forEachLongKey(file, "id", (k, isNull) -> true, (row, position) -> read.add(position + "=" + Arrays.asList(row)));
      assertEquals(kernel, read, file.toString());
      assertEquals(file.rows(), read.size());

      // Only some rows: the even keys and the null ones.
      List<String> kernelSome = new ArrayList<>();
      reader.forEach(file, List.of("id"), probe -> probe[0] == null || (Long) probe[0] % 2 == 0,
          (row, position) -> kernelSome.add(position + "=" + Arrays.asList(row)));
      List<String> some = new ArrayList<>();
      reader.forEachLongKey(file, "id", (k, isNull) -> isNull || k % 2 == 0, (row, position) -> some.add(position + "=" + Arrays.asList(row)));
      assertEquals(kernelSome, some);
      assertTrue(some.size() < read.size() && !some.isEmpty());
    }
    assertEquals(4, reader.filesReadByPages(), "every file read by pages, not by Kernel");
    TableFile older = files.stream().filter(f -> f.deletedRows() == 7).findFirst().orElseThrow();
    List<Long> positions = new ArrayList<>();
    reader.forEachLongKey(older, "id", (k, isNull) -> true, (row, position) -> {
      positions.add(position);
      assertNull(row[2], "the first file has no ts column");
    });
    for (long deleted : new long[] {0, 5, 6, 10, 11, 1500, 2999}) {
      assertFalse(positions.contains(deleted), "deleted row " + deleted);
    }
    assertEquals(2993, positions.size());
  }

  /**
   * A table keyed on a string, with deletion vectors, null keys, multi-byte keys and a string
   * column besides: the rows a string-key scan reads (tested by their UTF-8 bytes) are Kernel's
   * rows with those keys, with the key the test returned, for all keys and for some.
   */
  @Test
  void readsStringKeysAsKernelDoes() {
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("s"));
    Column name = new Column("name", ColumnType.STRING);
    Column note = new Column("note", ColumnType.STRING);
    Column flag = new Column("flag", ColumnType.BOOLEAN);
    List<Column> all = List.of(name, P, note, flag);
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      String key = i % 9 == 4 ? null : i % 5 == 0 ? "clé-" + i + "-日本" : "k" + i;
      rows.add(new Object[] {key, i % 11 == 0 ? null : i, i % 3 == 0 ? null : "n".repeat(i % 40), i % 13 == 0 ? null : i % 4 == 1});
    }
    Map<String, String> vectors = Map.of(DeltaTable.ENABLE_DELETION_VECTORS, "true");
    table.commit(table.prepareAppend(new AppendRequest(all, List.of(), Map.of(), rows, CommitOffsets.NONE, vectors)));
    deleteRows(table, all, Map.of(0, new long[] {1, 2, 500, 2999}));
    TableFile file = table.files().get(0);
    PositionedRowReader reader = table.positionedReader(all, List.of("name", "p", "note", "flag"));
    for (int modulo : new int[] {1, 4}) {
      List<String> kernel = new ArrayList<>();
      reader.forEach(file, (row, position) -> {
        if (row[0] != null && ((String) row[0]).hashCode() % modulo == 0) {
          kernel.add(position + "=" + Arrays.asList(row));
        }
      });
      List<String> read = new ArrayList<>();
      List<Integer> nullKeys = new ArrayList<>();
      reader.forEachStringKey(file, "name", (utf8, offset, length, isNull) -> {
        if (isNull) {
          nullKeys.add(1);
          return null;
        }
        String key = new String(utf8, offset, length, java.nio.charset.StandardCharsets.UTF_8);
        return key.hashCode() % modulo == 0 ? key : null;
      }, (row, position) -> read.add(position + "=" + Arrays.asList(row)));
      assertEquals(kernel, read);
      assertEquals(333, nullKeys.size(), "every live row's key tested, the null ones too");
      assertTrue(read.size() > 100 && read.stream().anyMatch(r -> r.contains("日本")));
    }
    // Rows whose boolean column is true (a changelog's deletes), the flag tested by pages.
    List<String> kernelFlagged = new ArrayList<>();
    reader.forEach(file, (row, position) -> {
      if (Boolean.TRUE.equals(row[3])) {
        kernelFlagged.add(position + "=" + Arrays.asList(row));
      }
    });
    List<String> flagged = new ArrayList<>();
    reader.forEachFlagged(file, "flag", (row, position) -> flagged.add(position + "=" + Arrays.asList(row)));
    assertEquals(kernelFlagged, flagged);
    assertTrue(flagged.size() > 500 && flagged.size() < 1000, flagged.size() + " rows flagged");
    assertEquals(3, reader.filesReadByPages(), "read by pages, not by Kernel");
  }

  /**
   * A table with column mapping (another engine may turn it on): its files may name the columns
   * by physical names, which the page reader does not resolve; Kernel reads such a table.
   */
  @Test
  void aTableWithColumnMappingIsReadByKernel() {
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("mapped"));
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 100; i++) {
      rows.add(new Object[] {i, (int) i});
    }
    table.commit(table.prepareAppend(new AppendRequest(List.of(ID, P), List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    // Turned on afterwards, as Delta allows: the existing columns keep their names as physical names.
    table.commitProperties(current -> Map.of("delta.columnMapping.mode", "name"));
    assertEquals("name", table.properties().get("delta.columnMapping.mode"));
    PositionedRowReader reader = table.positionedReader(List.of(ID, P), List.of("id", "p"));
    List<Long> keys = new ArrayList<>();
    reader.forEachLongKey(table.files().get(0), "id", (k, isNull) -> !isNull && k % 10 == 0, (row, position) -> keys.add((Long) row[0]));
    assertEquals(List.of(0L, 10L, 20L, 30L, 40L, 50L, 60L, 70L, 80L, 90L), keys);
    assertEquals(0, reader.filesReadByPages(), "read by Kernel, which maps the physical names");

    // A string key is tested by its bytes there too, and the row holds the key the test returns.
    DeltaTable named = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("mapped_names"));
    Column name = new Column("name", ColumnType.STRING);
    Column flag = new Column("flag", ColumnType.BOOLEAN);
    List<Object[]> named100 = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      named100.add(new Object[] {"n" + i, i, i % 30 == 0});
    }
    named.commit(named.prepareAppend(new AppendRequest(List.of(name, P, flag), List.of(), Map.of(), named100, CommitOffsets.NONE, Map.of())));
    named.commitProperties(current -> Map.of("delta.columnMapping.mode", "name"));
    PositionedRowReader byKernel = named.positionedReader(List.of(name, P, flag), List.of("name", "p", "flag"));
    List<Object> flagged = new ArrayList<>();
    byKernel.forEachFlagged(named.files().get(0), "flag", (row, position) -> flagged.add(row[0]));
    assertEquals(List.of("n0", "n30", "n60", "n90"), flagged);
    String wanted = "n42";
    List<Object[]> found = new ArrayList<>();
    byKernel.forEachStringKey(named.files().get(0), "name",
        (utf8, offset, length, isNull) -> !isNull && new String(utf8, offset, length, java.nio.charset.StandardCharsets.UTF_8).equals(wanted) ? wanted : null,
        (row, position) -> found.add(row));
    assertEquals(1, found.size());
    org.junit.jupiter.api.Assertions.assertSame(wanted, found.get(0)[0]);
    assertEquals(42, found.get(0)[1]);
    assertEquals(0, byKernel.filesReadByPages());
  }

  /**
   * A table created with column mapping gets physical column names of its own (col-<uuid>, as
   * delta-spark creates them): lakesink cannot write it, and says so, naming the setting and the
   * way out, as a failure of that table (it is quarantined, nothing is written).
   */
  @Test
  void aTableWhosePhysicalColumnNamesDifferIsRefusedWithAClearMessage() {
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("spark_made"));
    List<Object[]> rows = List.<Object[]>of(new Object[] {1L, 1});
    io.lakesink.error.TableFailureException e = org.junit.jupiter.api.Assertions.assertThrows(
        io.lakesink.error.TableFailureException.class, () -> table.prepareAppend(new AppendRequest(List.of(ID, P), List.of(),
            Map.of(), rows, CommitOffsets.NONE, Map.of("delta.columnMapping.mode", "name"))));
    assertTrue(e.getMessage().contains("delta.columnMapping.mode = name") && e.getMessage().contains("table of its own"),
        e.getMessage());
    assertEquals(io.lakesink.error.ErrorKind.TABLE_FAILURE, CommitErrors.classify(e));
  }

  private static void deleteRows(DeltaTable table, List<Column> columns, Map<Integer, long[]> byFile) {
    List<TableFile> files = table.files().stream().sorted((a, b) -> Long.compare(b.rows() + b.deletedRows(), a.rows() + a.deletedRows())).toList();
    DeltaTable.PendingWrite out = table.begin(new AppendRequest(columns, List.of(), Map.of(), List.of(), CommitOffsets.NONE, Map.of()));
    byFile.forEach((i, positions) -> out.deleteRows(files.get(i), positions));
    table.commit(out.prepare(List.of()));
  }

  /**
   * Files another writer could have written: dictionary pages (and their fallback to plain),
   * data pages v1 and v2, several pages and row groups, optional and required columns, int and
   * bigint. Read whole, then only every 97th row (pages in between skipped undecoded).
   */
  @ParameterizedTest
  @CsvSource({"PARQUET_1_0, true", "PARQUET_1_0, false", "PARQUET_2_0, true", "PARQUET_2_0, false"})
  void decodesEveryEncodingAParquetWriterUses(WriterVersion version, boolean dictionary) throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType(
        "message m { required int64 id; optional int32 small; optional int64 big; optional int32 narrow_big;"
            + " optional binary few (STRING); optional binary many (STRING); optional boolean flag; }");
    Path file = dir.resolve(version + "-" + dictionary + ".parquet");
    int rows = 20_000;
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(schema).withWriterVersion(version).withDictionaryEncoding(dictionary).withDictionaryPageSize(2048)
        .withPageSize(1024).withPageRowCountLimit(700).withRowGroupSize(64 * 1024L).withConf(new Configuration()).build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      for (int i = 0; i < rows; i++) {
        Group g = groups.newGroup().append("id", id(i));
        if (i % 13 != 0) {
          g.append("small", i % 10); // few values: a dictionary holds them
        }
        if (i % 4 != 1) {
          g.append("big", big(i)); // unique: a dictionary falls back to plain
        }
        g.append("narrow_big", -i);
        if (i % 6 != 2) {
          g.append("few", few(i)); // a dictionary holds them
        }
        if (i % 5 != 3) {
          g.append("many", many(i)); // unique: a dictionary falls back to plain (v1) or delta byte arrays (v2)
        }
        if (i % 7 != 6) {
          g.append("flag", flag(i));
        }
        writer.write(g);
      }
    }
    List<Column> columns = List.of(ID, new Column("small", ColumnType.INT), new Column("big", ColumnType.BIGINT),
        new Column("narrow_big", ColumnType.BIGINT), new Column("absent", ColumnType.BIGINT),
        new Column("few", ColumnType.STRING), new Column("many", ColumnType.STRING), new Column("flag", ColumnType.BOOLEAN));
    for (int step : new int[] {1, 97}) {
      int row = 0;
      int groups = 0;
      try (PageColumns read = PageColumns.open(new LocalInputFile(file), options(), columns, null, null)) {
        assertNotNull(read);
        while (read.nextRowGroup()) {
          groups++;
          for (long r = 0; r < read.rows(); r++, row++) {
            if (row % step != 0) {
              continue;
            }
            assertEquals(id(row), read.value(0, r));
            assertEquals(row % 13 == 0, read.isNull(1, r));
            if (row % 13 != 0) {
              assertEquals(row % 10, read.value(1, r));
            }
            assertEquals(row % 4 == 1, read.isNull(2, r));
            if (row % 4 != 1) {
              assertEquals(big(row), read.value(2, r), "row " + row);
            }
            assertEquals(-row, read.value(3, r), "an int32 column read for a bigint");
            assertTrue(read.isNull(4, r), "a column the file lacks reads null");
            assertEquals(row % 6 == 2, read.isNull(5, r));
            if (row % 6 != 2) {
              assertEquals(few(row), read.string(5, r));
            }
            assertEquals(row % 5 == 3, read.isNull(6, r));
            if (row % 5 != 3) {
              assertEquals(many(row), read.string(6, r), "row " + row);
            }
            assertEquals(row % 7 == 6, read.isNull(7, r));
            if (row % 7 != 6) {
              assertEquals(flag(row) ? 1 : 0, read.value(7, r), "row " + row);
            }
          }
        }
      }
      assertEquals(rows, row);
      assertTrue(groups > 1, "several row groups: " + groups);
    }
  }

  private static long id(long i) {
    return i * 3 - 7;
  }

  private static boolean flag(int i) {
    return i % 3 == 0 || i % 10 == 7;
  }

  private static String few(int i) {
    return "état-" + (i % 7);
  }

  private static String many(int i) {
    return "v" + i + "-" + "x".repeat(i % 17) + (i % 3 == 0 ? "日本" : "");
  }

  private static long big(long i) {
    return i * 0x1_0000_0001L ^ (i << 40);
  }

  @Test
  void refusesAColumnItCannotDecode() throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required binary id (STRING); }");
    Path file = dir.resolve("s.parquet");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).withConf(new Configuration()).build()) {
      writer.write(new SimpleGroupFactory(schema).newGroup().append("id", "a"));
    }
    assertNull(PageColumns.open(new LocalInputFile(file), options(), List.of(ID), null, null), "a string where a bigint is read: Kernel reads it");
    assertNull(PageColumns.open(new LocalInputFile(file), options(), List.of(new Column("id", ColumnType.DOUBLE)), null, null),
        "a type it does not decode");
    MessageType numbers = MessageTypeParser.parseMessageType("message m { required int64 id; }");
    Path other = dir.resolve("n.parquet");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(other)).withType(numbers).withConf(new Configuration()).build()) {
      writer.write(new SimpleGroupFactory(numbers).newGroup().append("id", 1L));
    }
    assertNull(PageColumns.open(new LocalInputFile(other), options(), List.of(new Column("id", ColumnType.STRING)), null, null),
        "a bigint where a string is read");
  }

  /**
   * A footer kept from an earlier read serves the next read of the same file (same path, size and
   * time) with the same values; a file written again under the same name, another size, is read
   * afresh; a full cache stays at its capacity.
   */
  @Test
  void footersKeptBetweenReadsGiveTheSameRows() throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; }");
    Path file = dir.resolve("f.parquet");
    ParquetFooters footers = new ParquetFooters(1 << 20);
    org.apache.parquet.ParquetReadOptions options = options();
    for (int version = 1; version <= 2; version++) {
      java.nio.file.Files.deleteIfExists(file);
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).withConf(new Configuration()).build()) {
        for (int i = 0; i < 100 * version; i++) {
          writer.write(new SimpleGroupFactory(schema).newGroup().append("id", (long) i * version));
        }
      }
      String key = ParquetFooters.key(file.toString(), java.nio.file.Files.size(file), 0);
      for (int read = 0; read < 2; read++) {
        try (PageColumns columns = PageColumns.open(new LocalInputFile(file), options, List.of(ID), footers, key)) {
          assertNotNull(columns);
          long r = 0;
          while (columns.nextRowGroup()) {
            for (long i = 0; i < columns.rows(); i++, r++) {
              assertEquals(r * version, columns.value(0, i));
            }
          }
          assertEquals(100L * version, r);
        }
        assertEquals(version, footers.size(), "one footer per version of the file, kept after its first read");
      }
    }
    // Bounded by their weight: a cache for two footers of this file keeps two, whatever is put.
    org.apache.parquet.hadoop.metadata.ParquetMetadata footer = footers.get(ParquetFooters.key(file.toString(), java.nio.file.Files.size(file), 0));
    long weight = ParquetFooters.weight(footer);
    assertTrue(weight > 0);
    ParquetFooters small = new ParquetFooters(Math.max(2 * weight, 16 * weight));
    for (int i = 0; i < 100; i++) {
      small.put("f" + i, footer);
      assertTrue(small.bytes() <= Math.max(2 * weight, 16 * weight));
    }
    assertEquals(16, small.size(), "full: one evicted for each one put");
    ParquetFooters tiny = new ParquetFooters(weight);
    tiny.put("big", footer);
    assertEquals(0, tiny.size(), "a footer above a sixteenth of the cache is not kept");
  }

  private static org.apache.parquet.ParquetReadOptions options() {
    return org.apache.parquet.HadoopReadOptions.builder(new Configuration()).build();
  }
}
