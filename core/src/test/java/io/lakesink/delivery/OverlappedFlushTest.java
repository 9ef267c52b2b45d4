package io.lakesink.delivery;

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
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.RetryableException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A changelog flush written on a writer thread while the caller keeps buffering: one batch in
 * flight per table, a failed batch back in front of the buffer in its order, and a batch whose
 * partitions were lost unable to land what their new owner wrote.
 */
@Timeout(120)
class OverlappedFlushTest {
  static final long WAIT_SECONDS = 60;
  @TempDir Path dir;
  final Subscription subscription =
      new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
  final SourcePartition p0 = new SourcePartition("t", 0);
  final SourcePartition p1 = new SourcePartition("t", 1);

  DeltaTable table() {
    LocalStorage s = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(s), s.tableLocation("t_APPEND"));
  }

  BufferedDelivery delivery(FlushHook hook, FlushWriters writers) {
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(new LocalStorage(dir, "lakesink")))
        .withHook(hook).withBackoff(ms -> {}).withWriters(writers);
    BufferedDelivery d = new ChangelogDelivery(subscription, table(), context);
    d.storedOffsets(List.of(p0, p1)); // as the worker does when the partitions are assigned
    return d;
  }

  static void read(BufferedDelivery d, int partition, long from, long to) {
    for (long o = from; o < to; o++) {
      d.accept(event("t", partition, o, Operation.UPDATE, 1000L + o, row("id", o, "v", partition * 1000 + o)));
    }
  }

  static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS), "timed out");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  List<Long> offsetsInTable(int partition) {
    List<Long> offsets = new ArrayList<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(table())) {
      if (((Number) r.get("__partition")).intValue() == partition) offsets.add(((Number) r.get("__offset")).longValue());
    }
    offsets.sort(null);
    return offsets;
  }

  static List<Long> range(long from, long to) {
    List<Long> l = new ArrayList<>();
    for (long o = from; o < to; o++) l.add(o);
    return l;
  }

  @Test
  void readingGoesOnWhileABatchIsInFlightAndItsOutcomeIsCollectedOnce() {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FlushHook stall = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && writing.getCount() > 0) {
        writing.countDown();
        await(release);
      }
    };
    BufferedDelivery d = delivery(stall, FlushWriters.pool(1));
    read(d, 0, 0, 10);
    d.startFlush(Long.MAX_VALUE); // returns with the batch on the writer thread
    await(writing);
    assertTrue(d.flushing());
    read(d, 0, 10, 25); // buffering goes on meanwhile
    assertEquals(25, d.bufferedEvents(), "in-flight events count until committed");
    assertFalse(d.flushDue(Long.MAX_VALUE), "one batch in flight per table");
    d.startFlush(Long.MAX_VALUE); // a no-op while one is in flight
    assertEquals(Optional.empty(), d.finishedFlush());
    release.countDown();
    assertEquals(Optional.of(Map.of(p0, 10L)), d.awaitFlush(System.currentTimeMillis() + WAIT_SECONDS * 1000));
    assertFalse(d.flushing());
    assertEquals(15, d.bufferedEvents());
    assertEquals(Map.of(p0, 25L), d.flush(), "the next batch starts where the first one ended");
    assertEquals(range(0, 25), offsetsInTable(0));
  }

  @Test
  void aFailedBatchGoesBackInFrontOfWhatWasReadSinceAndTheTableConverges() {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch readMore = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    FlushHook failing = (table, step) -> {
      if (step == FlushStep.BEFORE_WRITE && attempts.incrementAndGet() <= BufferedDelivery.MAX_ATTEMPTS) {
        if (attempts.get() == 1) {
          writing.countDown();
          await(readMore);
        }
        throw new RetryableException("storage is down (simulated)", null);
      }
    };
    BufferedDelivery d = delivery(failing, FlushWriters.pool(1));
    read(d, 0, 0, 10);
    read(d, 1, 0, 5);
    d.startFlush(Long.MAX_VALUE);
    await(writing);
    read(d, 0, 10, 20);
    read(d, 1, 5, 8);
    readMore.countDown();
    assertThrows(RetryableException.class, () -> d.awaitFlush(System.currentTimeMillis() + WAIT_SECONDS * 1000));
    assertFalse(d.flushDue(System.currentTimeMillis()), "retried after RETRY_AFTER, as a synchronous flush");
    List<String> order = new ArrayList<>();
    for (ChangeEvent e : d.buffered()) order.add(e.position().partition() + ":" + e.position().offset());
    List<String> expected = new ArrayList<>();
    range(0, 10).forEach(o -> expected.add("0:" + o));
    range(0, 5).forEach(o -> expected.add("1:" + o));
    range(10, 20).forEach(o -> expected.add("0:" + o));
    range(5, 8).forEach(o -> expected.add("1:" + o));
    assertEquals(expected, order, "the failed batch is back in front, in the order it was read");
    assertEquals(Map.of(p0, 20L, p1, 8L), d.flush());
    assertEquals(range(0, 20), offsetsInTable(0));
    assertEquals(range(0, 8), offsetsInTable(1));
  }

  /**
   * Partitions lost while their batch is in flight: the batch writes none of them in a later
   * attempt and reports no offset for them; its attempt already committing may land, and then the
   * fence refuses what the new owner wrote after reading the log before it landed.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aBatchInFlightForLostPartitionsCannotLandWhatTheirNewOwnerWrote(boolean ownerCommitsFirst) {
    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FlushHook stall = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && committing.getCount() > 0) {
        committing.countDown();
        await(release);
      }
    };
    BufferedDelivery zombie = delivery(stall, FlushWriters.pool(1));
    read(zombie, 0, 0, 10);
    zombie.startFlush(Long.MAX_VALUE);
    await(committing);
    zombie.discard(List.of(p0)); // lost: another member owns partition 0 now
    assertEquals(0, zombie.bufferedEvents() - 10, "only the batch in flight is left");

    BufferedDelivery owner = delivery(FlushHook.NONE, FlushWriters.SYNCHRONOUS); // read the log: starts at 0
    read(owner, 0, 0, 15);
    Optional<Map<SourcePartition, Long>> zombieOutcome;
    if (ownerCommitsFirst) {
      assertEquals(Map.of(p0, 15L), owner.flush());
      release.countDown(); // the zombie's commit is fenced, and it has nothing left to write
      zombieOutcome = zombie.awaitFlush(System.currentTimeMillis() + WAIT_SECONDS * 1000);
    } else {
      release.countDown(); // the zombie's attempt was already committing: it lands 0..9
      zombieOutcome = zombie.awaitFlush(System.currentTimeMillis() + WAIT_SECONDS * 1000);
      assertEquals(Map.of(p0, 15L), owner.flush(), "fenced, drops 0..9 and commits the rest");
    }
    assertEquals(Optional.of(Map.of()), zombieOutcome, "no offset of a lost partition reaches the group");
    assertEquals(0, zombie.bufferedEvents(), "nothing of the lost partition comes back");
    assertEquals(range(0, 15), offsetsInTable(0));
  }
}
