package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.ChangeEvent;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A MERGE table over many files (key filters, known keys, optimizes in between) whose worker
 * dies at each step of a flush, again and again, then restarts and is given the batch again, as
 * Kafka redelivers what the group did not commit: the table equals, row for row, the same stream
 * delivered with the worker restarted at the same batches without dying (a restart alone forgets
 * the recent deletes, docs/merge.md "Deletes": the model of the stream is not the reference),
 * one row per key. "While a filter is written": the worker dies before the commit, leaving the
 * filters it wrote cut short at random lengths, as a write the process did not finish leaves them.
 */
class MergeCrashTest {
  @TempDir Path dir;

  static final class Crash extends Error {}

  enum At { BEFORE_WRITE, BEFORE_COMMIT, AFTER_COMMIT, WHILE_A_FILTER_IS_WRITTEN }

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table(String name) {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation(name));
  }

  MergeDelivery worker(String name, MergeSettings settings, List<String> key, FlushHook hook) {
    Subscription s = new Subscription("t", name, DeliveryMode.MERGE, key, SourceFormat.JSON, true);
    return new MergeDelivery(s, table(name), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withHook(hook), settings);
  }

  @ParameterizedTest
  @CsvSource({
      "BEFORE_WRITE, NEW_TABLES, true", "BEFORE_COMMIT, NEW_TABLES, true", "AFTER_COMMIT, NEW_TABLES, false",
      "WHILE_A_FILTER_IS_WRITTEN, NEW_TABLES, true", "BEFORE_COMMIT, NONE, false", "WHILE_A_FILTER_IS_WRITTEN, NONE, false"})
  void aWorkerThatDiesAtAStepAndIsGivenTheBatchAgainLeavesWhatARestartAloneLeaves(
      At at, MergeSettings.DeletionVectors vectors, boolean integerKey) throws IOException {
    long seed = at.ordinal() * 7L + vectors.ordinal();
    List<String> key = integerKey ? List.of("k1") : MergeModelTest.KEY;
    List<ChangeEvent> events = MergeModelTest.stream(new Random(seed), 800, integerKey ? 300 : 150, integerKey);
    MergeSettings settings = MergeSettings.DEFAULT.withDeletionVectors(vectors);
    int crashes = deliver("t", at, settings, key, events, seed);
    deliver("reference", null, settings, key, events, seed);
    assertTrue(crashes >= 4, "crashed " + crashes + " times");
    assertEquals(MergeModelTest.table(DeltaTableReader.readAll(table("reference"))),
        MergeModelTest.table(DeltaTableReader.readAll(table("t"))));
    if (at == At.WHILE_A_FILTER_IS_WRITTEN) {
      assertTrue(filters().size() > 0);
    }
  }

  /**
   * The stream in random batches, an optimize every ninth; every fourth batch a new worker
   * takes over: after dying at {@code at} with the batch, or (null) simply started afresh.
   *
   * @return how many times a worker died
   */
  private int deliver(String name, At at, MergeSettings settings, List<String> key, List<ChangeEvent> events, long seed)
      throws IOException {
    Random random = new Random(seed);
    TableMaintenance optimize = new TableMaintenance(name, table(name), key,
        MaintenanceSettings.DEFAULT.withTargetFileBytes(4 << 10), Clock.systemUTC(), line -> {});
    MergeDelivery worker = worker(name, settings, key, FlushHook.NONE);
    int crashes = 0;
    int i = 0;
    for (int batch = 1; i < events.size(); batch++) {
      List<ChangeEvent> changes = events.subList(i, Math.min(events.size(), i + 10 + random.nextInt(50)));
      i += changes.size();
      if (batch % 4 == 0) {
        worker = at == null ? worker(name, settings, key, FlushHook.NONE) : crashThenRestart(name, at, settings, key, changes);
        crashes += at == null ? 0 : 1;
      }
      changes.forEach(worker::accept);
      worker.flush();
      if (batch % 9 == 0) {
        optimize.optimize(false);
      }
    }
    return crashes;
  }

  /** A worker given the batch dies at {@code at}; returns the worker started in its place, which knows nothing yet. */
  private MergeDelivery crashThenRestart(String name, At at, MergeSettings settings, List<String> key, List<ChangeEvent> changes)
      throws IOException {
    if (at == At.AFTER_COMMIT) {
      // Committed to the table; the process dies before the group offsets: Kafka gives the batch again.
      MergeDelivery dying = worker(name, settings, key, FlushHook.NONE);
      changes.forEach(dying::accept);
      dying.flush();
      return worker(name, settings, key, FlushHook.NONE);
    }
    Set<Path> before = Set.copyOf(filters());
    FlushStep step = at == At.BEFORE_WRITE ? FlushStep.BEFORE_WRITE : FlushStep.BEFORE_COMMIT;
    MergeDelivery dying = worker(name, settings, key, (table, s) -> {
      if (s == step) {
        throw new Crash();
      }
    });
    long version = table(name).version();
    changes.forEach(dying::accept);
    assertThrows(Crash.class, dying::flush);
    assertEquals(version, table(name).version(), "nothing committed");
    if (at == At.WHILE_A_FILTER_IS_WRITTEN) {
      Random cut = new Random(version);
      for (Path written : filters()) {
        if (!before.contains(written)) {
          byte[] whole = Files.readAllBytes(written);
          Files.write(written, java.util.Arrays.copyOf(whole, cut.nextInt(whole.length)));
        }
      }
    }
    return worker(name, settings, key, FlushHook.NONE);
  }

  private List<Path> filters() {
    Path keys = dir.resolve("lakesink").resolve("t").resolve("_lakesink").resolve("keys");
    if (!Files.isDirectory(keys)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(keys)) {
      return files.collect(Collectors.toCollection(ArrayList::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
