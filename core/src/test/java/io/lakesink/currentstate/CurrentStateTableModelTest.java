package io.lakesink.currentstate;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ChangeModel;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random change streams go into a changelog (real Delta tables through {@link ChangelogDelivery})
 * with the current-state table kept beside it. After every step the table must equal the view's
 * result over the changelog as it stands (the view's rules applied in memory, {@link
 * CurrentState#collapse}), row for row, and at the end an independent replay of the stream in
 * source order. Crashes are injected between the changelog's commit and the table's (the
 * follower dies with its files written and uncommitted, and a new one starts on fresh table
 * handles), the follower sometimes skips a few changelog commits, then catches up in steps, and
 * the changelog's own optimize packs its files between follows.
 */
public class CurrentStateTableModelTest {
  @TempDir Path dir;

  static final List<String> KEY = List.of("k1", "k2");
  /**
   * One string column: what a JSON topic without a schema is keyed on (every column a string).
   * Merges and follows take their own ways for it (LatestChanges, Utf8Keys).
   */
  static final List<String> STRING_KEY = List.of("k2");
  /** The view's columns the table must match. */
  static final List<String> VIEW_COLUMNS = List.of("k1", "k2", "v", "amount", "__op", "__ts_ms");

  /** Thrown by the hook: the follower's process dies there. */
  static final class Crash extends RuntimeException {
    Crash() {
      super("injected crash");
    }
  }

  /**
   * Changes as Kafka delivers them: offsets grow per partition, source times out of order (also
   * within a key), tied and sometimes unknown, keys that move between partitions (so an older
   * change of a key, a delete's too, is read after a newer one), deletes, re-inserts, and now and
   * then a truncate on one partition.
   */
  public static List<ChangeEvent> stream(Random random, int n) {
    return stream(random, n, false);
  }

  /**
   * @param oneStringKey whether {@code k2} alone identifies a key ({@link #STRING_KEY}): it
   *     holds {@code k1} too, so the keys are the same as on {@code k1}/{@code k2}, spelt
   *     {@code 3} or {@code 03}: an integer's text (held as that integer by the follow's indexes)
   *     and another text of the same number, two keys
   */
  static List<ChangeEvent> stream(Random random, int n, boolean oneStringKey) {
    List<ChangeEvent> events = new ArrayList<>();
    Map<List<Object>, Boolean> live = new HashMap<>();
    Map<List<Object>, Integer> partitionOf = new HashMap<>();
    long[] offsets = new long[3];
    for (int i = 0; i < n; i++) {
      Long ts = random.nextInt(20) == 0 ? null : (long) (i / 4 + random.nextInt(8));
      if (random.nextInt(60) == 0) {
        int p = random.nextInt(3);
        events.add(ChangeEvent.truncate(new SourcePosition("t", p, offsets[p]++), ts, 10));
        live.clear();
        continue;
      }
      long k1 = random.nextInt(10);
      boolean second = random.nextBoolean();
      String k2 = oneStringKey ? (second ? "0" : "") + k1 : second ? "b" : "a";
      List<Object> key = List.of(k1, k2);
      int partition = partitionOf.merge(key, (int) (k1 % 3), (p, init) -> random.nextInt(6) == 0 ? random.nextInt(3) : p);
      Operation op;
      if (!live.getOrDefault(key, false)) {
        op = random.nextInt(4) == 0 ? Operation.READ : Operation.CREATE;
      } else {
        op = random.nextInt(3) == 0 ? Operation.DELETE : Operation.UPDATE;
      }
      live.put(key, op != Operation.DELETE);
      // Now and then a snapshot row stamped when it was read, later than the key's changes after it.
      Long stamped = op == Operation.READ && ts != null && random.nextBoolean() ? Long.valueOf(ts + ChangeModel.SNAPSHOT_READ_LATE) : ts;
      String v = random.nextInt(5) == 0 ? null : "v" + i;
      Long amount = random.nextInt(5) == 0 ? 0L : (long) random.nextInt(1000);
      events.add(event("t", partition, offsets[partition]++, op, stamped, row("k1", k1, "k2", k2, "v", v, "amount", amount)));
    }
    return events;
  }

  /** The model ({@link ChangeModel}): the stream replayed in rank order; a delete removes the key, a truncate every key. */
  static Map<String, String> replay(List<ChangeEvent> events) {
    return ChangeModel.replay(events);
  }

  /** Rows by key, the view's columns only; fails on two rows of one key. */
  static Map<String, Map<String, Object>> byKey(List<Map<String, Object>> rows) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      Map<String, Object> viewed = new LinkedHashMap<>();
      VIEW_COLUMNS.forEach(c -> viewed.put(c, r.get(c)));
      Object previous = out.put(r.get("k1") + "/" + r.get("k2"), viewed);
      assertEquals(null, previous, "one row per key");
    }
    return out;
  }

  static Map<String, String> values(Map<String, Map<String, Object>> rows) {
    Map<String, String> out = new TreeMap<>();
    rows.forEach((k, r) -> out.put(k, r.get("v") + "," + r.get("amount")));
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void theTableEqualsTheViewAfterEveryStepThroughCrashes(int seed) {
    check(seed, KEY);
  }

  /** The same streams as the first seeds above (the same draws), on one string key. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void theTableEqualsTheViewOnOneStringKey(int seed) {
    check(seed, STRING_KEY);
  }

  /**
   * The same streams with the follower's thread running, as in the worker: each commit's follow
   * starts beside the changelog's write of its rows and commits once that commit landed ({@link
   * CurrentStateTable#followEarly}), or, when it cannot (the changelog optimized in between, a
   * restart), an ordinary follow applies the commit after it; crashes hit whichever follow commits.
   */
  @ParameterizedTest
  // Seeds whose runs crash, optimize the changelog and follow beside the write each at least once.
  @ValueSource(ints = {1, 3, 4, 6, 7, 9})
  void theTableEqualsTheViewWhenEachFollowRunsBesideItsWrite(int seed) {
    check(seed, seed % 2 == 0 ? STRING_KEY : KEY, true);
  }

  private void check(int seed, List<String> key) {
    check(seed, key, false);
  }

  /** @param beside whether the follower's thread follows each commit as the worker's does, beside the write */
  private void check(int seed, List<String> key, boolean beside) {
    Random random = new Random(seed);
    List<ChangeEvent> events = stream(random, 160, key.equals(STRING_KEY));
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    var engine = KernelEngine.create(storage);
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));
    Subscription subscription = new Subscription("t", "t", DeliveryMode.CHANGELOG, key, SourceFormat.JSON, true);
    // Half the runs hand each commit's rows to the follower in memory, as the worker does
    // (WrittenRows); the others read every file back.
    boolean handOver = random.nextBoolean() || beside;
    boolean[] crashNext = {false};
    CurrentStateTable.Hook hook = (table, step) -> {
      if (crashNext[0]) {
        crashNext[0] = false;
        throw new Crash();
      }
    };
    CurrentStateTable follower = follower(engine, storage, hook, random, key);
    ChangelogDelivery delivery = delivery(subscription, engine, storage, context, handOver ? follower : null, beside);
    int handed = 0;
    long early = 0;
    int crashes = 0;
    int steps = 0;
    int optimized = 0;
    int i = 0;
    while (i < events.size()) {
      int batch = 1 + random.nextInt(random.nextBoolean() ? 5 : 25);
      for (int j = 0; j < batch && i < events.size(); j++, i++) {
        delivery.accept(events.get(i));
      }
      boolean crashing = false;
      if (beside) {
        crashNext[0] = random.nextInt(4) == 0;
        crashing = crashNext[0];
      }
      long earlyBefore = follower.earlyFollows();
      delivery.flush();
      if (beside) {
        assertTrue(delivery.keptFollower().orElseThrow().awaitIdle(Duration.ofMinutes(2)), "the follows end");
        early += follower.earlyFollows() - earlyBefore;
      }
      if (random.nextInt(6) == 0) {
        // The changelog's maintenance packs its files (dataChange false): rows the table reflects
        // already and rows it does not may now share a file.
        new TableMaintenance("t_APPEND", new DeltaTable(engine, storage.tableLocation("t_APPEND")), List.of(),
            MaintenanceSettings.DEFAULT, Clock.systemUTC(), line -> {}).optimize(false);
        optimized++;
      }
      if (!beside && random.nextInt(4) == 0 && i < events.size()) {
        continue; // the follower falls behind: the next follow applies several changelog commits
      }
      boolean current;
      if (beside) {
        // The follower's thread has followed the commit already (or failed at the crash): this
        // follow has nothing left to apply, unless the crash was that follow's.
        if (crashing) {
          assertFalse(crashNext[0], "the crash hit the follow of the commit");
          assertEquals("retrying", follower.progress().state(), "the crash is a failure of this follow");
        }
        crashNext[0] = false;
        current = follower.follow();
      } else {
        crashNext[0] = random.nextInt(4) == 0;
        crashing = crashNext[0];
        current = follower.follow();
        if (crashing) {
          assertEquals("retrying", follower.progress().state(), "the crash is a failure of this follow");
        }
      }
      if (crashing) {
        crashes++;
        follower = follower(engine, storage, hook, random, key); // the worker restarts: fresh handles, nothing in memory
        delivery = delivery(subscription, engine, storage, context, handOver ? follower : null, beside);
        current = follower.follow();
      }
      handed += follower.lastApplied().handed();
      CurrentStateTable f0 = follower; assertTrue(current, () -> "caught up: " + f0.progress() + " " + f0.refusal());
      List<Map<String, Object>> changelog = DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t_APPEND")));
      Map<String, Map<String, Object>> view = byKey(CurrentState.collapse(changelog, key, true));
      Map<String, Map<String, Object>> table = byKey(DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t"))));
      assertEquals(view, table, "after " + i + " events (seed " + seed + ")");
      CurrentStateTable.Progress progress = follower.progress();
      assertEquals(0, progress.lagVersions());
      assertEquals(progress.changelogVersion(), progress.reflectedVersion());
      steps++;
    }
    assertEquals(replay(events), values(byKey(DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t"))))));
    assertTrue(crashes > 0 && steps > crashes, "crashes " + crashes + " in " + steps + " steps");
    assertTrue(optimized > 0, "the changelog was optimized between follows");
    assertEquals(handOver, handed > 0, "files applied from the rows handed over: " + handed);
    if (beside) {
      assertTrue(early > 0, "commits followed beside their write: " + early + " of " + steps);
    }
  }

  /**
   * The changelog's delivery; with {@code kept}, it hands its commits' rows to that table as the
   * worker's does, and the test calls its follows itself (the follower thread is paused).
   */
  private static ChangelogDelivery delivery(Subscription subscription, io.delta.kernel.engine.Engine engine, LocalStorage storage,
      DeliveryContext context, CurrentStateTable kept, boolean followerRuns) {
    DeltaTable changelog = new DeltaTable(engine, storage.tableLocation("t_APPEND"));
    if (kept == null) {
      return new ChangelogDelivery(subscription, changelog, context);
    }
    ChangelogDelivery delivery = new ChangelogDelivery(subscription, changelog, null, context, kept);
    if (!followerRuns) {
      delivery.keptFollower().orElseThrow().pause();
    } else {
      delivery.keptFollower().orElseThrow().resume();
    }
    return delivery;
  }

  /** A follower on fresh table handles; catch-ups sometimes in steps of a few rows. */
  private static CurrentStateTable follower(io.delta.kernel.engine.Engine engine, LocalStorage storage, CurrentStateTable.Hook hook,
      Random random, List<String> key) {
    CurrentStateTable t = new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t")), key, hook, Clock.systemUTC());
    if (random.nextBoolean()) {
      t.maxRowsPerCommit = 1 + random.nextInt(20);
    }
    return t;
  }
}
