package io.lakesink.merge;

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
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.mapping.ColumnRule;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

class MergeDeliveryTest {
  @TempDir Path dir;

  /** A clock tests move by hand. */
  static final class ManualClock extends Clock {
    Instant now = Instant.parse("2026-11-29T10:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  final ManualClock clock = new ManualClock();

  MergeDelivery delivery(List<String> key, MergeSettings settings) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, key, SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), settings);
  }

  DeltaTable table() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
  }

  @Test
  void onlyTheFilesHoldingTheBatchKeysAreRewritten() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE));
    for (int file = 0; file < 3; file++) {
      for (long id = file * 100; id < file * 100 + 50; id++) {
        d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a")));
      }
      d.flush();
    }
    Set<String> before = table().files().stream().map(TableFile::path).collect(Collectors.toSet());
    assertEquals(3, before.size());
    d.accept(event("t", 0, 1000, Operation.UPDATE, 2L, row("id", 120L, "v", "b")));
    d.accept(event("t", 0, 1001, Operation.DELETE, 2L, row("id", 130L, "v", "a")));
    d.flush();
    Set<String> after = table().files().stream().map(TableFile::path).collect(Collectors.toSet());
    Set<String> kept = new HashSet<>(before);
    kept.retainAll(after);
    assertEquals(2, kept.size(), "two files untouched, one rewritten");
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(149, rows.size());
    assertEquals("b", rows.stream().filter(r -> r.get("id").equals(120L)).findFirst().orElseThrow().get("v"));
    assertTrue(rows.stream().noneMatch(r -> r.get("id").equals(130L)), "deleted rows leave no trace");
  }

  /** A streamed rewrite writes the batch's wider schema: the file's rows get null in the new column. */
  @Test
  void aCopyOnWriteRewriteOfABatchThatAddsAColumnWritesItNullForTheFilesRows() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE));
    for (long id = 0; id < 20; id++) {
      d.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a")));
    }
    d.flush();
    d.accept(event("t", 0, 20, Operation.UPDATE, 2L, row("id", 5L, "v", "b", "extra", "new")));
    d.flush();

    DeltaTable t = table();
    assertEquals(1, t.files().size(), "the one file rewritten with the changed row");
    List<Map<String, Object>> rows = DeltaTableReader.readAll(t);
    assertEquals(20, rows.size());
    Map<String, Object> changed = rows.stream().filter(r -> r.get("id").equals(5L)).findFirst().orElseThrow();
    assertEquals("b", changed.get("v"));
    assertEquals("new", changed.get("extra"));
    assertTrue(rows.stream().filter(r -> !r.get("id").equals(5L)).allMatch(r -> r.get("extra") == null && "a".equals(r.get("v"))));
  }

  /**
   * A merge once estimated the whole table and refused it past {@code merge_scan_limit_mb}; it
   * now streams the files it reads, so a table of any size merges, whatever the setting.
   */
  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void aTableFarPastWhatTheOldWholeTableEstimateAllowedIsMerged(MergeSettings.DeletionVectors vectors) {
    MergeDelivery first = delivery(List.of("id"), MergeSettings.DEFAULT.withDeletionVectors(vectors));
    for (long id = 0; id < 200; id++) {
      first.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "some text")));
    }
    first.flush();
    MergeDelivery limited = delivery(List.of("id"), MergeSettings.DEFAULT.withScanLimitMb(0).withDeletionVectors(vectors));
    limited.accept(event("t", 0, 200, Operation.UPDATE, 2L, row("id", 5L, "v", "x")));
    limited.accept(event("t", 0, 201, Operation.DELETE, 2L, row("id", 6L, "v", "some text")));
    limited.accept(event("t", 0, 202, Operation.CREATE, 2L, row("id", 500L, "v", "new")));
    limited.flush();

    assertTrue(limited.state().delivering());
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(200, rows.size());
    assertEquals("x", rows.stream().filter(r -> r.get("id").equals(5L)).findFirst().orElseThrow().get("v"));
    assertTrue(rows.stream().noneMatch(r -> r.get("id").equals(6L)));
    assertTrue(rows.stream().anyMatch(r -> r.get("id").equals(500L)));
  }

  /**
   * A tombstone read after its delete's batch was taken (a poll or a flush_rows boundary between
   * the two): its position alone is committed once it is as old as the flush interval, so the
   * partition's stored offset reaches the end instead of staying one short until the next event.
   * The rows do not change. Before the table exists, a position waits for the first event.
   */
  @Test
  void aTombstoneReadAfterItsDeleteWasCommittedIsCommittedOnItsOwnOnceDue() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    SourcePartition p0 = new SourcePartition("t", 0);
    d.skip(new SourcePosition("t", 0, 0));
    clock.now = clock.now.plusSeconds(60);
    assertFalse(d.flushDue(clock.millis()), "no table yet: its columns come with the first event");
    assertEquals(Map.of(), d.flush());
    d.accept(event("t", 0, 1, Operation.CREATE, 1L, row("id", 1L, "v", "a")));
    d.accept(event("t", 0, 2, Operation.CREATE, 1L, row("id", 2L, "v", "b")));
    d.accept(event("t", 0, 3, Operation.DELETE, 2L, row("id", 2L, "v", "b")));
    assertEquals(Map.of(p0, 4L), d.flush(), "the first tombstone went with the first events");
    long version = table().version();

    d.skip(new SourcePosition("t", 0, 4)); // the delete's tombstone, read in the next poll
    clock.now = clock.now.plusSeconds(9);
    assertFalse(d.flushDue(clock.millis()), "not before the flush interval");
    clock.now = clock.now.plusSeconds(1);
    assertTrue(d.flushDue(clock.millis()), "due once as old as the flush interval");
    assertEquals(Map.of(p0, 5L), d.flush());
    assertEquals(version + 1, table().version(), "one commit of the position");
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(List.of("1=a"), rows.stream().map(r -> r.get("id") + "=" + r.get("v")).toList(), "the rows do not change");
    assertEquals(Map.of(p0, 5L), delivery(List.of("id"), MergeSettings.DEFAULT).storedOffsets(List.of(p0)));
    assertFalse(d.flushDue(clock.millis() + 60_000), "nothing left to commit");
  }

  @Test
  void snapshotRowsAreStagedUntilTheEndMarkerTheQuietPeriodOrTheRowCap() {
    MergeSettings settings = new MergeSettings(512L << 20, Duration.ofSeconds(30), 5);
    MergeDelivery d = delivery(List.of("id"), settings);
    for (long id = 0; id < 3; id++) {
      d.accept(event("t", 0, id, Operation.READ, 1L, row("id", id)));
    }
    clock.now = clock.now.plusSeconds(29);
    assertFalse(d.flushDue(clock.millis()), "staged although the flush interval passed");
    clock.now = clock.now.plusSeconds(1);
    assertTrue(d.flushDue(clock.millis()), "published after 30 s without new rows");
    d.flush();

    d.accept(event("t", 0, 3, Operation.READ, 1L, row("id", 3L)));
    assertFalse(d.flushDue(clock.millis()));
    d.accept(event("t", 0, 4, Operation.READ, 1L, row("id", 4L)).asSnapshotEnd());
    assertTrue(d.flushDue(clock.millis()), "published when the snapshot ends");
    d.flush();

    for (long id = 5; id < 10; id++) {
      d.accept(event("t", 0, id, Operation.READ, 1L, row("id", id)));
    }
    assertTrue(d.flushDue(clock.millis()), "published at the row cap");
    d.flush();
    assertEquals(10, DeltaTableReader.readAll(table()).size());
    assertEquals(3, table().version(), "one commit per published stage after the create");
  }

  @Test
  void withoutAKeyRowsAccumulateAndDeletesAreNotApplied() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of(), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, table(), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), MergeSettings.DEFAULT);
    d.accept(new io.lakesink.event.ChangeEvent(new io.lakesink.error.SourcePosition("t", 0, 0), Operation.CREATE, 1L,
        new io.lakesink.event.RowSchema(List.of(new io.lakesink.event.Column("v", io.lakesink.event.ColumnType.STRING)), true),
        new Object[] {"a"}, List.of(), 10));
    d.accept(new io.lakesink.event.ChangeEvent(new io.lakesink.error.SourcePosition("t", 0, 1), Operation.UPDATE, 2L,
        new io.lakesink.event.RowSchema(List.of(new io.lakesink.event.Column("v", io.lakesink.event.ColumnType.STRING)), true),
        new Object[] {"b"}, List.of(), 10));
    d.accept(new io.lakesink.event.ChangeEvent(new io.lakesink.error.SourcePosition("t", 0, 2), Operation.DELETE, 3L,
        new io.lakesink.event.RowSchema(List.of(new io.lakesink.event.Column("v", io.lakesink.event.ColumnType.STRING)), true),
        new Object[] {"b"}, List.of(), 10));
    d.flush();
    assertEquals(2, DeltaTableReader.readAll(table()).size());
  }

  @Test
  void aConcurrentMergeThatRemovedTheSameFileIsDetectedAndTheBatchIsMergedAgain() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery seed = delivery(List.of("id"), MergeSettings.DEFAULT);
    for (long id = 0; id < 10; id++) {
      seed.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "a")));
    }
    seed.flush();
    // B merges (and rewrites the only file) while A has written its files but not committed.
    MergeDelivery b = new MergeDelivery(s, table(), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), MergeSettings.DEFAULT);
    b.accept(event("t", 1, 0, Operation.UPDATE, 2L, row("id", 2L, "v", "from B")));
    java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
    io.lakesink.delivery.FlushHook raceB = (table, step) -> {
      if (step == io.lakesink.delivery.FlushStep.BEFORE_COMMIT && once.compareAndSet(false, true)) {
        b.flush();
      }
    };
    List<Long> pauses = new java.util.ArrayList<>();
    MergeDelivery a = new MergeDelivery(s, table(), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock).withHook(raceB).withBackoff(pauses::add),
        MergeSettings.DEFAULT);
    a.accept(event("t", 0, 10, Operation.UPDATE, 2L, row("id", 7L, "v", "from A")));
    a.flush();

    assertTrue(a.state().delivering());
    assertTrue(once.get(), "B committed while A's commit was in flight");
    assertEquals(List.of(), pauses, "A's commit lost the race and was merged again at once: contention is no failure");
    Map<Long, Object> v = DeltaTableReader.readAll(table()).stream()
        .collect(Collectors.toMap(r -> (Long) r.get("id"), r -> r.get("v")));
    assertEquals(10, v.size());
    assertEquals("from B", v.get(2L), "B's change survived");
    assertEquals("from A", v.get(7L), "A's change was not lost");
  }

  @Test
  void rowsWithAnEmptyKeyAreDroppedAndInOnePartitionTheHigherOffsetWins() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.CREATE, 5L, row("id", 1L, "v", "first")));
    d.accept(event("t", 0, 1, Operation.UPDATE, 5L, row("id", 1L, "v", "second")));
    d.accept(event("t", 0, 2, Operation.UPDATE, 4L, row("id", 1L, "v", "third, stamped earlier")));
    d.accept(event("t", 0, 3, Operation.CREATE, 5L, row("id", null, "v", "no key")));
    d.flush();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(1, rows.size());
    assertEquals("third, stamped earlier", rows.get(0).get("v"), "a partition is in source order: its rank never goes down");
  }

  /** An event with explicit column types and record key fields. */
  static ChangeEvent change(int partition, long offset, Operation op, Long ts, List<String> keyFields, List<Column> columns, Object... values) {
    return new ChangeEvent(new SourcePosition("t", partition, offset), op, ts, new RowSchema(columns, true), values, keyFields, 10);
  }

  static Map<Object, Object> valuesById(List<Map<String, Object>> rows, String key) {
    Map<Object, Object> out = new java.util.TreeMap<>();
    rows.forEach(r -> assertNull(out.put(r.get(key), r.get("v")), "one row per key"));
    return out;
  }

  @Test
  void aTimestampKeyWithNanosecondsMatchesTheMicrosecondsTheTableStores() {
    List<Column> columns = List.of(new Column("at", ColumnType.TIMESTAMP), new Column("v", ColumnType.STRING));
    Instant at = Instant.parse("2026-11-29T10:00:00.123456789Z");
    MergeDelivery d = delivery(List.of("at"), MergeSettings.DEFAULT);
    d.accept(change(0, 0, Operation.CREATE, 1L, List.of(), columns, at, "a"));
    d.flush();
    d.accept(change(0, 1, Operation.UPDATE, 2L, List.of(), columns, at, "b"));
    d.flush();
    assertEquals(Map.of(at.truncatedTo(ChronoUnit.MICROS), "b"), valuesById(DeltaTableReader.readAll(table()), "at"), "updated in place");

    // Keys that differ below a microsecond are one key once stored: one row, also within a batch.
    d.accept(change(0, 2, Operation.UPDATE, 3L, List.of(), columns, at.plusNanos(100), "c"));
    d.accept(change(0, 3, Operation.CREATE, 3L, List.of(), columns, at.plusNanos(200), "d"));
    d.flush();
    assertEquals(Map.of(at.truncatedTo(ChronoUnit.MICROS), "d"), valuesById(DeltaTableReader.readAll(table()), "at"));

    d.accept(change(0, 4, Operation.DELETE, 4L, List.of(), columns, at, "d"));
    d.flush();
    assertEquals(List.of(), DeltaTableReader.readAll(table()), "deleted");
  }

  /**
   * A Debezium snapshot row is stamped when it was read; the change that follows it in its
   * partition carries an earlier source time and is still the newer one. Its rank (the snapshot
   * row's time) is stored, so a change of another partition compares with that, in later batches.
   */
  @Test
  void aChangeAfterASnapshotRowInItsPartitionWinsAndKeepsTheSnapshotsRank() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.READ, 200L, row("id", 1L, "v", "snapshot")));
    d.accept(event("t", 0, 1, Operation.READ, 200L, row("id", 2L, "v", "snapshot")));
    d.flush();
    d.accept(event("t", 0, 2, Operation.UPDATE, 150L, row("id", 1L, "v", "changed during the snapshot")));
    d.flush();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(Map.of(1L, "changed during the snapshot", 2L, "snapshot"), valuesById(rows, "id"));
    Map<String, Object> changed = rows.stream().filter(r -> r.get("id").equals(1L)).findFirst().orElseThrow();
    assertEquals(List.of(150L, 200L), List.of(changed.get("__ts_ms"), changed.get("__rank_ts_ms")), "its own time, and its rank");
    // Another partition: below the stored rank it is older, above it newer.
    d.accept(event("t", 1, 0, Operation.UPDATE, 180L, row("id", 1L, "v", "older, other partition")));
    d.accept(event("t", 1, 1, Operation.DELETE, 190L, row("id", 2L, "v", "older delete, other partition")));
    d.flush();
    assertEquals(Map.of(1L, "changed during the snapshot", 2L, "snapshot"), valuesById(DeltaTableReader.readAll(table()), "id"));
    d.accept(event("t", 1, 2, Operation.UPDATE, 201L, row("id", 1L, "v", "newer, other partition")));
    d.accept(event("t", 0, 3, Operation.DELETE, 100L, row("id", 2L, "v", "deleted after the snapshot")));
    d.flush();
    assertEquals(Map.of(1L, "newer, other partition"), valuesById(DeltaTableReader.readAll(table()), "id"));
    // The delete ranks at 200 (the snapshot row's time, in its partition): an older insert elsewhere stays out.
    d.accept(event("t", 2, 0, Operation.CREATE, 199L, row("id", 2L, "v", "older insert, other partition")));
    d.flush();
    assertEquals(Map.of(1L, "newer, other partition"), valuesById(DeltaTableReader.readAll(table()), "id"));
  }

  @Test
  void anOlderChangeArrivingInALaterBatchDoesNotOverwriteANewerRow() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "v", "newer")));
    d.flush();
    // The key moved partitions: an older change from the other partition is read afterwards.
    d.accept(event("t", 1, 0, Operation.UPDATE, 5L, row("id", 1L, "v", "older")));
    d.accept(event("t", 1, 1, Operation.DELETE, 6L, row("id", 1L, "v", "older")));
    d.flush();
    assertEquals(Map.of(1L, "newer"), valuesById(DeltaTableReader.readAll(table()), "id"));
    d.accept(event("t", 1, 2, Operation.UPDATE, 11L, row("id", 1L, "v", "newest")));
    d.flush();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(Map.of(1L, "newest"), valuesById(rows, "id"));
    assertEquals(List.of(11L, 1, 2L), List.of(rows.get(0).get("__ts_ms"), rows.get(0).get("__partition"), rows.get(0).get("__offset")),
        "the merged row keeps what ranks it");
  }

  @Test
  void anOlderInsertArrivingAfterTheDeleteDoesNotBringTheKeyBack() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 1L, "v", "a")));
    d.flush();
    d.accept(event("t", 0, 1, Operation.DELETE, 10L, row("id", 1L, "v", "a")));
    d.accept(event("t", 0, 2, Operation.DELETE, 10L, row("id", 2L, "v", "never inserted here")));
    d.flush();
    d.accept(event("t", 1, 0, Operation.CREATE, 5L, row("id", 1L, "v", "older")));
    d.accept(event("t", 1, 1, Operation.CREATE, 5L, row("id", 2L, "v", "older")));
    d.flush();
    assertEquals(List.of(), DeltaTableReader.readAll(table()), "the later deletes hold");
    d.accept(event("t", 1, 2, Operation.CREATE, 11L, row("id", 1L, "v", "again")));
    d.flush();
    d.accept(event("t", 0, 3, Operation.UPDATE, 10L, row("id", 1L, "v", "older than the insert")));
    d.flush();
    assertEquals(Map.of(1L, "again"), valuesById(DeltaTableReader.readAll(table()), "id"), "a later insert brings it back");
  }

  @Test
  void tiesOnTheSourceTimeGoToTheHigherPartitionThenOffsetAsInTheView() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 1, 0, Operation.CREATE, 5L, row("id", 1L, "v", "partition 1")));
    d.accept(event("t", 0, 9, Operation.UPDATE, 5L, row("id", 1L, "v", "partition 0, read last")));
    d.flush();
    assertEquals(Map.of(1L, "partition 1"), valuesById(DeltaTableReader.readAll(table()), "id"), "within a batch");
    d.accept(event("t", 0, 10, Operation.UPDATE, 5L, row("id", 1L, "v", "partition 0, next batch")));
    d.flush();
    assertEquals(Map.of(1L, "partition 1"), valuesById(DeltaTableReader.readAll(table()), "id"), "across batches");
    d.accept(event("t", 1, 1, Operation.UPDATE, 5L, row("id", 1L, "v", "partition 1, higher offset")));
    d.flush();
    assertEquals(Map.of(1L, "partition 1, higher offset"), valuesById(DeltaTableReader.readAll(table()), "id"));
  }

  @Test
  void aTableMergedBeforeItKeptThePartitionAndOffsetGainsThemAndItsRowsRankByTheirTime() {
    // As written before merged tables kept __partition and __offset.
    List<Column> legacy = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING),
        new Column("__op", ColumnType.STRING), new Column("__ts_ms", ColumnType.BIGINT));
    DeltaTable t = table();
    t.commit(t.prepareAppend(new AppendRequest(legacy, List.of(), Map.of(),
        List.of(new Object[] {1L, "a", "c", 5L}, new Object[] {2L, "b", "c", 5L}, new Object[] {3L, "c", "c", null}),
        io.lakesink.delta.CommitOffsets.NONE, Map.of())));
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.UPDATE, 3L, row("id", 1L, "v", "older than stored")));
    d.accept(event("t", 0, 1, Operation.UPDATE, 5L, row("id", 2L, "v", "same time: ranks above")));
    d.accept(event("t", 0, 2, Operation.UPDATE, null, row("id", 3L, "v", "no time either: ranks above")));
    d.flush();
    assertEquals(List.of("id", "v", "__op", "__ts_ms", "__partition", "__offset", "__rank_ts_ms"),
        table().columns().orElseThrow().stream().map(Column::name).toList());
    assertEquals(Map.of(1L, "a", 2L, "same time: ranks above", 3L, "no time either: ranks above"),
        valuesById(DeltaTableReader.readAll(table()), "id"));
  }

  @Test
  void withoutAPrimaryKeyEachRecordIsMergedOnItsOwnRecordKey() {
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT), new Column("code", ColumnType.STRING), new Column("v", ColumnType.STRING));
    MergeDelivery d = delivery(List.of(), MergeSettings.DEFAULT);
    d.accept(change(0, 0, Operation.CREATE, 1L, List.of("id"), columns, 1L, "x", "one"));
    d.accept(change(0, 1, Operation.CREATE, 1L, List.of("id"), columns, 2L, "x", "two"));
    d.accept(change(0, 2, Operation.CREATE, 1L, List.of("code"), columns, 3L, "z", "three"));
    d.flush();
    assertEquals(Map.of(1L, "one", 2L, "two", 3L, "three"), valuesById(DeltaTableReader.readAll(table()), "id"),
        "the last record's key is not the batch's");
    d.accept(change(0, 3, Operation.UPDATE, 2L, List.of("code"), columns, 9L, "z", "three, by code"));
    d.accept(change(0, 4, Operation.DELETE, 2L, List.of("id"), columns, 1L, "x", "one"));
    d.flush();
    assertEquals(Map.of(2L, "two", 9L, "three, by code"), valuesById(DeltaTableReader.readAll(table()), "id"));
  }

  @Test
  void aRecordWithoutAKeyQuarantinesATableMergedOnRecordKeys() {
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING));
    MergeDelivery d = delivery(List.of(), MergeSettings.DEFAULT);
    d.accept(change(0, 0, Operation.CREATE, 1L, List.of("id"), columns, 1L, "a"));
    d.flush();
    long version = table().version();
    d.accept(change(0, 1, Operation.UPDATE, 2L, List.of(), columns, 1L, "b"));
    TableFailureException e = assertThrows(TableFailureException.class, d::flush);
    assertTrue(e.getMessage().contains("partition 0, offset 1") && e.getMessage().contains("has no record key")
        && e.getMessage().contains("primary_key"), e.getMessage());
    assertFalse(d.state().delivering());
    assertEquals(version, table().version(), "nothing written");
  }

  @Test
  void aRecordWithoutAKeyBeforeAKeyedOneInTheSameBatchAlsoQuarantines() {
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING));
    MergeDelivery d = delivery(List.of(), MergeSettings.DEFAULT);
    d.accept(change(0, 0, Operation.CREATE, 1L, List.of("code"), columns, 1L, "key field not carried"));
    d.accept(change(0, 1, Operation.CREATE, 1L, List.of("id"), columns, 2L, "b"));
    TableFailureException e = assertThrows(TableFailureException.class, d::flush);
    assertTrue(e.getMessage().contains("partition 0, offset 0") && e.getMessage().contains("(code)"), e.getMessage());
    assertFalse(table().exists(), "nothing written");
  }

  @Test
  void withAColumnMappingTheTableKeepsWhatRanksAChangeButNotTheOperation() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of(), SourceFormat.JSON, true,
        List.of(new ColumnRule("id", "id", null, true), new ColumnRule("v", "value", null, false)));
    MergeDelivery d = new MergeDelivery(s, table(), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "v", "newer", "other", "dropped")));
    d.flush();
    d.accept(event("t", 1, 0, Operation.UPDATE, 5L, row("id", 1L, "v", "older", "other", "dropped")));
    d.flush();
    assertEquals(List.of("id", "value", "__ts_ms", "__partition", "__offset", "__rank_ts_ms"),
        table().columns().orElseThrow().stream().map(Column::name).toList());
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(1, rows.size());
    assertEquals("newer", rows.get(0).get("value"));
  }
}
