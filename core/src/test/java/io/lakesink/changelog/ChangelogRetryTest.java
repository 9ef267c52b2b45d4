package io.lakesink.changelog;

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
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Operation;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.testing.FlakyStorage;
import io.lakesink.testing.ShiftableClock;
import io.lakesink.testing.FlakyStorage.Fault;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every retry branch of a changelog flush, against storage that fails on demand. */
class ChangelogRetryTest {
  @TempDir Path dir;
  FlakyStorage storage;
  final List<Long> pauses = new ArrayList<>();
  final Subscription sub = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);

  @BeforeEach
  void setUp() {
    storage = new FlakyStorage(dir);
  }

  ChangelogDelivery delivery() {
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t_APPEND"));
    return new ChangelogDelivery(sub, table,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withBackoff(pauses::add));
  }

  List<Map<String, Object>> rows() {
    return DeltaTableReader.readAll(new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t_APPEND")));
  }

  void firstCommit(ChangelogDelivery d) {
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 0L)));
    d.flush();
  }

  @Test
  void aShortBlipIsRetriedAtOnceByKernel() {
    ChangelogDelivery d = delivery();
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    storage.failNextCommits(2, Fault.FAIL_BEFORE_WRITE);
    assertEquals(Map.of(new SourcePartition("t", 0), 2L), d.flush());
    assertEquals(2, rows().size());
    assertEquals(List.of(), pauses);
  }

  @Test
  void aLongerOutageIsRetriedWithGrowingBackoff() {
    ChangelogDelivery d = delivery();
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    int kernelAttempts = DeltaTable.MAX_REBASES + 1;
    storage.failNextCommits(2 * kernelAttempts + 3, Fault.FAIL_BEFORE_WRITE);
    assertEquals(Map.of(new SourcePartition("t", 0), 2L), d.flush());
    assertEquals(2, rows().size());
    assertEquals(2, pauses.size(), "backed off once per failed attempt");
    assertTrue(pauses.get(1) > pauses.get(0), "backoff grows");
  }

  @Test
  void aCommitThatLandedButReportedFailureIsNotWrittenTwice() {
    ChangelogDelivery d = delivery();
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    d.accept(event("t", 1, 0, Operation.CREATE, 2L, row("id", 2L)));
    storage.failNextCommits(1, Fault.FAIL_AFTER_WRITE);
    Map<SourcePartition, Long> committed = d.flush();
    assertEquals(Map.of(new SourcePartition("t", 0), 2L, new SourcePartition("t", 1), 1L), committed);
    assertEquals(3, rows().size(), "each event exactly once");
    assertEquals(0, d.bufferedEvents());
  }

  @Test
  void persistentTransientFailureKeepsTheRowsAndTheTableHealthy() {
    ChangelogDelivery d = delivery();
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    storage.failNextCommits(1000, Fault.FAIL_BEFORE_WRITE);
    assertThrows(RetryableException.class, d::flush);
    assertTrue(d.state().delivering());
    assertTrue(new QuarantineStore(storage).list().isEmpty(), "retryable faults never quarantine");
    assertEquals(1, d.bufferedEvents());
    storage.failNextCommits(0, Fault.FAIL_BEFORE_WRITE);
    assertEquals(Map.of(new SourcePartition("t", 0), 2L), d.flush());
    assertEquals(2, rows().size());
  }

  @Test
  void aFlushGivesTheLoopBackBeforeItsDeadlineAndWaitsBeforeTryingAgain() {
    ShiftableClock clock = new ShiftableClock();
    FlushPolicy everyEvent = new FlushPolicy(java.time.Duration.ofHours(1), 1, Long.MAX_VALUE);
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t_APPEND"));
    ChangelogDelivery d = new ChangelogDelivery(sub, table,
        DeliveryContext.of(everyEvent, new QuarantineStore(storage)).withBackoff(pauses::add).withClock(clock));
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    assertTrue(d.flushDue(clock.millis()));
    storage.failNextCommits(1000, Fault.FAIL_BEFORE_WRITE);
    // The poll loop's budget is spent: no backoff may run past it.
    assertThrows(RetryableException.class, () -> d.flush(clock.millis()));
    assertEquals(List.of(), pauses, "no wait past the deadline");
    assertEquals(1, d.bufferedEvents(), "the buffer is kept");
    assertFalse(d.flushDue(clock.millis()), "not tried again at once by the next loop");
    clock.advance(BufferedDelivery.RETRY_AFTER);
    assertTrue(d.flushDue(clock.millis()), "tried again after the wait");
    assertTrue(d.state().delivering());
  }

  @Test
  void aRetryIgnoresOffsetsAnotherSubscriptionStoredInTheOtherModesTable() {
    // Two Connect connectors on one topic, one per mode, write t_APPEND and t. The other mode's
    // table is read at start (a mode switch continues where it stopped); during a retry it must
    // not make these events look delivered: only this table's log says what landed here.
    DeltaTable merged = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t"));
    DeltaTable appended = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t_APPEND"));
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withBackoff(pauses::add);
    ChangelogDelivery d = new ChangelogDelivery(sub, appended, merged, context);
    d.accept(event("t", 1, 0, Operation.CREATE, 1L, row("id", 9L)));
    d.flush(); // t_APPEND exists
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 0L)));
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    ChangelogDelivery other = new ChangelogDelivery(sub,
        new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t")), context);
    other.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 0L)));
    other.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    other.flush(); // t stores partition 0 up to offset 2
    storage.failNextCommits(DeltaTable.MAX_REBASES + 1, Fault.FAIL_BEFORE_WRITE); // one failed attempt
    assertEquals(Map.of(new SourcePartition("t", 0), 2L), d.flush());
    assertEquals(1, pauses.size(), "retried once");
    assertEquals(3, rows().size(), "partition 0's two events are in t_APPEND, not only in t");
  }

  @Test
  void aFailureNoRetryCanFixFailsTheTable() {
    ChangelogDelivery d = delivery();
    firstCommit(d);
    d.accept(event("t", 0, 1, Operation.CREATE, 2L, row("id", 1L)));
    storage.failNextCommits(1, Fault.BROKEN);
    assertThrows(TableFailureException.class, d::flush);
    assertFalse(d.state().delivering());
    assertEquals(1, rows().size());
  }

  @Test
  void eventsTheLogAlreadyHoldsAreNotWrittenAgain() {
    ChangelogDelivery first = delivery();
    first.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 0L)));
    first.accept(event("t", 0, 1, Operation.CREATE, 1L, row("id", 1L)));
    first.flush();
    ChangelogDelivery restarted = delivery();
    restarted.storedOffsets(List.of(new SourcePartition("t", 0)));
    restarted.accept(event("t", 0, 1, Operation.CREATE, 1L, row("id", 1L)));
    restarted.accept(event("t", 0, 2, Operation.CREATE, 1L, row("id", 2L)));
    assertEquals(1, restarted.bufferedEvents());
    restarted.flush();
    assertEquals(3, rows().size());
  }
}
