package io.lakesink.currentstate;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.LoggedCommits;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kept table's follows off the changelog's commit path: on the follower's thread, coalesced,
 * failing on their own, stopped with the worker and by a rebalance, taking turns with the kept
 * table's optimize. A follow is held at its commit by a hook the test opens: no sleeps.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CurrentStateFollowerTest {
  static final List<String> KEY = List.of("id");
  static final Duration WAIT = Duration.ofSeconds(120);
  static final SourcePartition P0 = new SourcePartition("t", 0);

  @TempDir Path dir;
  LocalStorage storage;
  Engine engine;
  DeliveryContext context;
  /** Follows (counted from 1) to hold at their commit until {@link #open} is counted down. */
  final java.util.Set<Integer> hold = java.util.concurrent.ConcurrentHashMap.newKeySet();
  final AtomicInteger follows = new AtomicInteger();
  final CountDownLatch held = new CountDownLatch(1);
  final CountDownLatch open = new CountDownLatch(1);
  /** Follows (counted from 1) that crash at their commit. */
  final java.util.Set<Integer> crash = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @BeforeEach
  void setUp() {
    storage = new LocalStorage(dir, "lakesink");
    engine = KernelEngine.create(storage);
    context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));
  }

  @AfterEach
  void openHeldFollows() {
    open.countDown();
  }

  ChangelogDelivery delivery() {
    return delivery(context);
  }

  ChangelogDelivery delivery(DeliveryContext context) {
    CurrentStateTable kept = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, (table, step) -> {
          int n = follows.incrementAndGet();
          if (crash.contains(n)) {
            throw new IllegalStateException("injected crash between the changelog's commit and the table's");
          }
          if (hold.contains(n)) {
            held.countDown();
            await(open);
          }
        }, Clock.systemUTC());
    return new ChangelogDelivery(new Subscription("t", "t", DeliveryMode.CHANGELOG, KEY, SourceFormat.JSON, true),
        new DeltaTable(engine, storage.tableLocation("t_APPEND")), null, context, kept);
  }

  static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS), "waited " + WAIT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void commit(ChangelogDelivery d, long offset, Operation op, long id, String v) {
    d.accept(event("t", 0, offset, op, 10 + offset, row("id", id, "v", v)));
    d.flush();
  }

  static void followed(ChangelogDelivery d) {
    assertTrue(d.keptFollower().orElseThrow().awaitIdle(WAIT), "the follows end within " + WAIT);
  }

  Map<Long, String> kept() {
    Map<Long, String> out = new TreeMap<>();
    DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t"))).forEach(r -> out.put((Long) r.get("id"), (String) r.get("v")));
    return out;
  }

  /** What the current-state view returns over the changelog as it is. */
  Map<Long, String> view() {
    Map<Long, String> out = new TreeMap<>();
    CurrentState.collapse(DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t_APPEND"))), KEY, true)
        .forEach(r -> out.put((Long) r.get("id"), (String) r.get("v")));
    return out;
  }

  long changelogVersion() {
    return new DeltaTable(engine, storage.tableLocation("t_APPEND")).version();
  }

  CurrentStateTable.Progress progress(ChangelogDelivery d) {
    return d.keptTable().orElseThrow().progress();
  }

  @Test
  void changelogCommitsDuringAFollowAreAppliedByOneMoreFollow() {
    ChangelogDelivery d = delivery();
    hold.add(1);
    commit(d, 0, Operation.CREATE, 1, "a");
    await(held); // the first follow is at its commit; the changelog goes on meanwhile
    commit(d, 1, Operation.CREATE, 2, "b");
    commit(d, 2, Operation.UPDATE, 1, "a2");
    commit(d, 3, Operation.DELETE, 2, "b");
    commit(d, 4, Operation.CREATE, 3, "c");
    assertEquals(0, d.keptTable().orElseThrow().commits(), "the changelog's commits did not wait for the follow");
    assertEquals("behind", progress(d).state());
    assertEquals(changelogVersion() + 1, progress(d).lagVersions(), "/status counts the commits not followed yet: " + progress(d));
    open.countDown();
    followed(d);
    assertEquals(2, d.keptTable().orElseThrow().commits(), "four changelog commits during one follow cost one more follow");
    assertEquals(Map.of(1L, "a2", 3L, "c"), kept());
    assertEquals(view(), kept());
    assertEquals(changelogVersion(), progress(d).reflectedVersion());
    assertEquals("current", progress(d).state());
    assertEquals(0, progress(d).lagVersions());
  }

  /**
   * A commit's follow runs beside the changelog's write of its rows, and commits only once that
   * commit landed: when the changelog's commit fails, the table is left as it was, with no commit
   * claiming rows the changelog never committed.
   */
  @Test
  void aFollowBesideTheChangelogsWriteCommitsOnlyWhatTheChangelogCommitted() {
    AtomicInteger changelogCommits = new AtomicInteger();
    ChangelogDelivery d = delivery(context.withHook((table, step) -> {
      if (step == io.lakesink.delivery.FlushStep.BEFORE_COMMIT && changelogCommits.incrementAndGet() == 3) {
        throw new IllegalStateException("injected failure of the changelog's commit");
      }
    }));
    CurrentStateTable kept = d.keptTable().orElseThrow();
    commit(d, 0, Operation.CREATE, 1, "a");
    followed(d);
    commit(d, 1, Operation.CREATE, 2, "b");
    followed(d);
    assertEquals(1, kept.earlyFollows(), "the second commit was followed beside its write (the first made the table)");
    assertEquals(Map.of(1L, "a", 2L, "b"), kept());
    long changelogBefore = changelogVersion();
    long tableBefore = new DeltaTable(engine, storage.tableLocation("t")).version();
    d.accept(event("t", 0, 2, Operation.UPDATE, 12L, row("id", 1L, "v", "a2")));
    assertThrows(RuntimeException.class, d::flush, "the changelog's third commit fails");
    followed(d);
    assertEquals(changelogBefore, changelogVersion(), "nothing of it landed");
    assertEquals(tableBefore, new DeltaTable(engine, storage.tableLocation("t")).version(),
        "the follow beside it committed nothing either");
    assertEquals(Map.of(1L, "a", 2L, "b"), kept(), "the table holds no row the changelog does not");
    assertEquals(view(), kept());
    assertEquals(1, kept.earlyFollows());
    assertEquals(changelogBefore, progress(d).reflectedVersion());
  }

  @Test
  void aFollowThatFailsAfterTheChangelogsCommitIsCaughtUpByTheNextOne() {
    ChangelogDelivery d = delivery();
    commit(d, 0, Operation.CREATE, 1, "a");
    followed(d);
    crash.add(2);
    commit(d, 1, Operation.UPDATE, 1, "a2");
    followed(d);
    assertTrue(d.state().delivering(), "the changelog's commit stands");
    assertEquals("retrying", progress(d).state());
    assertEquals(1, progress(d).lagVersions());
    assertEquals(Map.of(1L, "a"), kept());
    commit(d, 2, Operation.CREATE, 2, "b");
    followed(d);
    assertEquals(Map.of(1L, "a2", 2L, "b"), kept());
    assertEquals("current", progress(d).state());
  }

  @Test
  void aStopDuringAFollowAbandonsItAndTheNextStartCatchesUp() {
    ChangelogDelivery d = delivery();
    hold.add(1);
    commit(d, 0, Operation.CREATE, 1, "a");
    await(held);
    // The worker stops while the follow waits at its commit: the stop gives up waiting.
    d.settle(Duration.ofMillis(100));
    commit(d, 1, Operation.CREATE, 2, "b"); // a last flush after the stop asks for no follow
    open.countDown();
    followed(d);
    assertEquals(1, d.keptTable().orElseThrow().commits(), "no follow started after the stop");
    assertEquals(Map.of(1L, "a"), kept(), "the abandoned follow ended on its own");
    ChangelogDelivery restarted = delivery();
    restarted.maintain(); // the worker's loop at start
    followed(restarted);
    assertEquals(Map.of(1L, "a", 2L, "b"), kept());
    assertEquals(view(), kept());
    assertEquals(changelogVersion(), progress(restarted).reflectedVersion());
  }

  @Test
  void aWorkerThatNoLongerWritesTheChangelogStopsFollowingIt() {
    ChangelogDelivery d = delivery();
    d.storedOffsets(List.of(P0));
    crash.add(1);
    commit(d, 0, Operation.CREATE, 1, "a");
    followed(d);
    assertEquals("retrying", progress(d).state(), "behind: the worker's loop would catch it up");
    d.discard(List.of(P0)); // revoked: another worker writes the changelog (and keeps the table) from now on
    d.maintain();
    followed(d);
    assertEquals(0, d.keptTable().orElseThrow().commits(), "a worker that writes none of the changelog does not follow it");
    assertEquals(-1, progress(d).reflectedVersion());
    d.storedOffsets(List.of(P0)); // assigned back
    followed(d);
    assertEquals(Map.of(1L, "a"), kept());
    assertEquals("current", progress(d).state());
  }

  @Test
  void aFollowAndAnOptimizeOfTheKeptTableTakeTurns() {
    context = context.withMaintenance(new MaintenancePolicy(true, MaintenanceSettings.DEFAULT.withTriggers(1, 1_000, 1_000),
        Runnable::run)); // optimize due after every commit of the table; the step runs inline, on the loop's thread
    ChangelogDelivery d = delivery();
    commit(d, 0, Operation.CREATE, 1, "a");
    commit(d, 1, Operation.CREATE, 2, "b");
    followed(d);
    hold.add(follows.get() + 1);
    commit(d, 2, Operation.UPDATE, 1, "a2");
    long heldVersion = changelogVersion(); // before the loop below optimizes the changelog too
    await(held);
    DeltaTable keptTable = new DeltaTable(engine, storage.tableLocation("t"));
    d.maintain(); // the optimize is due, but a follow runs: its step waits for it
    assertEquals(0, optimizeCommits(keptTable), "no step started while a follow ran");
    commit(d, 3, Operation.UPDATE, 2, "b2");
    open.countDown();
    followed(d);
    assertEquals(heldVersion, progress(d).reflectedVersion(), "the held follow committed; the next one waits for the step that"
        + " asked first");
    d.maintain(); // the step goes first, then the follow
    followed(d);
    assertTrue(optimizeCommits(keptTable) > 0, "the optimize committed");
    assertEquals(changelogVersion(), progress(d).reflectedVersion(), "then the follow");
    assertEquals(view(), kept());
    assertEquals("current", progress(d).state(), "no follow lost to the optimize");
  }

  private static long optimizeCommits(DeltaTable table) {
    table.refresh();
    return LoggedCommits.since(table, -1).stream().filter(c -> !c.changesData() && !c.addedOther().isEmpty()).count();
  }

  @Test
  void theWorkerWaitsForTheFollowsOfItsLastFlushAtStop() {
    ChangelogDelivery d = delivery();
    commit(d, 0, Operation.CREATE, 1, "a");
    commit(d, 1, Operation.CREATE, 2, "b");
    d.settle(WAIT);
    assertFalse(progress(d).lagVersions() > 0, "the table reflects the last flush: " + progress(d));
    assertEquals(view(), kept());
  }

  /**
   * An optimize step of the kept table holds the follower when the last flush commits: the stop
   * waits for the step to end, then for that follow, so a worker stopping at the end of its input
   * leaves the table current (the stop used to count a held follow as done and leave it behind).
   */
  @Test
  void theWorkerWaitsAtStopForAFollowHeldByAnOptimizeStep() throws InterruptedException {
    ChangelogDelivery d = delivery();
    commit(d, 0, Operation.CREATE, 1, "a");
    followed(d);
    CurrentStateFollower follower = d.keptFollower().orElseThrow();
    assertTrue(follower.tryHold(), "a step holds the table");
    commit(d, 1, Operation.CREATE, 2, "b"); // its follow waits for the step
    Thread stopping = new Thread(() -> d.settle(WAIT));
    stopping.start();
    // The step ends once the stop waits (or has returned, which is what the test catches).
    while (stopping.isAlive() && stopping.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }
    follower.release();
    stopping.join();
    assertEquals(0, progress(d).lagVersions(), "the held follow ran before the stop: " + progress(d));
    assertEquals(view(), kept());
  }

  /** A step that asked for its turn while a follow ran does not start after the stop: the follow waiting behind it runs. */
  @Test
  void theWorkerWaitsAtStopForAFollowBehindAStepThatWillNotStart() {
    ChangelogDelivery d = delivery();
    commit(d, 0, Operation.CREATE, 1, "a");
    followed(d);
    hold.add(follows.get() + 1);
    commit(d, 1, Operation.CREATE, 2, "b");
    await(held); // a follow runs, held at its commit
    CurrentStateFollower follower = d.keptFollower().orElseThrow();
    assertFalse(follower.tryHold(), "the step waits for the follow that runs, and goes next");
    commit(d, 2, Operation.UPDATE, 1, "a2"); // its follow waits behind the step
    open.countDown();
    d.settle(WAIT);
    assertEquals(0, progress(d).lagVersions(), "the follow behind the step ran: " + progress(d));
    assertEquals(view(), kept());
  }
}
