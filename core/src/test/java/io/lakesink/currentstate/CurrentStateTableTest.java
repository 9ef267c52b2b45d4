package io.lakesink.currentstate;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.TableStatus;
import io.lakesink.delivery.modes.Deliveries;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept current-state table's rules one at a time: restarts, truncates, refusals, status. */
class CurrentStateTableTest {
  @TempDir Path dir;
  LocalStorage storage;
  Engine engine;
  DeliveryContext context;
  static final List<String> KEY = List.of("id");
  /** Generous: a follow takes well under a second, but the machine may be busy. */
  static final java.time.Duration FOLLOW_TIMEOUT = java.time.Duration.ofSeconds(120);

  @BeforeEach
  void setUp() {
    storage = new LocalStorage(dir, "lakesink");
    engine = KernelEngine.create(storage);
    context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));
  }

  Subscription subscription(List<String> key) {
    return new Subscription("t", "t", DeliveryMode.CHANGELOG, key, SourceFormat.JSON, true);
  }

  /** The changelog's delivery keeping the table, as the worker wires it. */
  ChangelogDelivery delivery() {
    return (ChangelogDelivery) Deliveries.of(subscription(KEY), storage, engine, context, MergeSettings.DEFAULT, true);
  }

  /** A follower as a restarted worker makes it: fresh handles, nothing remembered. */
  CurrentStateTable follower() {
    return new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, CurrentStateTable.Hook.NONE, Clock.systemUTC());
  }

  Map<Long, String> kept() {
    Map<Long, String> out = new TreeMap<>();
    DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t")))
        .forEach(r -> out.put((Long) r.get("id"), (String) r.get("v")));
    return out;
  }

  static ChangeEvent change(int partition, long offset, Operation op, long ts, long id, String v) {
    return event("t", partition, offset, op, ts, row("id", id, "v", v));
  }

  void deliver(ChangelogDelivery d, ChangeEvent... events) {
    for (ChangeEvent e : events) {
      d.accept(e);
    }
    d.flush();
    followed(d);
  }

  /** Waits for the follows the changelog's commits (or the worker's loop) asked for: they run on the follower's thread. */
  static void followed(ChangelogDelivery d) {
    d.keptFollower().ifPresent(f -> assertTrue(f.awaitIdle(FOLLOW_TIMEOUT), "the follows end within " + FOLLOW_TIMEOUT));
  }

  /** The worker's loop once, then its follow. */
  static void maintain(ChangelogDelivery d) {
    d.maintain();
    followed(d);
  }

  @Test
  void anOlderChangeReadAfterADeleteAndARestartDoesNotBringTheKeyBack() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"), change(0, 1, Operation.CREATE, 10, 2, "b"));
    // Key 1 moved to partition 1 and was deleted there at 30; partition 0 still holds an update at 20.
    deliver(d, change(1, 0, Operation.DELETE, 30, 1, "a"));
    assertEquals(Map.of(2L, "b"), kept());
    // The worker restarts (nothing in memory), then reads the older update of key 1.
    ChangelogDelivery restarted = delivery();
    deliver(restarted, change(0, 2, Operation.UPDATE, 20, 1, "older"), change(0, 3, Operation.UPDATE, 40, 2, "b2"));
    assertEquals(Map.of(2L, "b2"), kept(), "the view's latest change of key 1 is its delete");
    // A change ranked above the delete brings it back, as in the view.
    deliver(restarted, change(0, 4, Operation.CREATE, 50, 1, "again"));
    assertEquals(Map.of(1L, "again", 2L, "b2"), kept());
  }

  /** A commit of a tombstone's position alone is followed like any other: the table stays current, its rows unchanged. */
  @Test
  void aCommitOfPositionsAloneLeavesTheKeptTableCurrent() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"), change(0, 1, Operation.DELETE, 20, 1, "a"),
        change(0, 2, Operation.CREATE, 20, 2, "b"));
    d.skip(new io.lakesink.error.SourcePosition("t", 0, 3));
    assertEquals(Map.of(new io.lakesink.delivery.SourcePartition("t", 0), 4L), d.flush());
    followed(d);
    maintain(d);
    CurrentStateTable.Progress progress = d.keptFollower().orElseThrow().table().progress();
    assertEquals(0, progress.lagVersions(), "the kept table reflects the commit of the position: " + progress);
    assertEquals(Map.of(2L, "b"), kept());
  }

  /**
   * A follower remembers where the deletes it learnt of rank, instead of reading the changelog's
   * history again for each key it re-inserts; a delete applied by another worker's follow is not
   * among them, so a follower that finds the table moved on by another writer forgets them and
   * looks up again.
   */
  @Test
  void aDeleteAnotherWorkerAppliedIsLookedUpAgainNotTakenFromWhatThisFollowerRemembers() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    CurrentStateTable a = follower();
    CurrentStateTable b = follower();
    deliver(plain, change(0, 0, Operation.CREATE, 10, 1, "a"));
    assertTrue(a.follow()); // key 1 inserted: a learnt that it has no delete
    // Key 1 moved to partition 1 and was deleted there at 30: applied by the other worker's follow.
    deliver(plain, change(1, 0, Operation.DELETE, 30, 1, "a"));
    assertTrue(b.follow());
    assertEquals(Map.of(), kept());
    // Partition 0's older update (20) is read after the delete: the view's latest change of key 1 is the delete.
    deliver(plain, change(0, 1, Operation.UPDATE, 20, 1, "older"), change(0, 2, Operation.CREATE, 20, 2, "b"));
    assertTrue(a.follow());
    assertEquals(Map.of(2L, "b"), kept(), "key 1 stays deleted");
    // Learnt now: answered without reading the changelog, and still right.
    deliver(plain, change(0, 3, Operation.UPDATE, 25, 1, "older still"));
    long answered = a.deleteLookupsAnswered();
    assertTrue(a.follow());
    assertEquals(Map.of(2L, "b"), kept());
    assertEquals(answered + 1, a.deleteLookupsAnswered(), "key 1's delete came from what the follower learnt");
  }

  /**
   * A follower that built the table from the changelog's first version saw every delete pass
   * through its merges, a delete of a key the table never held too: it reads the changelog for
   * none, and an older change of a deleted key read later still does not bring the key back. A
   * restarted follower knows nothing of the deletes before it: it looks them up.
   */
  @Test
  void aTableBuiltFromTheFirstVersionLooksUpNoDeleteAndItsDeletesStayDeleted() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    CurrentStateTable a = follower();
    // Key 5 created and deleted within one commit: the table never holds it.
    deliver(plain, change(0, 0, Operation.CREATE, 10, 5, "a"), change(0, 1, Operation.DELETE, 15, 5, "a"),
        change(0, 2, Operation.CREATE, 10, 1, "x"));
    assertTrue(a.follow());
    assertTrue(a.knowsEveryDelete());
    assertEquals(0, a.deleteFilesRead(), "key 1 is new, and no changelog file was read to learn that it has no delete");
    assertEquals(Map.of(1L, "x"), kept());
    // Key 5 moved to partition 1, whose older create (12) is read only now: the view's latest change of key 5 is its delete (15).
    deliver(plain, change(1, 0, Operation.CREATE, 12, 5, "older"), change(1, 1, Operation.CREATE, 20, 2, "y"));
    assertTrue(a.follow());
    assertEquals(Map.of(1L, "x", 2L, "y"), kept(), "key 5 stays deleted");
    assertEquals(0, a.deleteFilesRead());
    CurrentStateTable restarted = follower();
    deliver(plain, change(1, 2, Operation.CREATE, 13, 5, "older still"));
    assertTrue(restarted.follow());
    assertFalse(restarted.knowsEveryDelete(), "the table held rows before this follower's first follow");
    assertTrue(restarted.deleteFilesRead() > 0, "key 5's delete is looked up in the changelog");
    assertEquals(Map.of(1L, "x", 2L, "y"), kept());
  }

  /**
   * A first catch-up commits its steps before it reflects a version: after a crash in it, the
   * table reflects none and still holds the earlier steps' rows, whose deletes the next follower
   * never saw. It looks deletes up.
   */
  @Test
  void aFollowerAfterACrashInTheFirstCatchUpLooksDeletesUp() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    deliver(plain, change(0, 0, Operation.CREATE, 10, 1, "a"), change(0, 1, Operation.CREATE, 10, 2, "b"));
    deliver(plain, change(0, 2, Operation.DELETE, 20, 1, "a"));
    deliver(plain, change(0, 3, Operation.UPDATE, 30, 2, "b2"));
    int[] commits = {0};
    CurrentStateTable crashing = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, (table, step) -> {
          if (++commits[0] == 2) {
            throw new IllegalStateException("injected crash before the second step's commit");
          }
        }, Clock.systemUTC());
    crashing.maxRowsPerCommit = 1; // a step per changelog file
    assertFalse(crashing.follow());
    assertEquals(Map.of(1L, "a", 2L, "b"), kept(), "the first step committed");
    assertEquals(-1, crashing.progress().reflectedVersion());
    CurrentStateTable next = follower();
    next.maxRowsPerCommit = 1;
    assertTrue(next.follow());
    assertFalse(next.knowsEveryDelete(), "the table held rows before this follower's first follow");
    assertEquals(Map.of(2L, "b2"), kept());
  }

  /** A follow that fails may have committed without folding its deletes in: keys are looked up again after it, unless the table is still empty. */
  @Test
  void aFailedFollowNoLongerKnowsEveryDelete() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    boolean[] fail = {true};
    CurrentStateTable a = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, (table, step) -> {
          if (fail[0]) {
            fail[0] = false;
            throw new IllegalStateException("injected failure before the commit");
          }
        }, Clock.systemUTC());
    deliver(plain, change(0, 0, Operation.CREATE, 10, 1, "x"));
    assertFalse(a.follow());
    assertFalse(a.knowsEveryDelete());
    assertTrue(a.follow());
    assertTrue(a.knowsEveryDelete(), "the failed commit did not land: the table was still empty, built from the first version again");
    assertEquals(Map.of(1L, "x"), kept());
  }

  @Test
  void aTruncateHoldsAcrossARestart() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"), change(0, 1, Operation.CREATE, 12, 2, "b"));
    d.accept(ChangeEvent.truncate(new SourcePosition("t", 1, 0), 20L, 10));
    d.flush();
    followed(d);
    assertEquals(Map.of(), kept());
    ChangelogDelivery restarted = delivery();
    // Partition 0 still had changes from before the truncate (15) and one after it (25).
    deliver(restarted, change(0, 2, Operation.UPDATE, 15, 1, "before"), change(0, 3, Operation.CREATE, 25, 3, "after"));
    assertEquals(Map.of(3L, "after"), kept());
  }

  /**
   * Every flush's file holds both partitions, and partition 1's offsets lie far ahead of partition
   * 0's: by the files' statistics (one offset range per file) no commit of the catch-up could end
   * before the last file, and it would be held in memory at once. Read per partition, a commit
   * ends after every file, and key 0's changes (a snapshot-like row stamped later than the updates
   * after it in its partition) still end at its last update.
   */
  @Test
  void aLongCatchUpOfPartitionsWhoseOffsetsLieApartCommitsInSteps() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    Map<Long, String> expected = new TreeMap<>();
    long p0 = 0;
    for (int flush = 0; flush < 6; flush++) {
      for (int i = 0; i < 4; i++) {
        long id = 1 + flush * 4L + i;
        plain.accept(change(0, p0++, Operation.CREATE, 10, id, "a" + id));
        plain.accept(change(1, 1_000_000 + id, Operation.CREATE, 10, 1_000 + id, "b" + id));
        expected.put(id, "a" + id);
        expected.put(1_000 + id, "b" + id);
      }
      plain.accept(change(0, p0++, flush == 0 ? Operation.READ : Operation.UPDATE, 100 - flush, 0, "k" + flush));
      plain.flush();
    }
    expected.put(0L, "k5");
    CurrentStateTable t = follower();
    t.maxRowsPerCommit = 5;
    t.follow();
    assertEquals(expected, kept());
    assertEquals(6, t.commits(), "one commit per flush's file: " + t.commits());
  }

  /**
   * A step's size is counted in the changes it keeps, not the changelog rows it reads: a catch-up
   * over flushes that change the same few keys again and again applies all of them in one commit,
   * each key written once.
   */
  @Test
  void aCatchUpOverFewKeysCountsItsStepsInTheChangesItKeeps() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    long offset = 0;
    for (int flush = 0; flush < 6; flush++) {
      for (int i = 0; i < 4; i++) {
        plain.accept(change(0, offset, offset == 0 ? Operation.CREATE : Operation.UPDATE, 10 + offset, 1, "a" + offset));
        offset++;
        plain.accept(change(0, offset, offset == 1 ? Operation.CREATE : Operation.UPDATE, 10 + offset, 2, "b" + offset));
        offset++;
      }
      plain.flush();
    }
    CurrentStateTable t = follower();
    t.maxRowsPerCommit = 5; // each flush reads 8 rows, and keeps 2 changes
    assertTrue(t.follow());
    assertEquals(Map.of(1L, "a46", 2L, "b47"), kept());
    assertEquals(1, t.commits(), "48 rows on two keys are one step: " + t.commits());
  }

  /**
   * A step also ends once its changes take more heap than allowed (wide rows), at the next file it
   * may end at; while it runs, what it holds is shown for the worker's buffer budget, and nothing
   * once it is done.
   */
  @Test
  void aCatchUpAlsoCommitsInStepsByTheHeapItsChangesTakeAndShowsWhatItHolds() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    Map<Long, String> expected = new TreeMap<>();
    for (int flush = 0; flush < 4; flush++) {
      for (int i = 0; i < 3; i++) {
        long id = flush * 3L + i;
        plain.accept(change(0, id, Operation.CREATE, 10, id, "v" + id));
        expected.put(id, "v" + id);
      }
      plain.flush();
    }
    List<Long> heldAtCommits = new java.util.ArrayList<>();
    CurrentStateTable[] t = new CurrentStateTable[1];
    t[0] = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, (table, step) -> heldAtCommits.add(t[0].heldHeapBytes()),
        Clock.systemUTC());
    t[0].maxBytesPerCommit = 1; // every file's changes are more than that
    assertTrue(t[0].follow());
    assertEquals(expected, kept());
    assertEquals(4, t[0].commits(), "one commit per flush's file (the rows alone would allow one): " + t[0].commits());
    assertEquals(4, heldAtCommits.size());
    assertTrue(heldAtCommits.stream().allMatch(b -> b > 3 * 100), "three changes and what the merge builds on them: " + heldAtCommits);
    assertEquals(0, t[0].heldHeapBytes(), "nothing held between follows");
  }

  /**
   * A catch-up reads the changelog's files with its latest columns: a file written before the
   * changelog gained a column reads it as null (the view shows null there too), and the rows
   * change into the same events whichever file they come from.
   */
  @Test
  void aCatchUpReadsFilesFromBeforeAColumnWasAddedAsNull() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    plain.accept(change(0, 0, Operation.CREATE, 10, 1, "a"));
    plain.accept(change(0, 1, Operation.CREATE, 10, 2, "b"));
    plain.flush();
    plain.accept(event("t", 0, 2, Operation.UPDATE, 20L, row("id", 2L, "v", "b2", "note", "new column")));
    plain.accept(event("t", 0, 3, Operation.CREATE, 20L, row("id", 3L, "v", "c", "note", "x")));
    plain.flush();
    CurrentStateTable t = follower();
    assertTrue(t.follow());
    Map<Long, String> notes = new TreeMap<>();
    DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t")))
        .forEach(r -> notes.put((Long) r.get("id"), r.get("v") + "/" + r.get("note")));
    assertEquals(Map.of(1L, "a/null", 2L, "b2/new column", 3L, "c/x"), notes);
  }

  @Test
  void aCrashBetweenTheTwoCommitsIsCaughtUpAtStart() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    // The changelog gains a commit the table never saw (the worker died between the two commits).
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    deliver(plain, change(0, 1, Operation.UPDATE, 11, 1, "b"), change(0, 2, Operation.CREATE, 11, 2, "c"));
    assertEquals(Map.of(1L, "a"), kept());
    ChangelogDelivery restarted = delivery();
    TableStatus before = restarted.status();
    assertNull(before.currentStateTable().get("reflected_version"), "nothing read yet");
    maintain(restarted); // the worker's loop at start
    assertEquals(Map.of(1L, "b", 2L, "c"), kept());
    Map<String, Object> status = restarted.status().currentStateTable();
    assertEquals("current", status.get("state"));
    assertEquals(0L, status.get("lag_versions"));
    assertEquals(status.get("changelog_version"), status.get("reflected_version"));
    assertEquals(2L, status.get("reflected_version"));
  }

  @Test
  void anotherEnginesWriteStopsTheTableAndTheChangelogKeepsFlowing() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    // Another writer appends a row to the kept table (no current-state transaction id).
    DeltaTable kept = new DeltaTable(engine, storage.tableLocation("t"));
    List<Column> columns = kept.columns().orElseThrow();
    Object[] foreign = new Object[columns.size()];
    foreign[0] = 9L;
    kept.commit(kept.prepareAppend(new AppendRequest(columns, List.of(), Map.of(), List.<Object[]>of(foreign), CommitOffsets.NONE,
        Map.of())));
    deliver(d, change(0, 1, Operation.CREATE, 11, 2, "b"));
    Map<String, Object> status = d.status().currentStateTable();
    assertEquals("stopped", status.get("state"));
    assertTrue(((String) status.get("reason")).contains("was written by another engine"), (String) status.get("reason"));
    assertTrue(d.state().delivering(), "the changelog keeps flowing");
    assertEquals(2, DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t_APPEND"))).size());
    assertFalse(kept().containsKey(2L), "the table is no longer written");
  }

  @Test
  void aTableLakesinkDoesNotKeepIsNeverWrittenOver() {
    // The subscription's former MERGE table (or another tool's) holds the path.
    DeltaTable other = new DeltaTable(engine, storage.tableLocation("t"));
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING));
    other.commit(other.prepareAppend(new AppendRequest(columns, List.of(), Map.of(), List.<Object[]>of(new Object[] {7L, "x"}),
        CommitOffsets.NONE, Map.of())));
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    Map<String, Object> status = d.status().currentStateTable();
    assertEquals("stopped", status.get("state"));
    assertTrue(((String) status.get("reason")).contains("lakesink never overwrites it"), (String) status.get("reason"));
    assertEquals(Map.of(7L, "x"), kept());
    assertTrue(d.state().delivering());
  }

  /** A catalog that records what it is asked to register, and refuses the names it is told to. */
  static final class RecordingCatalog implements io.lakesink.catalog.TableCatalog {
    final List<io.lakesink.catalog.CatalogTable> registered = new java.util.ArrayList<>();
    final java.util.Set<String> heldByOthers = new java.util.HashSet<>();

    @Override
    public void register(io.lakesink.catalog.CatalogTable table) {
      if (heldByOthers.contains(table.name())) {
        throw new io.lakesink.error.TableFailureException("the catalog holds a view " + table.name(), null, null);
      }
      registered.add(table);
    }

    @Override
    public String describe() {
      return "recording catalog";
    }
  }

  @Test
  void theKeptTableIsRegisteredAsATableUnderTheSubscriptionsName() {
    RecordingCatalog catalog = new RecordingCatalog();
    context = context.withCatalog(catalog).withCatalogExecutor(Runnable::run);
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    maintain(d);
    List<io.lakesink.catalog.CatalogTable> kept = catalog.registered.stream().filter(t -> t.name().equals("t")).toList();
    assertEquals(1, kept.size(), "registered once: " + catalog.registered);
    assertEquals(storage.tableLocation("t"), kept.get(0).location());
    assertEquals(List.of("id", "v", "__op", "__ts_ms", "__partition", "__offset", "__rank_ts_ms"), kept.get(0).columnNames());
    assertEquals(true, d.status().currentStateTable().get("registered"));
  }

  @Test
  void aNameTheCatalogHoldsForAnotherObjectStopsTheKeptTableOnly() {
    RecordingCatalog catalog = new RecordingCatalog();
    catalog.heldByOthers.add("t");
    context = context.withCatalog(catalog).withCatalogExecutor(Runnable::run);
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    maintain(d);
    Map<String, Object> status = d.status().currentStateTable();
    assertEquals("stopped", status.get("state"));
    assertTrue(((String) status.get("reason")).contains("the catalog holds a view t"));
    deliver(d, change(0, 1, Operation.CREATE, 11, 2, "b"));
    assertTrue(d.state().delivering(), "the changelog keeps flowing");
    assertEquals(Map.of(1L, "a"), kept());
  }

  @Test
  void theKeptTableIsOptimizedLikeAMergeTableAndStaysTheView() {
    context = context.withMaintenance(new io.lakesink.maintenance.MaintenancePolicy(true,
        io.lakesink.maintenance.MaintenanceSettings.DEFAULT.withTriggers(3, 1_000, 1), Runnable::run));
    ChangelogDelivery d = delivery();
    Map<Long, String> expected = new TreeMap<>();
    for (int commit = 0; commit < 8; commit++) {
      long id = commit % 3;
      deliver(d, change(0, commit, commit % 4 == 3 ? Operation.DELETE : Operation.UPDATE, 10 + commit, id, "v" + commit));
      if (commit % 4 == 3) {
        expected.remove(id);
      } else {
        expected.put(id, "v" + commit);
      }
      maintain(d); // the worker's loop: optimizes the kept table when due (here, on this thread)
    }
    DeltaTable kept = new DeltaTable(engine, storage.tableLocation("t"));
    assertTrue(io.lakesink.delta.LoggedCommits.since(kept, -1).stream()
        .anyMatch(c -> !c.changesData() && !c.addedOther().isEmpty()), "an optimize rewrote the kept table's files");
    assertEquals(expected, kept());
    deliver(d, change(0, 100, Operation.UPDATE, 100, 1, "after"));
    expected.put(1L, "after");
    assertEquals(expected, kept());
    assertEquals("current", d.status().currentStateTable().get("state"), "its own optimize is not another engine");
  }

  @Test
  void aFollowFindsTheRowsItReplacesWithoutReadingTheTableOnceItKnowsWhereItsKeysAre() {
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    CurrentStateTable kept = follower();
    Map<Long, String> expected = new TreeMap<>();
    deliver(plain, change(0, 0, Operation.CREATE, 10, 1, "a"), change(0, 1, Operation.CREATE, 10, 2, "b"),
        change(1, 0, Operation.CREATE, 10, 3, "c"), change(1, 1, Operation.CREATE, 10, 4, "d"));
    assertTrue(kept.follow());
    expected.putAll(Map.of(1L, "a", 2L, "b", 3L, "c", 4L, "d"));
    assertEquals(expected, kept());
    // Built from empty, the table's keys are where its commits wrote them: each commit moves
    // their locations on, and no file of the table is read, whatever the changes replace.
    deliver(plain, change(0, 2, Operation.UPDATE, 20, 1, "a2"), change(1, 2, Operation.DELETE, 20, 3, "c"));
    assertTrue(kept.follow());
    expected.put(1L, "a2");
    expected.remove(3L);
    assertEquals(expected, kept());
    assertTrue(kept.rowsLocated());
    assertEquals(0, kept.tableFilesRead());
    for (int round = 0; round < 4; round++) {
      long offset = 3 + 2 * round;
      deliver(plain, change(0, offset, Operation.UPDATE, 30 + round, 1, "a" + round),
          change(0, offset + 1, Operation.UPDATE, 30 + round, 2, "b" + round),
          change(1, offset, round % 2 == 0 ? Operation.CREATE : Operation.DELETE, 30 + round, 3, "c" + round),
          // An earlier time than key 4's row, but later in its partition: it wins, ranked at the row's time.
          change(1, offset + 1, Operation.UPDATE, 5, 4, "older" + round));
      assertTrue(kept.follow());
      expected.put(1L, "a" + round);
      expected.put(2L, "b" + round);
      if (round % 2 == 0) {
        expected.put(3L, "c" + round);
      } else {
        expected.remove(3L);
      }
      expected.put(4L, "older" + round);
      assertEquals(expected, kept(), "round " + round);
      assertTrue(kept.rowsLocated(), "round " + round);
      assertEquals(0, kept.tableFilesRead(), "round " + round);
    }
    // A restarted follower knows nothing: it reads the files once again.
    CurrentStateTable restarted = follower();
    deliver(plain, change(0, 20, Operation.UPDATE, 50, 2, "b5"));
    assertTrue(restarted.follow());
    expected.put(2L, "b5");
    assertEquals(expected, kept());
    assertTrue(restarted.tableFilesRead() > 0, "the locations are read from the files once");
    assertTrue(restarted.rowsLocated());
    // Another commit than its own (an optimize of the table) moves rows: read again, then moved on.
    DeltaTable table = new DeltaTable(engine, storage.tableLocation("t"));
    io.lakesink.maintenance.OptimizeResult optimized = new io.lakesink.maintenance.TableMaintenance("t", table, KEY,
        io.lakesink.maintenance.MaintenanceSettings.DEFAULT, Clock.systemUTC(), line -> {}).optimize(false);
    assertTrue(optimized.committed() && optimized.filesRewritten() > 0, optimized.toString());
    deliver(plain, change(0, 21, Operation.UPDATE, 60, 1, "a6"), change(0, 22, Operation.UPDATE, 60, 4, "d6"));
    assertTrue(restarted.follow());
    expected.put(1L, "a6");
    expected.put(4L, "d6");
    assertEquals(expected, kept());
    assertTrue(restarted.tableFilesRead() > 0, "the optimize's files are read");
    deliver(plain, change(0, 23, Operation.DELETE, 70, 1, "a6"), change(0, 24, Operation.CREATE, 70, 9, "i"));
    assertTrue(restarted.follow());
    expected.remove(1L);
    expected.put(9L, "i");
    assertEquals(expected, kept());
    assertEquals(0, restarted.tableFilesRead());
    assertTrue(restarted.rowsLocated());
  }

  @Test
  void aChangelogWithoutAKeyIsRefused() {
    // The kept table only: a quarantine record under its name, the changelog delivered as usual.
    BufferedDelivery refused = Deliveries.of(subscription(List.of()), storage, engine, context, MergeSettings.DEFAULT, true);
    assertTrue(refused.state().delivering(), refused.state().toString());
    assertEquals("stopped", refused.status().currentStateTable().get("state"));
    String reason = String.valueOf(refused.status().currentStateTable().get("reason"));
    assertTrue(reason.contains("Set primary_key"), reason);
    assertTrue(context.quarantine().load("t").orElseThrow().reason().contains("Set primary_key"));
    assertTrue(context.quarantine().load("t_APPEND").isEmpty(), "the changelog is not quarantined");
    BufferedDelivery withoutTable = Deliveries.of(subscription(List.of()), storage, engine, context, MergeSettings.DEFAULT, false);
    assertNull(withoutTable.status().currentStateTable());
  }

  @Test
  void twoFollowersOfOneChangelogBothEndCurrent() {
    ChangelogDelivery d = delivery();
    deliver(d, change(0, 0, Operation.CREATE, 10, 1, "a"));
    ChangelogDelivery plain = new ChangelogDelivery(subscription(KEY), new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        context);
    deliver(plain, change(1, 0, Operation.CREATE, 11, 2, "b"));
    CurrentStateTable first = follower();
    // The second has planned its commit on the same reflected version when the first commits:
    // its commit loses (fenced or conflicting), it reads the log again and finds nothing left to do.
    boolean[] raced = {false};
    CurrentStateTable second = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), KEY, (table, step) -> {
          if (!raced[0]) {
            raced[0] = true;
            assertTrue(first.follow());
          }
        }, Clock.systemUTC());
    assertTrue(second.follow());
    assertTrue(raced[0]);
    assertEquals(Map.of(1L, "a", 2L, "b"), kept());
    assertEquals("current", second.progress().state());
  }
}
