package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
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
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
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

  @Test
  void aTablePastTheSizeLimitIsRefusedBeforeAnythingIsReadAndQuarantined() {
    MergeDelivery first = delivery(List.of("id"), MergeSettings.DEFAULT);
    for (long id = 0; id < 200; id++) {
      first.accept(event("t", 0, id, Operation.CREATE, 1L, row("id", id, "v", "some text")));
    }
    first.flush();
    long version = table().version();
    MergeDelivery limited = delivery(List.of("id"), MergeSettings.DEFAULT.withScanLimitMb(0));
    limited.accept(event("t", 0, 200, Operation.UPDATE, 2L, row("id", 5L, "v", "x")));
    TableFailureException e = assertThrows(TableFailureException.class, limited::flush);
    assertTrue(e.getMessage().contains("holds 200 rows where one merge holds 0") && e.getMessage().contains("mode: changelog"), e.getMessage());
    assertFalse(limited.state().delivering());
    assertEquals(version, table().version(), "nothing written");
    assertTrue(new QuarantineStore(new LocalStorage(dir, "lakesink")).load("items").isPresent());
  }

  @Test
  void theLimitMatchesTheDocumentedFigures() {
    // 512 MiB at 120 B/row on disk: about 246,000 rows; at 10 B/row about 2.95 million.
    assertTrue(Math.abs(MergeSizeLimit.capacity(512L << 20, 120) - 246_066) <= 1);
    assertTrue(Math.abs(MergeSizeLimit.capacity(512L << 20, 10) - 2_952_790) <= 1);
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
    assertEquals(1, pauses.size(), "A's first commit lost the race and was merged again");
    Map<Long, Object> v = DeltaTableReader.readAll(table()).stream()
        .collect(Collectors.toMap(r -> (Long) r.get("id"), r -> r.get("v")));
    assertEquals(10, v.size());
    assertEquals("from B", v.get(2L), "B's change survived");
    assertEquals("from A", v.get(7L), "A's change was not lost");
  }

  @Test
  void rowsWithAnEmptyKeyAreDroppedAndTiesGoToTheEventReadLast() {
    MergeDelivery d = delivery(List.of("id"), MergeSettings.DEFAULT);
    d.accept(event("t", 0, 0, Operation.CREATE, 5L, row("id", 1L, "v", "first")));
    d.accept(event("t", 0, 1, Operation.UPDATE, 5L, row("id", 1L, "v", "second")));
    d.accept(event("t", 0, 2, Operation.UPDATE, 4L, row("id", 1L, "v", "older")));
    d.accept(event("t", 0, 3, Operation.CREATE, 5L, row("id", null, "v", "no key")));
    d.flush();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(1, rows.size());
    assertEquals("second", rows.get(0).get("v"));
  }
}
