package io.lakesink.iceberg;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.error.TableFailureException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.maintenance.VacuumResult;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ShiftableClock;
import java.io.IOException;
import java.math.BigDecimal;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IcebergMetadataSyncTest {
  @TempDir Path dir;
  final ShiftableClock clock = new ShiftableClock(); // moved by hand, so rows land in the ingest dates the test chooses
  final IcebergMetadataSync sync = new IcebergMetadataSync();

  @Test
  void aChangelogTableReadsTheSameThroughIcebergAfterAppendsAndAnAddedColumn() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 5, Operation.CREATE, 1000L, row("id", 1L, "status", "new", "price", 9.5, "paid", true)));
    d.accept(event("db.orders", 1, 7, Operation.DELETE, 2000L, row("id", 2L, "status", "old", "price", 1.25, "paid", false)));
    d.flush();
    Set<Path> parquetBefore = parquetFiles("orders_APPEND");

    SyncResult first = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertTrue(first.changed());
    assertEquals(table("orders_APPEND").version(), first.deltaVersion());
    assertTrue(first.metadataLocation().matches(".*/orders_APPEND/_lakesink_iceberg/metadata/v\\d+\\.metadata\\.json"), first.metadataLocation());
    assertTrue(Files.exists(dir.resolve("lakesink/orders_APPEND/_lakesink_iceberg/metadata/version-hint.text")));
    assertEquals(parquetBefore, parquetFiles("orders_APPEND"), "no data file written or copied");
    Table iceberg = iceberg("orders_APPEND");
    assertEquals(List.of("__ingest_date"), iceberg.spec().fields().stream().map(f -> f.name()).toList());
    assertEquals("identity", iceberg.spec().fields().get(0).transform().toString());
    assertTrue(iceberg.properties().containsKey("schema.name-mapping.default"));
    assertEquals(Long.toString(first.deltaVersion()), iceberg.properties().get(IcebergMetadataSync.DELTA_VERSION));
    assertEquals(deltaPaths("orders_APPEND"), icebergPaths(iceberg), "Iceberg lists exactly the Delta log's files");
    assertSameRows("orders_APPEND", 2);

    // Next day: more rows, a new column, a second partition; two Delta commits, one sync.
    clock.advance(Duration.ofDays(1));
    d.accept(event("db.orders", 0, 6, Operation.UPDATE, 3000L, row("id", 1L, "status", "paid", "price", 9.5, "paid", true)));
    d.flush();
    d.accept(event("db.orders", 0, 8, Operation.UPDATE, 4000L, row("id", 1L, "status", "shipped", "price", 9.5, "paid", true, "note", "fragile")));
    d.accept(event("db.orders", 1, 9, Operation.CREATE, 5000L, row("id", 3L, "status", "new", "price", 3.0, "paid", false, "note", "gift")));
    d.flush();

    SyncResult second = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertTrue(second.changed());
    assertEquals(2, second.filesAdded());
    assertEquals(0, second.filesRemoved());
    iceberg = iceberg("orders_APPEND");
    assertEquals(DataOperations.APPEND, iceberg.currentSnapshot().operation());
    assertEquals(Types.StringType.get(), iceberg.schema().findField("note").type());
    assertTrue(iceberg.properties().get("schema.name-mapping.default").contains("\"note\""), "the name mapping knows the new column");
    assertEquals(Long.toString(table("orders_APPEND").version()), iceberg.properties().get(IcebergMetadataSync.DELTA_VERSION));
    assertEquals(Long.toString(table("orders_APPEND").version()), iceberg.currentSnapshot().summary().get(IcebergMetadataSync.DELTA_VERSION),
        "each Iceberg snapshot says which Delta version it is");
    assertEquals(deltaPaths("orders_APPEND"), icebergPaths(iceberg));
    assertSameRows("orders_APPEND", 5);

    SyncResult again = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertFalse(again.changed(), "nothing new in the Delta log");
    assertEquals(second.metadataLocation(), again.metadataLocation());
  }

  @Test
  void aMergeTableReadsTheSameThroughIcebergAfterFilesAreRewritten() {
    MergeDelivery d = merge();
    for (long id = 0; id < 20; id++) {
      d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a")));
    }
    d.flush();
    SyncResult first = sync.sync(table("items"), DeliveryMode.MERGE);
    assertTrue(first.changed());
    assertTrue(iceberg("items").spec().isUnpartitioned());
    assertSameRows("items", 20);

    // An update only: the rewritten file holds as many rows as the old one, yet rows changed.
    d.accept(event("t", 0, 100, Operation.UPDATE, 2L, row("id", 5L, "v", "b")));
    d.flush();
    SyncResult updated = sync.sync(table("items"), DeliveryMode.MERGE);
    assertEquals(1, updated.filesRemoved(), updated.toString());
    assertEquals(DataOperations.OVERWRITE, iceberg("items").currentSnapshot().operation(), "not a rewrite: the rows changed");
    assertSameRows("items", 20);

    d.accept(event("t", 0, 101, Operation.DELETE, 2L, row("id", 6L, "v", "a")));
    d.flush();
    SyncResult second = sync.sync(table("items"), DeliveryMode.MERGE);
    assertTrue(second.filesRemoved() > 0, second.toString());
    Table iceberg = iceberg("items");
    assertEquals(DataOperations.OVERWRITE, iceberg.currentSnapshot().operation());
    assertEquals(deltaPaths("items"), icebergPaths(iceberg), "the MERGE's removed files left the Iceberg table");
    assertSameRows("items", 19);
  }

  @Test
  void everyColumnTypeLakesinkWritesReadsTheSameThroughIceberg() {
    List<Column> columns = List.of(
        new Column("id", ColumnType.BIGINT), new Column("small", ColumnType.INT), new Column("ratio", ColumnType.FLOAT),
        new Column("score", ColumnType.DOUBLE), new Column("amount", ColumnType.decimal(10, 2)),
        new Column("born", ColumnType.DATE), new Column("seen", ColumnType.TIMESTAMP),
        new Column("name", ColumnType.STRING), new Column("ok", ColumnType.BOOLEAN));
    ChangelogDelivery d = changelog();
    d.accept(new ChangeEvent(new SourcePosition("db.orders", 0, 0), Operation.CREATE, 1000L, new RowSchema(columns, true),
        new Object[] {1L, 7, 0.5f, 2.25, new BigDecimal("12345678.90"), LocalDate.of(1990, 5, 17),
            Instant.parse("2026-11-29T09:15:30.123456Z"), "Zoë", true},
        List.of("id"), 100));
    d.accept(new ChangeEvent(new SourcePosition("db.orders", 0, 1), Operation.CREATE, 2000L, new RowSchema(columns, true),
        new Object[] {2L, null, null, null, null, null, null, null, null}, List.of("id"), 100));
    d.flush();
    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    Schema schema = iceberg("orders_APPEND").schema();
    assertEquals(Types.DecimalType.of(10, 2), schema.findField("amount").type());
    assertEquals(Types.TimestampType.withZone(), schema.findField("seen").type());
    assertSameRows("orders_APPEND", 2);
  }

  @Test
  void optimizeIsARewriteIcebergMayNotGarbageCollectAndVacuumLeavesTheMetadataAlone() {
    ChangelogDelivery d = changelog();
    for (long offset = 0; offset < 3; offset++) {
      d.accept(event("db.orders", 0, offset, Operation.CREATE, 1000L + offset, row("id", offset, "status", "new")));
      d.flush();
    }
    assertEquals(3, sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG).filesAdded());

    OptimizeResult optimized = maintenance().optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    SyncResult afterOptimize = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertEquals(3, afterOptimize.filesRemoved());
    assertEquals(1, afterOptimize.filesAdded());
    assertEquals(DataOperations.REPLACE, iceberg("orders_APPEND").currentSnapshot().operation(),
        "a compaction is a rewrite: incremental Iceberg readers of the changelog skip it");
    assertSameRows("orders_APPEND", 3);

    // OPTIMIZE and new rows seen by one sync: the new rows must reach incremental readers, so an overwrite.
    d.accept(event("db.orders", 0, 3, Operation.CREATE, 1003L, row("id", 3L, "status", "new")));
    d.flush();
    maintenance().optimize(false);
    SyncResult mixed = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    // Iceberg knew the first compacted file; Delta now holds one file with it and the new row.
    assertEquals(1, mixed.filesRemoved(), mixed.toString());
    assertEquals(1, mixed.filesAdded(), mixed.toString());
    assertEquals(DataOperations.OVERWRITE, iceberg("orders_APPEND").currentSnapshot().operation());
    assertSameRows("orders_APPEND", 4);

    // Iceberg's own maintenance would delete the files only older Iceberg snapshots list, which Delta
    // still keeps for time travel: refused.
    Set<Path> dataFiles = parquetFiles("orders_APPEND");
    ValidationException refused = assertThrows(ValidationException.class,
        () -> iceberg("orders_APPEND").expireSnapshots().expireOlderThan(Long.MAX_VALUE).commit());
    assertTrue(refused.getMessage().contains("GC is disabled"), refused.getMessage());
    assertEquals(dataFiles, parquetFiles("orders_APPEND"));
    assertEquals(6, dataFiles.size());

    Set<Path> metadata = files(dir.resolve("lakesink/orders_APPEND/_lakesink_iceberg/metadata"));
    clock.advance(Duration.ofHours(169)); // past the 7-day retention: all but the live file go
    VacuumResult vacuumed = maintenance().vacuum(Optional.empty(), false, false);
    assertEquals(5, vacuumed.filesDeleted(), vacuumed.toString());
    assertEquals(metadata, files(dir.resolve("lakesink/orders_APPEND/_lakesink_iceberg/metadata")), "lakesink's VACUUM never lists metadata/");
    assertSameRows("orders_APPEND", 4);
  }

  @Test
  void aTableReCreatedWithAColumnIcebergCannotRetypeIsATableFailureThatSaysWhatToDelete() throws IOException {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "code", 7L)));
    d.flush();
    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);

    // An operator deletes the Delta table (not metadata/) and lakesink creates it anew, with code as text.
    Path root = deleteDeltaTable("orders_APPEND");
    ChangelogDelivery again = changelog();
    again.accept(event("db.orders", 0, 1, Operation.CREATE, 2000L, row("id", 2L, "code", "seven")));
    again.flush();

    TableFailureException e = assertThrows(TableFailureException.class, () -> sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG));
    assertTrue(e.getMessage().contains("Column code") && e.getMessage().contains("string")
        && e.getMessage().contains("long") && e.getMessage().contains(root.getFileName() + "/_lakesink_iceberg"), e.getMessage());
  }

  @Test
  void aTableReCreatedWithAWiderAndAMissingColumnIsDescribedAnew() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "code", 7, "note", "x")));
    d.flush();
    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    int codeId = iceberg("orders_APPEND").schema().findField("code").fieldId();

    deleteDeltaTable("orders_APPEND");
    ChangelogDelivery again = changelog();
    again.accept(event("db.orders", 0, 1, Operation.CREATE, 2000L, row("id", 2L, "code", 8L)));
    again.flush();

    SyncResult result = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertEquals(1, result.filesRemoved(), "the deleted table's file left the Iceberg table");
    Schema schema = iceberg("orders_APPEND").schema();
    assertEquals(Types.LongType.get(), schema.findField("code").type(), "int promoted to long");
    assertEquals(codeId, schema.findField("code").fieldId(), "same column, same id");
    assertEquals(null, schema.findField("note"), "a column the table no longer has is dropped");
    assertSameRows("orders_APPEND", 1);
  }

  @Test
  void aTableReCreatedWithOtherPartitionColumnsIsATableFailure() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L)));
    d.flush();
    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);

    deleteDeltaTable("orders_APPEND");
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription sub = new Subscription("t", "orders", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery merge = new MergeDelivery(sub, table("orders_APPEND"), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), COPY_ON_WRITE);
    merge.accept(event("t", 0, 1, Operation.CREATE, 2000L, row("id", 2L)));
    merge.flush();

    TableFailureException e = assertThrows(TableFailureException.class, () -> sync.sync(table("orders_APPEND"), DeliveryMode.MERGE));
    assertTrue(e.getMessage().contains("partitioned by []") && e.getMessage().contains("[__ingest_date]")
        && e.getMessage().contains("orders_APPEND/_lakesink_iceberg"), e.getMessage());
  }

  /** Deletes the Delta table's log and files, not its Iceberg metadata, as an operator might. */
  private Path deleteDeltaTable(String name) {
    Path root = dir.resolve("lakesink").resolve(name);
    try {
      for (Path p : files(root)) {
        if (!p.startsWith(root.resolve("_lakesink_iceberg"))) {
          Files.delete(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return root;
  }

  @Test
  void icebergEnginesSkipFilesByTheDeltaStatisticsOfIntegerColumns() {
    MergeDelivery d = merge();
    for (int file = 0; file < 3; file++) {
      for (long id = file * 100; id < file * 100 + 50; id++) {
        d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a" + id)));
      }
      d.flush();
    }
    sync.sync(table("items"), DeliveryMode.MERGE);
    Table t = iceberg("items");
    List<Record> planned = NameMappedRecords.read(t, Expressions.greaterThanOrEqual("id", 120L));
    Set<Object> icebergIds = planned.stream().map(r -> r.getField("id")).filter(id -> (Long) id >= 120).collect(Collectors.toSet());
    Set<Object> deltaIds = DeltaTableReader.readAll(table("items")).stream().map(r -> r.get("id")).filter(id -> (Long) id >= 120).collect(Collectors.toSet());
    assertEquals(deltaIds, icebergIds, "no matching row skipped");
    assertEquals(80, deltaIds.size());
    assertEquals(100, planned.size(), "the file of ids 0..49 is skipped, the other two are read");

    DataFile any = t.newScan().includeColumnStats().planFiles().iterator().next().file();
    int v = t.schema().findField("v").fieldId();
    assertFalse(any.upperBounds().containsKey(v), "no bound from Delta's truncated string statistics");
    assertTrue(any.upperBounds().containsKey(t.schema().findField("id").fieldId()));
  }

  @Test
  void deletionVectorsArePositionDeletesInTheSameSnapshotAndAChangedVectorReplacesItsDeleteFile() {
    MergeDelivery d = merge(MergeSettings.DEFAULT); // deletion vectors
    for (long id = 0; id < 20; id++) {
      d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a")));
    }
    d.flush();
    sync.sync(table("items"), DeliveryMode.MERGE);
    assertEquals(Set.of(), deleteFiles("items"));
    assertSameRows("items", 20);

    d.accept(event("t", 0, 100, Operation.UPDATE, 2L, row("id", 5L, "v", "b")));
    d.accept(event("t", 0, 101, Operation.DELETE, 2L, row("id", 6L, "v", "a")));
    d.flush();
    assertEquals(1, table("items").files().stream().filter(TableFile::hasDeletionVector).count());
    sync.sync(table("items"), DeliveryMode.MERGE);
    Table t = iceberg("items");
    Map<String, String> summary = t.currentSnapshot().summary();
    assertEquals("1", summary.get("added-data-files"), summary.toString());
    assertEquals("1", summary.get("added-delete-files"), "the update's new row and the vector in one snapshot: " + summary);
    assertEquals(deltaPaths("items"), icebergPaths(t), "the file with the vector stays listed");
    Set<String> first = deleteFiles("items");
    assertEquals(1, first.size());
    assertTrue(first.iterator().next().startsWith(table("items").location() + "/_lakesink_iceberg/deletes/"), first.toString());
    assertSameRows("items", 19);

    // Another row of the same file deleted: Delta replaces the file's vector, Iceberg its delete file.
    d.accept(event("t", 0, 102, Operation.DELETE, 3L, row("id", 7L, "v", "a")));
    d.flush();
    sync.sync(table("items"), DeliveryMode.MERGE);
    summary = iceberg("items").currentSnapshot().summary();
    assertEquals("1", summary.get("removed-delete-files"), summary.toString());
    assertEquals("1", summary.get("added-delete-files"), summary.toString());
    Set<String> second = deleteFiles("items");
    assertEquals(1, second.size());
    assertFalse(second.equals(first), "a new delete file for the new vector");
    assertSameRows("items", 18);
    assertFalse(sync.sync(table("items"), DeliveryMode.MERGE).changed(), "an unchanged vector is not written again");

    // Vacuum past the retention: lakesink's vacuum never lists _lakesink_iceberg.
    Set<Path> icebergFiles = files(dir.resolve("lakesink/items/_lakesink_iceberg"));
    clock.advance(Duration.ofHours(169));
    maintenance("items").vacuum(Optional.empty(), false, false);
    assertEquals(icebergFiles, files(dir.resolve("lakesink/items/_lakesink_iceberg")));
    assertSameRows("items", 18);

    // OPTIMIZE rewrites the file with the vector: its delete file leaves with it.
    OptimizeResult optimized = maintenance("items").optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    sync.sync(table("items"), DeliveryMode.MERGE);
    assertEquals(table("items").files().stream().filter(TableFile::hasDeletionVector).count(), deleteFiles("items").size());
    assertEquals(deltaPaths("items"), icebergPaths(iceberg("items")));
    assertSameRows("items", 18);
  }

  @Test
  void aChangelogTableWithDeletionVectorsEnabledIsDescribed() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L)));
    d.flush();
    table("orders_APPEND").commitProperties(p -> Map.of("delta.enableDeletionVectors", "true"));

    assertTrue(sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG).changed());
    assertSameRows("orders_APPEND", 1);
  }

  @Test
  void theCurrentVersionIsFoundPastAStaleOrMissingVersionHint() throws IOException {
    ChangelogDelivery d = changelog();
    for (long offset = 0; offset < 4; offset++) {
      d.accept(event("db.orders", 0, offset, Operation.CREATE, 1000L + offset, row("id", offset)));
      d.flush();
      sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    }
    String latest = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG).metadataLocation();
    Path hint = dir.resolve("lakesink/orders_APPEND/_lakesink_iceberg/metadata/version-hint.text");
    Files.writeString(hint, "2");
    assertEquals(latest, metadataLocation(sync.load(table("orders_APPEND")).orElseThrow()));
    Files.delete(hint);
    assertEquals(latest, metadataLocation(sync.load(table("orders_APPEND")).orElseThrow()));
    assertEquals(latest, metadataLocation(iceberg("orders_APPEND")), "Iceberg's HadoopTables finds it too");

    d.accept(event("db.orders", 0, 4, Operation.CREATE, 1004L, row("id", 4L)));
    d.flush();
    SyncResult next = sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    assertTrue(next.metadataLocation().endsWith("/v" + (version(latest) + 1) + ".metadata.json"), next.metadataLocation());
    assertEquals(Integer.toString(version(latest) + 1), Files.readString(hint).trim(), "the hint is written again");
    assertSameRows("orders_APPEND", 5);
  }

  private static int version(String metadataLocation) {
    String name = metadataLocation.substring(metadataLocation.lastIndexOf("/v") + 2);
    return Integer.parseInt(name.substring(0, name.indexOf('.')));
  }

  private static String metadataLocation(Table t) {
    return ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
  }

  /** The locations of the delete files the Iceberg table's current snapshot applies. */
  private Set<String> deleteFiles(String name) {
    Set<String> deletes = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg(name).newScan().planFiles()) {
      tasks.forEach(task -> task.deletes().forEach(f -> deletes.add(f.location())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return deletes;
  }

  @Test
  void aFileWithoutDeltaStatisticsGetsItsRowCountFromTheParquetFooter() throws IOException {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L)));
    d.accept(event("db.orders", 0, 1, Operation.CREATE, 1001L, row("id", 2L)));
    d.flush();
    // Another writer adds a file without statistics (they are optional in Delta): a copy of ours.
    TableFile file = table("orders_APPEND").files().get(0);
    Path root = dir.resolve("lakesink/orders_APPEND");
    String copy = file.path().replace(".parquet", "-copy.parquet");
    Files.copy(root.resolve(file.path()), root.resolve(copy));
    long version = table("orders_APPEND").version() + 1;
    Files.writeString(root.resolve("_delta_log").resolve(String.format("%020d.json", version)), String.join("\n",
        "{\"commitInfo\":{\"timestamp\":1764410000000,\"operation\":\"WRITE\",\"operationParameters\":{}}}",
        "{\"add\":{\"path\":\"" + copy + "\",\"partitionValues\":{\"__ingest_date\":\"" + file.partitionValues().get("__ingest_date")
            + "\"},\"size\":" + file.size() + ",\"modificationTime\":1764410000000,\"dataChange\":true}}") + "\n");
    assertTrue(table("orders_APPEND").files().stream().anyMatch(f -> f.rows() < 0), "the copy has no statistics");

    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    try (CloseableIterable<FileScanTask> tasks = iceberg("orders_APPEND").newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        assertEquals(2, task.file().recordCount(), task.file().location());
      }
    }
    assertSameRows("orders_APPEND", 4);
  }

  @Test
  void thereIsNothingToDescribeBeforeTheDeltaTableExists() {
    TableFailureException e = assertThrows(TableFailureException.class, () -> sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG));
    assertTrue(e.getMessage().contains("There is no Delta table at"), e.getMessage());
  }

  @Test
  void aTableWithColumnMappingIsNotDescribedToIceberg() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L)));
    d.flush();
    table("orders_APPEND").commitProperties(p -> Map.of("delta.columnMapping.mode", "name"));

    TableFailureException e = assertThrows(TableFailureException.class, () -> sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG));
    assertTrue(e.getMessage().contains("delta.columnMapping.mode=name") && e.getMessage().contains("physical names"), e.getMessage());
  }

  @Test
  void aSyncThatLosesARaceIsRetryableAndTheNextSyncListsEveryFileOnce() {
    ChangelogDelivery d = changelog();
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L)));
    d.flush();
    sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG);
    d.accept(event("db.orders", 0, 1, Operation.CREATE, 2000L, row("id", 2L)));
    d.flush();

    // Another process's sync commits the same new file just before this one writes its metadata.
    RacingStorage racing = new RacingStorage(new LocalStorage(dir, "lakesink"));
    racing.beforeMetadataWrite(() -> sync.sync(table("orders_APPEND"), DeliveryMode.CHANGELOG));
    DeltaTable racingTable = new DeltaTable(KernelEngine.create(racing), racing.tableLocation("orders_APPEND"));
    RetryableException e = assertThrows(RetryableException.class, () -> sync.sync(racingTable, DeliveryMode.CHANGELOG));
    assertTrue(e.getMessage().contains("at the same time"), e.getMessage());
    assertTrue(racing.raceRan());

    SyncResult next = sync.sync(racingTable, DeliveryMode.CHANGELOG);
    assertFalse(next.changed(), "the other sync already described this version");
    assertEquals(deltaPaths("orders_APPEND").size(), Iterables.size(iceberg("orders_APPEND").newScan().planFiles()));
    assertSameRows("orders_APPEND", 2);
  }

  /** Iceberg's generic records, read with the table's name mapping, are exactly the rows Delta's reader returns. */
  private void assertSameRows(String name, int expected) {
    List<Map<String, Object>> delta = sorted(DeltaTableReader.readAll(table(name)));
    List<Map<String, Object>> iceberg = new ArrayList<>();
    Table t = iceberg(name);
    for (Record r : NameMappedRecords.read(t)) {
      Map<String, Object> row = new HashMap<>();
      for (Types.NestedField f : t.schema().columns()) {
        Object value = r.getField(f.name());
        row.put(f.name(), value instanceof OffsetDateTime odt ? odt.toInstant() : value);
      }
      iceberg.add(row);
    }
    assertEquals(expected, delta.size());
    assertEquals(delta, sorted(iceberg));
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> copy = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      copy.add(new HashMap<>(r)); // HashMap holds nulls: a missing column equals a null one
    }
    copy.sort(Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("id")))
        .thenComparing(r -> String.valueOf(r.get("__offset"))));
    return copy;
  }

  private ChangelogDelivery changelog() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription sub = new Subscription("db.orders", "orders", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    return new ChangelogDelivery(sub, table("orders_APPEND"),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock).withBackoff(millis -> {}));
  }

  /** MERGE tables written copy-on-write (no deletion vectors). */
  private static final MergeSettings COPY_ON_WRITE = MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE);

  private MergeDelivery merge() {
    return merge(COPY_ON_WRITE);
  }

  private MergeDelivery merge(MergeSettings settings) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription sub = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(sub, table("items"), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), settings);
  }

  private TableMaintenance maintenance() {
    return maintenance("orders_APPEND");
  }

  private TableMaintenance maintenance(String name) {
    return new TableMaintenance(name, table(name), List.of(), MaintenanceSettings.DEFAULT, clock, line -> {});
  }

  private static Set<Path> files(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private DeltaTable table(String name) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation(name));
  }

  private Table iceberg(String name) {
    return new HadoopTables().load(table(name).location() + "/_lakesink_iceberg");
  }

  private Set<String> deltaPaths(String name) {
    DeltaTable t = table(name);
    return t.files().stream().map(f -> DeltaDataFiles.absolutePath(t.location(), f.path())).collect(Collectors.toSet());
  }

  private static Set<String> icebergPaths(Table t) {
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      Set<String> paths = new java.util.HashSet<>();
      tasks.forEach(task -> paths.add(task.file().location()));
      return paths;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Set<Path> parquetFiles(String name) {
    try (Stream<Path> files = Files.walk(dir.resolve("lakesink").resolve(name))) {
      return files.filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("_delta_log")).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
