package io.lakesink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delta tables written and read through Kernel on {@link LocalStorage}'s file I/O. */
class LocalStorageDeltaTableTest {
  private static final List<Column> COLUMNS =
      List.of(new Column("id", ColumnType.BIGINT), new Column("region", ColumnType.STRING));

  @TempDir Path tmp;

  @Test
  void writesAndReadsPartitionedTablesAcrossACheckpoint() throws IOException {
    Path dir = tmp.resolve("shared");
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    assertEquals("file:" + dir + "/lakesink/orders", storage.tableLocation("orders"));
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("orders"));

    int commits = 12; // Kernel checkpoints every 10 versions
    for (int c = 0; c < commits; c++) {
      String region = c % 2 == 0 ? "eu-west" : "us";
      List<Object[]> rows = List.of(new Object[] {c * 10L, region}, new Object[] {c * 10L + 1, region});
      AppendRequest request =
          new AppendRequest(COLUMNS, List.of("region"), Map.of("region", region), rows, new io.lakesink.delta.CommitOffsets(Map.of("app", (long) c), Map.of()), Map.of());
      assertEquals(c + 1, table.commit(table.prepareAppend(request))); // version 0 creates the table
    }

    Path tableDir = dir.resolve("lakesink/orders");
    assertTrue(Files.exists(tableDir.resolve("_delta_log/00000000000000000010.checkpoint.parquet")));
    assertTrue(Files.exists(tableDir.resolve("_delta_log/_last_checkpoint")));
    assertEquals(List.of("_delta_log", "region=eu-west", "region=us"), names(tableDir));
    assertEquals(List.of(), tempFiles(dir));

    DeltaTable reread = new DeltaTable(KernelEngine.create(new LocalStorage(dir, "lakesink")), storage.tableLocation("orders"));
    assertEquals(commits, reread.version());
    assertEquals(Map.of("app", (long) commits - 1), reread.transactionVersions(List.of("app")));
    List<Map<String, Object>> rows = new ArrayList<>(DeltaTableReader.readAll(reread));
    rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
    assertEquals(2 * commits, rows.size());
    assertEquals(Map.of("id", 0L, "region", "eu-west"), rows.get(0));
    assertEquals(Map.of("id", 11L, "region", "us"), rows.get(3));
    assertEquals(2 * commits, reread.files().stream().mapToLong(f -> f.rows()).sum());
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static List<Path> tempFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
    }
  }
}
