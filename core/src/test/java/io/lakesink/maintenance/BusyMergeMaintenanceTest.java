package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.commitJson;
import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryMetrics;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A busy MERGE table: merges of small batches back to back, as fast as the loop can make them,
 * while maintenance runs on its own thread. Before optimize steps held the delivery, every
 * optimization of such a table lost its race to the next merge (each merge gives the files it
 * touches a new deletion vector, or rewrites them) and the table gained a file per merge forever.
 */
class BusyMergeMaintenanceTest {
  static final int MERGES = 60;
  static final int BATCH = 8;
  static final int KEYS = 120;
  static final int OPTIMIZE_EVERY = 5;

  @TempDir Path dir;
  final ExecutorService maintenanceThread = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    maintenanceThread.shutdownNow();
  }

  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void aTableMergedBackToBackIsOptimizedAndEqualsTheModel(MergeSettings.DeletionVectors vectors) {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Steps steps = new Steps();
    MaintenanceSettings settings = MaintenanceSettings.DEFAULT.withTriggers(OPTIMIZE_EVERY, 1_000, 1_000);
    DeliveryContext context = DeliveryContext.of(new FlushPolicy(Duration.ofHours(1), BATCH, 128L << 20),
            new QuarantineStore(tables.storage))
        .withMetrics(steps)
        .withMaintenance(new MaintenancePolicy(true, settings, maintenanceThread));
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, tables.open("items"), null, context, MergeSettings.DEFAULT.withDeletionVectors(vectors));

    Random random = new Random(24);
    Map<Long, String> model = new TreeMap<>();
    long offset = 0;
    int maxFiles = 0;
    while (steps.commits.get() < MERGES) {
      for (int i = 0; i < BATCH; i++, offset++) {
        long id = random.nextInt(KEYS);
        String name = "v" + offset;
        Operation op = !model.containsKey(id) ? Operation.CREATE : random.nextInt(10) == 0 ? Operation.DELETE : Operation.UPDATE;
        d.accept(event("t", 0, offset, op, 1000L + offset, row("id", id, "name", name)));
        if (op == Operation.DELETE) {
          model.remove(id);
        } else {
          model.put(id, name);
        }
      }
      // The worker's loop: maintenance, then the flushes that are due. A held table is polled
      // again once the step is done, as Kafka's poll would return meanwhile.
      d.maintain();
      if (d.flushDue(System.currentTimeMillis())) {
        d.flush();
        maxFiles = Math.max(maxFiles, tables.open("items").files().size());
      } else if (d.maintenance().holdsDelivery()) {
        d.maintenance().awaitHold(60_000);
      }
    }
    d.flush();

    DeltaTable t = tables.open("items");
    long optimizeCommits = 0;
    for (long v = 0; v <= t.version(); v++) {
      if (commitJson(tables.root("items"), v).contains("\"operation\":\"OPTIMIZE\"")) {
        optimizeCommits++;
      }
    }
    assertEquals(0, steps.gaveUp.get(), "an optimize step never loses to the worker's own merges");
    assertTrue(optimizeCommits >= MERGES / OPTIMIZE_EVERY / 2, optimizeCommits + " OPTIMIZE commits in " + t.version() + " versions");
    // Each merge adds at most its inserts' file and the files it rewrote; optimize packs them
    // every few commits, so the table never piles up files.
    assertTrue(maxFiles <= 2 * OPTIMIZE_EVERY + 2, "at most " + maxFiles + " live files, optimized every " + OPTIMIZE_EVERY);
    List<String> expected = new ArrayList<>();
    model.forEach((id, name) -> expected.add(id + "=" + name));
    t.refresh();
    List<String> stored = DeltaTableReader.readAll(t).stream().map(r -> r.get("id") + "=" + r.get("name")).toList();
    assertEquals(expected.stream().sorted().toList(), stored.stream().sorted().toList());
  }

  /** Counts the delivery's commits and the optimize steps that gave up. */
  static final class Steps implements DeliveryMetrics {
    final AtomicInteger commits = new AtomicInteger();
    final AtomicInteger gaveUp = new AtomicInteger();

    @Override
    public void committed(String table, int rows, long bytes, Duration latency) {
      commits.incrementAndGet();
    }

    @Override
    public void optimized(String table, OptimizeResult step) {
      if (step.gaveUp()) {
        gaveUp.incrementAndGet();
      }
    }
  }
}
