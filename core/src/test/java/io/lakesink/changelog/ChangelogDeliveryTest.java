package io.lakesink.changelog;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.TableFailureException;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.view.CurrentState;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangelogDeliveryTest {
  @TempDir Path dir;
  final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);
  final Subscription sub = new Subscription("db.orders", "orders", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);

  ChangelogDelivery delivery(DeltaTable table) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new ChangelogDelivery(sub, table,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock).withBackoff(millis -> {}));
  }

  DeltaTable table() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation("orders_APPEND"));
  }

  @Test
  void writesRowsWithMetadataAndStoresOffsets() throws Exception {
    ChangelogDelivery d = delivery(table());
    d.accept(event("db.orders", 0, 5, Operation.CREATE, 1000L, row("id", 1L, "status", "new")));
    d.accept(event("db.orders", 1, 7, Operation.DELETE, 2000L, row("id", 2L, "status", "old")));
    Map<SourcePartition, Long> committed = d.flush();
    assertEquals(Map.of(new SourcePartition("db.orders", 0), 6L, new SourcePartition("db.orders", 1), 8L), committed);

    DeltaTable reread = table();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(reread);
    rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
    assertEquals(2, rows.size());
    assertEquals(
        row("id", 1L, "status", "new", "__op", "c", "__deleted", false, "__ts_ms", 1000L,
            "__partition", 0, "__offset", 5L, "__ingest_date", LocalDate.of(2026, 11, 29)),
        rows.get(0));
    assertEquals(true, rows.get(1).get("__deleted"));
    assertEquals(
        Map.of(new SourcePartition("db.orders", 0), 6L, new SourcePartition("db.orders", 1), 8L),
        delivery(reread).storedOffsets(List.of(new SourcePartition("db.orders", 0), new SourcePartition("db.orders", 1))));

    Path dataDir = dir.resolve("lakesink/orders_APPEND/__ingest_date=2026-11-29");
    try (Stream<Path> files = Files.list(dataDir)) {
      Path parquet = files.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
      try (ParquetFileReader reader =
          ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(parquet.toUri()), new Configuration()))) {
        assertEquals(CompressionCodecName.ZSTD, reader.getFooter().getBlocks().get(0).getColumns().get(0).getCodec());
      }
    }
  }

  /**
   * A tombstone read after its delete's batch was taken: its position alone is committed at the
   * next flush (here a stop's), adding no row, so the stored offset reaches the partition's end.
   */
  @Test
  void aTombstoneReadAfterItsDeleteWasCommittedIsCommittedWithoutARow() {
    ChangelogDelivery d = delivery(table());
    SourcePartition p1 = new SourcePartition("db.orders", 1);
    d.accept(event("db.orders", 1, 7, Operation.DELETE, 2000L, row("id", 2L, "status", "old")));
    assertEquals(Map.of(p1, 8L), d.flush());
    d.skip(new SourcePosition("db.orders", 1, 8));
    assertEquals(Map.of(p1, 9L), d.flush());
    assertEquals(2, table().version(), "one commit for the position");
    assertEquals(1, DeltaTableReader.readAll(table()).size(), "no row for the tombstone");
    assertEquals(Map.of(p1, 9L), delivery(table()).storedOffsets(List.of(p1)));
  }

  /**
   * The case in changelog mode: inserts, a truncate, then inserts. The truncate is a row
   * of its own (__op 't', deleted, no source values) and the view's rules over the changelog give
   * what the source holds: [3, 101, 102].
   */
  @Test
  void aTruncateIsRecordedAndTheCurrentStateHoldsOnlyWhatCameAfter() {
    ChangelogDelivery d = delivery(table());
    for (long id = 1; id <= 8; id++) {
      d.accept(event("db.orders", 0, id - 1, Operation.CREATE, 1000L + id, row("id", id, "status", "new")));
    }
    d.flush();
    d.accept(ChangeEvent.truncate(new SourcePosition("db.orders", 0, 8), 2000L, 40));
    assertEquals(Map.of(new SourcePartition("db.orders", 0), 9L), d.flush(), "the truncate's position is committed");
    d.accept(event("db.orders", 0, 9, Operation.CREATE, 2001L, row("id", 3L, "status", "again")));
    d.accept(event("db.orders", 0, 10, Operation.CREATE, 2002L, row("id", 101L, "status", "new")));
    d.accept(event("db.orders", 0, 11, Operation.CREATE, 2003L, row("id", 102L, "status", "new")));
    d.flush();

    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(12, rows.size(), "nothing is skipped: every change and the truncate are rows");
    Map<String, Object> truncate = rows.stream().filter(r -> "t".equals(r.get("__op"))).findFirst().orElseThrow();
    assertEquals(row("id", null, "status", null, "__op", "t", "__deleted", true, "__ts_ms", 2000L,
        "__partition", 0, "__offset", 8L, "__ingest_date", LocalDate.of(2026, 11, 29)), truncate);
    List<Map<String, Object>> state = CurrentState.collapse(rows, List.of("id"), false);
    state.sort(Comparator.comparing(r -> (Long) r.get("id")));
    assertEquals(List.of(row("id", 3L, "status", "again"), row("id", 101L, "status", "new"), row("id", 102L, "status", "new")),
        state);
  }

  @Test
  void aCheckpointIsWrittenEveryTenCommits() {
    ChangelogDelivery d = delivery(table());
    for (int i = 0; i < 11; i++) {
      d.accept(event("t", 0, i, Operation.CREATE, 1L, row("id", (long) i)));
      d.flush();
    }
    // Version 0 creates the table, versions 1..11 hold the rows: version 10 is checkpointed.
    assertTrue(Files.exists(dir.resolve("lakesink/orders_APPEND/_delta_log/00000000000000000010.checkpoint.parquet")));
    assertEquals(11, DeltaTableReader.readAll(table()).size());
  }

  @Test
  void newSourceColumnIsAddedAtTheEndAndOlderRowsReadNull() {
    ChangelogDelivery d = delivery(table());
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 1L)));
    d.flush();
    d.accept(event("t", 0, 1, Operation.UPDATE, 2L, row("id", 1L, "note", "hello")));
    d.flush();
    DeltaTable t = table();
    List<String> names = t.columns().orElseThrow().stream().map(c -> c.name()).toList();
    assertEquals("note", names.get(names.size() - 1));
    List<Map<String, Object>> rows = DeltaTableReader.readAll(t);
    rows.sort(Comparator.comparing(r -> (Long) r.get("__offset")));
    assertNull(rows.get(0).get("note"));
    assertEquals("hello", rows.get(1).get("note"));
  }

  @Test
  void aMappedColumnUnderANewNameWidensTheTable() {
    ChangelogDelivery first = delivery(table());
    first.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 1L, "qty", 3L)));
    first.flush();
    Subscription mapped = new Subscription("t", "orders", DeliveryMode.CHANGELOG, List.of(), SourceFormat.JSON, true,
        List.of(new io.lakesink.mapping.ColumnRule("id", "id", null, false),
            new io.lakesink.mapping.ColumnRule("qty", "qty_text", io.lakesink.event.ColumnType.STRING, false)));
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    ChangelogDelivery second = new ChangelogDelivery(mapped, table(),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock));
    second.accept(event("t", 0, 1, Operation.UPDATE, 2L, row("id", 1L, "qty", "lots")));
    second.flush();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    rows.sort(Comparator.comparing(r -> (Long) r.get("__offset")));
    assertEquals("lots", rows.get(1).get("qty_text"), rows.toString());
    assertNull(rows.get(1).get("qty"));
  }

  @Test
  void valueThatDoesNotFitFailsTheTableNamingColumnAndOffset() {
    ChangelogDelivery d = delivery(table());
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 1L, "qty", 3L)));
    d.flush();
    d.accept(event("t", 0, 1, Operation.UPDATE, 2L, row("id", 1L, "qty", "three")));
    TableFailureException e = assertThrows(TableFailureException.class, d::flush);
    assertTrue(e.getMessage().contains("qty") && e.getMessage().contains("offset 1"), e.getMessage());
    assertFalse(d.state().delivering());
    assertEquals(Map.of(new SourcePartition("t", 0), 1L), delivery(table()).storedOffsets(List.of(new SourcePartition("t", 0))));
  }
}
