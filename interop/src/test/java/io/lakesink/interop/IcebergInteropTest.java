package io.lakesink.interop;

import static io.lakesink.interop.SparkRows.assertRows;
import static io.lakesink.interop.SparkRows.collect;
import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Operation;
import io.lakesink.iceberg.IcebergMetadataSync;
import io.lakesink.iceberg.NameMappedRecords;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ShiftableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Iceberg engine reads lakesink's tables through the Iceberg metadata the {@code iceberg}
 * module keeps beside them, row for row what delta-spark reads from the Delta log: after
 * changelog appends, a column added mid-stream, MERGE updates and deletes (with deletion vectors,
 * carried as position deletes, and copy-on-write), and an OPTIMIZE; synced after each step.
 *
 * <p>The Iceberg engine is Iceberg's generic reader assembled as {@code IcebergGenerics} assembles
 * it (format registry, partition constants, {@code GenericDeleteFilter}) plus the table's name
 * mapping ({@link NameMappedRecords}): {@code IcebergGenerics} 1.11 itself ignores the name mapping
 * and reads lakesink's files (no field ids) by position. No Iceberg Spark runtime exists for this
 * module's Spark 4.2 in the repository here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(900)
class IcebergInteropTest {
  @TempDir static Path dir;

  private SparkSession spark;
  private final ShiftableClock clock = new ShiftableClock();
  private final IcebergMetadataSync sync = new IcebergMetadataSync();

  @BeforeAll
  void startSpark() {
    spark = LocalSpark.builder("lakesink-iceberg-interop", dir)
        .config("spark.sql.datetime.java8API.enabled", "true")
        .getOrCreate();
  }

  @AfterAll
  void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void aChangelogTableReadsTheSameAfterAppendsAnAddedColumnAndAnOptimize() {
    ChangelogDelivery d = new ChangelogDelivery(
        new Subscription("db.orders", "orders", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true),
        table("orders_APPEND"), context().withBackoff(millis -> {}));
    for (long offset = 0; offset < 6; offset++) {
      d.accept(event("db.orders", (int) (offset % 2), offset, offset % 3 == 2 ? Operation.UPDATE : Operation.CREATE,
          1000L + offset, row("id", offset % 4, "status", "s" + offset, "price", offset * 1.5, "paid", offset % 2 == 0)));
      d.flush();
    }
    assertSameThroughIceberg("orders_APPEND", DeliveryMode.CHANGELOG, 6, "after appends");

    clock.advance(Duration.ofDays(1)); // a second ingest-date partition
    d.accept(event("db.orders", 0, 6, Operation.UPDATE, 2000L, row("id", 1L, "status", "shipped", "price", 1.5, "paid", true,
        "note", "fragile")));
    d.accept(event("db.orders", 1, 7, Operation.DELETE, 2001L, row("id", 2L, "status", "gone", "price", 3.0, "paid", false,
        "note", "returned")));
    d.flush();
    assertSameThroughIceberg("orders_APPEND", DeliveryMode.CHANGELOG, 8, "after a column was added");

    OptimizeResult optimized = maintenance("orders_APPEND").optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    assertSameThroughIceberg("orders_APPEND", DeliveryMode.CHANGELOG, 8, "after OPTIMIZE");
  }

