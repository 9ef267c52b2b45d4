package io.lakesink.merge;

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
import io.lakesink.delivery.TableDelivery;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ChangeModel;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
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
 * Random change streams delivered in merge mode must equal a plain in-memory model, and the same
 * stream delivered as a changelog, collapsed with the view's rules, must equal the merge table,
 * wherever the flushes fall: out-of-order source times, ties and keys that move partitions
 * included.
 */
class MergeModelTest {
  @TempDir Path dir;

  static final List<String> KEY = List.of("k1", "k2");

  /**
   * Random changes as Kafka delivers them: offsets grow per partition, but source times are out
   * of order (also within a key), often tie and are sometimes unknown, snapshot rows are now and
   * then stamped later than the changes after them, and keys move to another partition now and
   * then, so an older change of a key can be read after a newer one.
   */
  static List<ChangeEvent> stream(Random random, int n) {
    return stream(random, n, 8);
  }

  /** As {@link #stream(Random, int)}, over {@code k1Values} values of {@code k1}. */
  static List<ChangeEvent> stream(Random random, int n, int k1Values) {
    return stream(random, n, k1Values, false);
  }

  /** @param k1Only {@code k2} is always {@code "a"}: the key is {@code k1} alone, an integer */
  static List<ChangeEvent> stream(Random random, int n, int k1Values, boolean k1Only) {
    List<ChangeEvent> events = new ArrayList<>();
    Map<List<Object>, Boolean> live = new HashMap<>();
    Map<List<Object>, Integer> partitionOf = new HashMap<>();
    long[] offsets = new long[3];
    for (int i = 0; i < n; i++) {
      long k1 = random.nextInt(k1Values);
      String k2 = k1Only || random.nextBoolean() ? "a" : "b";
      List<Object> key = List.of(k1, k2);
      int partition = partitionOf.merge(key, (int) (k1 % 3), (p, init) -> random.nextInt(8) == 0 ? random.nextInt(3) : p);
      Long ts = random.nextInt(20) == 0 ? null : (long) (i / 4 + random.nextInt(8)); // overlapping windows: ties, out of order
      Operation op;
      if (!live.getOrDefault(key, false)) {
        op = random.nextInt(4) == 0 ? Operation.READ : Operation.CREATE; // also re-inserts after deletes
      } else {
        op = random.nextInt(3) == 0 ? Operation.DELETE : Operation.UPDATE;
      }
      if (op == Operation.READ && ts != null && random.nextBoolean()) {
        ts += ChangeModel.SNAPSHOT_READ_LATE; // stamped when the snapshot read it: later than the changes that follow it
      }
      live.put(key, op != Operation.DELETE);
      String v = random.nextInt(5) == 0 ? null : "v" + i;
      Long amount = random.nextInt(5) == 0 ? null : (long) random.nextInt(1000);
      events.add(event("t", partition, offsets[partition]++, op, ts, row("k1", k1, "k2", k2, "v", v, "amount", amount)));
    }
    return events;
  }

  /** The model ({@link ChangeModel}): the changes replayed in rank order, the last change of each key kept unless it is a delete. */
  static Map<String, String> model(List<ChangeEvent> events) {
    return ChangeModel.replay(events);
  }

  static Map<String, String> table(List<Map<String, Object>> rows) {
    Map<String, String> state = new TreeMap<>();
    for (Map<String, Object> r : rows) {
      String previous = state.put(r.get("k1") + "/" + r.get("k2"), r.get("v") + "," + r.get("amount"));
      assertEquals(null, previous, "one row per key");
    }
    return state;
  }

  /** Flushes at random boundaries: from one event to a quarter of the stream per batch. */
  void deliver(TableDelivery d, List<ChangeEvent> events, Random random) {
    int i = 0;
    while (i < events.size()) {
      int batch = 1 + random.nextInt(random.nextBoolean() ? 6 : events.size() / 4);
      for (int j = 0; j < batch && i < events.size(); j++, i++) {
        d.accept(events.get(i));
      }
      d.flush();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void mergeEqualsTheModelAndTheCollapsedChangelog(int seed) {
    Random random = new Random(seed);
    List<ChangeEvent> events = stream(random, 150);
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    var engine = KernelEngine.create(storage);
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));

    Subscription merge = new Subscription("t", "t", DeliveryMode.MERGE, KEY, SourceFormat.JSON, true);
    DeltaTable mergeTable = new DeltaTable(engine, storage.tableLocation("t"));
    deliver(new MergeDelivery(merge, mergeTable, null, context, MergeSettings.DEFAULT), events, new Random(seed * 31L));

    Subscription changelog = new Subscription("t", "t", DeliveryMode.CHANGELOG, KEY, SourceFormat.JSON, true);
    DeltaTable changelogTable = new DeltaTable(engine, storage.tableLocation("t_APPEND"));
    deliver(new ChangelogDelivery(changelog, changelogTable, context), events, new Random(seed * 17L));

    Map<String, String> expected = model(events);
    List<Map<String, Object>> merged = DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t")));
    assertEquals(expected, table(merged));
    assertEquals(expected, table(CurrentState.collapse(
        DeltaTableReader.readAll(new DeltaTable(engine, storage.tableLocation("t_APPEND"))), KEY, true)));
    assertTrue(merged.stream().allMatch(r -> r.keySet().containsAll(List.of("__op", "__ts_ms", "__partition", "__offset"))),
        "envelope fields and what ranks a change kept without a mapping");
  }
}
