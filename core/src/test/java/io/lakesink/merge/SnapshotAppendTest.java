package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A snapshot goes into a MERGE table as appends while the worker knows every key the table may
 * hold ({@link TableKeys}), and never leaves two rows for one key: not when the connector
 * re-emits the snapshot from the start, not when the worker restarts mid-snapshot, not when
 * another writer or an optimize commits between two of its commits, not when an incremental
 * snapshot interleaves its reads with changes of the same keys. Keyed on an integer (held
 * exactly) and on two columns (held as hashes).
 */
class SnapshotAppendTest {
  @TempDir Path dir;

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table() {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation("t"));
  }

  static List<String> key(boolean integerKey) {
    return integerKey ? List.of("k1") : MergeModelTest.KEY;
  }

  /** A worker's MERGE delivery, as started afresh: it knows nothing of the table yet. */
  MergeDelivery worker(boolean integerKey) {
    Subscription s = new Subscription("t", "t", DeliveryMode.MERGE, key(integerKey), SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())),
        MergeSettings.DEFAULT);
  }

  /** Keys 0..n-1 in a scrambled order, as an unordered snapshot reads them. */
  static List<Long> scrambled(int n, long seed) {
    List<Long> keys = new ArrayList<>();
    for (long k = 0; k < n; k++) {
      keys.add(k);
    }
    Collections.shuffle(keys, new Random(seed));
    return keys;
  }

  /** The snapshot row of key {@code k}: k2 is "a" or "b" with the composite key, so both spellings occur. */
  static ChangeEvent read(long k, boolean integerKey, long offset, long ts, String v) {
    return event("t", 0, offset, Operation.READ, ts, row("k1", k, "k2", k2(k, integerKey), "v", v, "amount", k));
  }

  static String k2(long k, boolean integerKey) {
    return integerKey || k % 2 == 0 ? "a" : "b";
  }

  static void deliver(MergeDelivery d, List<ChangeEvent> events, int batch) {
    for (int i = 0; i < events.size(); i++) {
      d.accept(events.get(i));
      if ((i + 1) % batch == 0 || i == events.size() - 1) {
        d.flush();
      }
    }
  }

  static List<ChangeEvent> snapshot(List<Long> keys, boolean integerKey, long firstOffset, long ts, String v) {
    List<ChangeEvent> events = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      events.add(read(keys.get(i), integerKey, firstOffset + i, ts, v));
    }
    return events;
  }

  Map<String, String> state() {
    return MergeModelTest.table(DeltaTableReader.readAll(table())); // fails on two rows for one key
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aSnapshotReEmittedFromTheStartAfterAConnectorRestartLeavesOneRowPerKey(boolean integerKey) {
    MergeDelivery d = worker(integerKey);
    List<Long> keys = scrambled(3_000, 1);
    deliver(d, snapshot(keys, integerKey, 0, 1_000, "first"), 500);
    assertEquals(0, d.filesRead(), "the first pass is appended: no file read");
    assertEquals(3_000, d.keysKnownAbsent());
    // The connector restarts: it emits the snapshot from the start again, stops after 1,800
    // rows (restarted once more), then emits it whole.
    deliver(d, snapshot(keys.subList(0, 1_800), integerKey, 3_000, 2_000, "second"), 500);
    deliver(d, snapshot(keys, integerKey, 4_800, 3_000, "third"), 700);
    assertTrue(d.filesRead() > 0, "the keys emitted again were looked for in the files");

    Map<String, String> state = state();
    assertEquals(3_000, state.size());
    for (long k : keys) {
      assertEquals("third," + k, state.get(k + "/" + k2(k, integerKey)));
    }
  }

  /**
   * A worker restarted mid-snapshot (nothing in memory) meets a snapshot batch large enough to
   * read the table's keys once; the connector re-emits from the start, then goes on past where it stopped.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aWorkerRestartedMidSnapshotReadsTheKeysOnceAndLeavesOneRowPerKey(boolean integerKey) {
    int batch = MergeDelivery.SCAN_KEYS_FROM;
    List<Long> keys = scrambled(3 * batch, 2);
    deliver(worker(integerKey), snapshot(keys.subList(0, batch + batch / 2), integerKey, 0, 1_000, "first"), batch / 2);

    MergeDelivery restarted = worker(integerKey);
    deliver(restarted, snapshot(keys, integerKey, 100_000, 2_000, "second"), batch);
    long readWhileReEmitted = restarted.filesRead();
    assertTrue(restarted.keysKnownAbsent() >= batch, "the keys the table lacked were appended: " + restarted.keysKnownAbsent());

    Map<String, String> state = state();
    assertEquals(keys.size(), state.size());
    keys.forEach(k -> assertEquals("second," + k, state.get(k + "/" + k2(k, integerKey))));
    assertTrue(readWhileReEmitted > 0);
  }

  /** A snapshot commit of more rows than a lane writes goes in as one file per lane, of disjoint key ranges. */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aBigSnapshotCommitIsWrittenOnTheLanesAsFilesOfDisjointKeyRanges(boolean integerKey) {
    MergeDelivery d = worker(integerKey);
    int rows = TableMerge.ROWS_PER_LANE * 2; // one commit (flush_rows 200,000 by default)
    List<Long> keys = scrambled(rows, 5);
    deliver(d, snapshot(keys, integerKey, 0, 1_000, "snap"), rows);
    List<io.lakesink.delta.TableFile> files = new ArrayList<>(table().files());
    assertEquals(TableMerge.LANES, files.size());
    files.sort(java.util.Comparator.comparing(f -> ((Number) f.min().get("k1")).longValue()));
    for (int i = 1; i < files.size(); i++) {
      assertTrue(((Number) files.get(i - 1).max().get("k1")).longValue() < ((Number) files.get(i).min().get("k1")).longValue(),
          "disjoint key ranges: " + files);
    }
    assertEquals(rows, state().size());
  }

  /** Another worker (or delta-spark) commits between two snapshot commits: its rows are looked for, never overlooked. */
  @ParameterizedTest
  @CsvSource({"true, 300", "false, 300", "true, 10000", "false, 10000"})
  void anotherWritersCommitBetweenTwoSnapshotCommitsIsNotOverlooked(boolean integerKey, int batch) {
    MergeDelivery d = worker(integerKey);
    List<Long> keys = scrambled(2 * batch, 3);
    deliver(d, snapshot(keys.subList(0, batch), integerKey, 0, 1_000, "snap"), batch);

    // Another writer inserts some keys the snapshot has yet to emit, and updates some it emitted, with newer changes.
    MergeDelivery other = worker(integerKey);
    long offset = 1_000_000;
    for (int i = batch - 50; i < batch + 50; i++) {
      long k = keys.get(i);
      other.accept(event("t", 1, offset++, Operation.CREATE, 5_000L, row("k1", k, "k2", k2(k, integerKey), "v", "other", "amount", k)));
    }
    other.flush();
    deliver(d, snapshot(keys.subList(batch, 2 * batch), integerKey, batch, 1_000, "snap"), batch);

    Map<String, String> state = state();
    assertEquals(2 * batch, state.size());
    for (int i = 0; i < keys.size(); i++) {
      long k = keys.get(i);
      String expected = i >= batch - 50 && i < batch + 50 ? "other," + k : "snap," + k;
      assertEquals(expected, state.get(k + "/" + k2(k, integerKey)));
    }
  }

  /** An optimize (this worker's maintenance) between two snapshot commits rewrites every file: the keys are known again only from the table. */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void anOptimizeBetweenSnapshotCommitsAndAReEmittedSnapshotLeaveOneRowPerKey(boolean integerKey) {
    MergeDelivery d = worker(integerKey);
    List<Long> keys = scrambled(2_000, 4);
    deliver(d, snapshot(keys.subList(0, 1_000), integerKey, 0, 1_000, "first"), 250);
    new TableMaintenance("t", table(), key(integerKey), MaintenanceSettings.DEFAULT.withTargetFileBytes(4 << 10),
        Clock.systemUTC(), line -> {}).optimize(false);
    deliver(d, snapshot(keys, integerKey, 1_000, 2_000, "again"), 400); // re-emitted from the start, then on

    Map<String, String> state = state();
    assertEquals(2_000, state.size());
    keys.forEach(k -> assertEquals("again," + k, state.get(k + "/" + k2(k, integerKey))));
  }

  /**
   * An incremental snapshot: chunks of reads interleaved with creates, updates and deletes of the
   * same keys (some read before their change, some after, some deleted and read no more), at
   * random flush boundaries. The table equals the model.
   */
  @ParameterizedTest
  @CsvSource({"1, true", "2, false", "3, true", "4, false"})
  void anIncrementalSnapshotInterleavedWithChangesOfTheSameKeysEqualsTheModel(int seed, boolean integerKey) {
    Random random = new Random(seed);
    List<Long> keys = scrambled(1_500, seed);
    List<ChangeEvent> events = new ArrayList<>();
    long offset = 0;
    int next = 0;
    while (next < keys.size()) {
      int chunk = 50 + random.nextInt(200);
      for (int i = 0; i < chunk && next < keys.size(); i++, next++) {
        long k = keys.get(next);
        events.add(event("t", 0, offset++, Operation.READ, (long) events.size() + random.nextInt(5),
            row("k1", k, "k2", k2(k, integerKey), "v", "r" + offset, "amount", k)));
      }
      int changes = random.nextInt(60);
      for (int i = 0; i < changes; i++) {
        long k = keys.get(random.nextInt(Math.min(keys.size(), next + 100))); // read already, or soon
        Operation op = switch (random.nextInt(4)) {
          case 0 -> Operation.DELETE;
          case 1 -> Operation.CREATE;
          default -> Operation.UPDATE;
        };
        events.add(event("t", 0, offset++, op, (long) events.size() + random.nextInt(5),
            row("k1", k, "k2", k2(k, integerKey), "v", op.code() + offset, "amount", k)));
      }
    }
    MergeDelivery d = worker(integerKey);
    int i = 0;
    while (i < events.size()) {
      int batch = 1 + random.nextInt(random.nextBoolean() ? 20 : 400);
      for (int j = 0; j < batch && i < events.size(); j++, i++) {
        d.accept(events.get(i));
      }
      d.flush();
    }
    assertEquals(MergeModelTest.model(events), state());
    assertTrue(d.keysKnownAbsent() > 0, "keys the table lacked were inserted without a file read");
  }
}