  @Test
  void mergeTablesReadTheSameWithDeletionVectorsAndCopyOnWrite() {
    mergeScenario("items_dv", MergeSettings.DEFAULT, true);
    mergeScenario("items_cow", MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE), false);
  }

  private void mergeScenario(String name, MergeSettings settings, boolean deletionVectors) {
    MergeDelivery d = new MergeDelivery(new Subscription("t." + name, name, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true),
        table(name), null, context(), settings);
    long offset = 0;
    for (long id = 0; id < 40; id++) {
      d.accept(event("t", 0, offset++, Operation.CREATE, 1L, row("id", id, "v", "a" + id, "n", id * 10)));
    }
    d.flush();
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 40, name + " after inserts");

    for (long id = 0; id < 40; id += 7) {
      d.accept(event("t", 0, offset++, Operation.UPDATE, 2L, row("id", id, "v", "b" + id, "n", id * 10 + 1)));
    }
    d.accept(event("t", 0, offset++, Operation.DELETE, 2L, row("id", 3L, "v", "a3", "n", 30L)));
    d.accept(event("t", 0, offset++, Operation.DELETE, 2L, row("id", 4L, "v", "a4", "n", 40L)));
    d.flush();
    assertEquals(deletionVectors, table(name).files().stream().anyMatch(TableFile::hasDeletionVector),
        name + ": deletion vectors as configured");
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 38, name + " after updates and deletes");

    // The same files again: vectors that grow replace their delete files.
    d.accept(event("t", 0, offset++, Operation.DELETE, 3L, row("id", 5L, "v", "a5", "n", 50L)));
    d.accept(event("t", 0, offset++, Operation.UPDATE, 3L, row("id", 6L, "v", "c6", "n", 61L)));
    d.accept(event("t", 0, offset++, Operation.CREATE, 3L, row("id", 100L, "v", "new", "n", 1000L)));
    d.flush();
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 38, name + " after a second merge");

    OptimizeResult optimized = maintenance(name).optimize(false);
    assertTrue(optimized.committed(), optimized.toString());
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 38, name + " after OPTIMIZE");
  }

  /**
   * delta-spark's VACUUM deletes every file the Delta log does not reference, except under
   * folders whose names start with {@code _} or {@code .}: the Iceberg metadata, manifests and
   * position-delete files under {@code _lakesink_iceberg/} survive it, and the next sync reads
   * the same rows on top of them.
   */
  @Test
  void deltaSparksVacuumLeavesTheIcebergMetadataAndPositionDeletes() throws IOException {
    String name = "items_vacuumed";
    MergeDelivery d = new MergeDelivery(new Subscription("t." + name, name, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true),
        table(name), null, context(), MergeSettings.DEFAULT);
    for (long id = 0; id < 20; id++) {
      d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a" + id)));
    }
    d.flush();
    d.accept(event("t", 0, 20, Operation.DELETE, 2L, row("id", 3L, "v", "a3")));
    d.flush();
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 19, "before VACUUM");
    Path iceberg = dir.resolve("lakesink").resolve(name).resolve("_lakesink_iceberg");
    Set<Path> before = files(iceberg);
    assertTrue(before.stream().anyMatch(p -> p.toString().contains("/deletes/")), before.toString());
    assertTrue(before.stream().anyMatch(p -> p.toString().endsWith(".metadata.json")), before.toString());

    spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
    spark.sql("VACUUM delta.`" + table(name).location() + "` RETAIN 0 HOURS");
    assertEquals(before, files(iceberg), "delta-spark's VACUUM left _lakesink_iceberg/ alone");

    // (delta-spark logs VACUUM START/END commits, so the next sync records a new Delta version.)
    assertSameThroughIceberg(name, DeliveryMode.MERGE, 19, "after VACUUM");
  }

  private static Set<Path> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }

  /** Syncs the Iceberg metadata, then compares what delta-spark and the Iceberg reader return. */
  private void assertSameThroughIceberg(String name, DeliveryMode mode, int expectedRows, String what) {
    DeltaTable delta = table(name);
    sync.sync(delta, mode);
    String location = delta.location();
    List<Map<String, Object>> sparkRows = collect(spark.read().format("delta").load(location));
    List<String> sparkColumns = List.of(spark.read().format("delta").load(location).schema().fieldNames());

    Table iceberg = sync.load(delta).orElseThrow();
    List<String> icebergColumns = iceberg.schema().columns().stream().map(Types.NestedField::name).toList();
    assertEquals(sparkColumns, icebergColumns, what + ": columns");
    List<Map<String, Object>> icebergRows = new ArrayList<>();
    for (Record r : NameMappedRecords.read(iceberg)) {
      Map<String, Object> values = new LinkedHashMap<>();
      for (String column : icebergColumns) {
        Object value = r.getField(column);
        values.put(column, value instanceof OffsetDateTime t ? t.toInstant() : value);
      }
      icebergRows.add(values);
    }
    assertEquals(expectedRows, sparkRows.size(), what + ": rows delta-spark reads");
    assertRows(sparkRows, icebergRows, ORDER, what + ", Iceberg vs delta-spark");
  }

  /** A total order on both kinds of table: the key, then the source position (changelog rows). */
  private static final Comparator<Map<String, Object>> ORDER =
      Comparator.<Map<String, Object>, Long>comparing(r -> ((Number) r.get("id")).longValue())
          .thenComparing(r -> String.valueOf(r.get("__partition")))
          .thenComparing(r -> String.valueOf(r.get("__offset")));

  private DeliveryContext context() {
    return DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withClock(clock);
  }

  private TableMaintenance maintenance(String name) {
    return new TableMaintenance(name, table(name), List.of(), MaintenanceSettings.DEFAULT, clock, line -> {});
  }

  private LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  private DeltaTable table(String name) {
    LocalStorage storage = storage();
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation(name));
  }
}
