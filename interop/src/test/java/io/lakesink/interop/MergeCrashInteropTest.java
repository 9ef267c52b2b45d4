package io.lakesink.interop;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * After a worker died at each step of a MERGE flush and a new one recovered (the batch delivered
 * again, as Kafka does), delta-spark reads the table as the model says, and its own MERGE,
 * OPTIMIZE and VACUUM (RETAIN 0 HOURS) work on it: VACUUM removes what the dead worker left (its
 * uncommitted data and deletion vector files), delta-spark reads the same rows again, and lakesink
 * goes on merging, in the worker that recovered (its known keys and key filters from before
 * delta-spark's commits) and in a fresh one. One Spark session for every case (issue 25).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// Generous: Spark in local mode on a busy 2-core machine.
@Timeout(900)
class MergeCrashInteropTest {
  @TempDir static Path dir;
  private SparkSession spark;

  static final class Crash extends Error {}

  enum At { BEFORE_WRITE, BEFORE_COMMIT, AFTER_COMMIT, WHILE_A_FILTER_IS_WRITTEN }

  @BeforeAll
  void start() {
    spark = LocalSpark.builder("lakesink-merge-crash-interop", dir)
        // VACUUM ... RETAIN 0 HOURS: what the dead worker left goes at once
        .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
        .getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table(String name) {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation(name));
  }

  MergeDelivery worker(String name, MergeSettings settings, FlushHook hook) {
    Subscription s = new Subscription("t", name, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, table(name), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withHook(hook), settings);
  }

  @ParameterizedTest
  @CsvSource({
      "BEFORE_WRITE, NEW_TABLES", "BEFORE_COMMIT, NEW_TABLES", "AFTER_COMMIT, NEW_TABLES",
      "WHILE_A_FILTER_IS_WRITTEN, NEW_TABLES", "BEFORE_COMMIT, NONE"})
  void deltaSparkReadsMergesOptimizesAndVacuumsATableRecoveredFromACrash(At at, MergeSettings.DeletionVectors vectors)
      throws IOException {
    String name = "crash_" + at.name().toLowerCase() + "_" + vectors.name().toLowerCase();
    MergeSettings settings = MergeSettings.DEFAULT.withDeletionVectors(vectors);
    Model model = new Model();

    // Four commits by a first worker: three of inserts (one file each), then changes all over them.
    MergeDelivery first = worker(name, settings, FlushHook.NONE);
    for (int b = 0; b < 3; b++) {
      List<ChangeEvent> inserts = new ArrayList<>();
      for (long id = b * 100L; id < (b + 1) * 100L; id++) {
        inserts.add(model.change(Operation.CREATE, 1_000 + b, id, "insert"));
      }
      model.deliver(first, inserts);
    }
    List<ChangeEvent> changes = new ArrayList<>();
    for (long id = 0; id < 300; id++) {
      if (id % 7 == 0) {
        changes.add(model.change(Operation.DELETE, 2_000, id, null));
      } else if (id % 5 == 0) {
        changes.add(model.change(Operation.UPDATE, 2_000, id, "update"));
      }
    }
    model.deliver(first, changes);

    // The batch a worker dies with: updates, deletes and inserts, in random order.
    List<ChangeEvent> batch = new ArrayList<>();
    for (long id = 0; id < 350; id++) {
      if (id >= 300) {
        batch.add(model.change(Operation.CREATE, 3_000, id, "crash-batch"));
      } else if (id % 11 == 0) {
        batch.add(model.change(Operation.DELETE, 3_000, id, null));
      } else if (id % 3 == 0) {
        batch.add(model.change(Operation.UPDATE, 3_000, id, "crash-batch"));
      }
    }
    java.util.Collections.shuffle(batch, new Random(at.ordinal()));
    Set<Path> before = tableFiles(name);
    dieWith(name, at, settings, batch);
    // What the dead worker wrote and no commit names (at AFTER_COMMIT it committed what it wrote).
    Set<Path> left = at == At.AFTER_COMMIT ? new HashSet<>() : tableFiles(name);
    left.removeAll(before);
    if (at == At.BEFORE_COMMIT || at == At.WHILE_A_FILTER_IS_WRITTEN) {
      assertFalse(left.isEmpty(), "the worker died after writing its files: they are orphans");
    }
    MergeDelivery recovered = worker(name, settings, FlushHook.NONE);
    model.deliver(recovered, batch); // Kafka delivers the batch again
    assertEquals(model.rows, sparkRows(name), at + ": delta-spark reads the recovered table as the model");
    assertEquals(model.rows, lakesinkRows(name), at + ": lakesink reads it as the model");

    // delta-spark's own MERGE (later source times than lakesink's so far), OPTIMIZE and VACUUM.
    String t = "delta.`" + storage().tableLocation(name) + "`";
    spark.sql("MERGE INTO " + t + " AS s USING (SELECT id, IF(id % 8 = 0, 'd', 'u') AS op FROM range(0, 420, 4)) AS c"
        + " ON s.id = c.id"
        + " WHEN MATCHED AND c.op = 'd' THEN DELETE"
        + " WHEN MATCHED THEN UPDATE SET v = 'spark-merge', __op = 'u', __ts_ms = 5000"
        + " WHEN NOT MATCHED AND c.op = 'u' THEN INSERT (id, v, __op, __ts_ms, __partition, __offset)"
        + " VALUES (c.id, 'spark-merge', 'c', 5000, 0, 0)");
    for (long id = 0; id < 420; id += 4) {
      if (id % 8 == 0) {
        model.rows.remove(id);
      } else {
        model.rows.put(id, "spark-merge");
      }
    }
    List<Row> optimized = spark.sql("OPTIMIZE " + t).collectAsList();
    assertEquals(1, optimized.size(), optimized.toString());
    spark.sql("VACUUM " + t + " RETAIN 0 HOURS").collectAsList();
    for (Path orphan : left) {
      assertFalse(Files.exists(orphan), at + ": delta-spark's VACUUM removed what the dead worker left: " + orphan);
    }
    assertEquals(List.of(), spark.sql("VACUUM " + t + " RETAIN 0 HOURS DRY RUN").collectAsList(), "nothing left to vacuum");
    assertEquals(model.rows, sparkRows(name), at + ": delta-spark reads the optimized, vacuumed table as the model");

    // lakesink merges again: the worker that recovered (its known keys and filters are from
    // before delta-spark's commits, whose files are gone), then a fresh one.
    List<ChangeEvent> after = new ArrayList<>();
    for (long id = 0; id < 520; id++) {
      if (id >= 500 || id % 8 == 0 && id < 420) { // new keys, and keys delta-spark deleted: inserted again
        after.add(model.change(Operation.CREATE, 9_000, id, "after-spark"));
      } else if (id % 10 == 3) {
        after.add(model.change(Operation.DELETE, 9_000, id, null));
      } else if (id % 6 == 1) {
        after.add(model.change(Operation.UPDATE, 9_000, id, "after-spark"));
      }
    }
    model.deliver(recovered, after);
    List<ChangeEvent> fresh = new ArrayList<>();
    for (long id = 2; id < 520; id += 9) {
      fresh.add(model.change(Operation.UPDATE, 10_000, id, "fresh-worker"));
    }
    model.deliver(worker(name, settings, FlushHook.NONE), fresh);
    assertEquals(model.rows, sparkRows(name), at + ": delta-spark reads lakesink's merges after its own");
    assertEquals(model.rows, lakesinkRows(name), at + ": lakesink reads them as the model");
  }

  /** A worker given the batch dies at {@code at}: with its files written (and, at AFTER_COMMIT, committed). */
  private void dieWith(String name, At at, MergeSettings settings, List<ChangeEvent> batch) throws IOException {
    if (at == At.AFTER_COMMIT) {
      MergeDelivery dying = worker(name, settings, FlushHook.NONE);
      batch.forEach(dying::accept);
      dying.flush(); // committed; the process dies before the group offsets
      return;
    }
    Set<Path> filtersBefore = filters(name);
    FlushStep step = at == At.BEFORE_WRITE ? FlushStep.BEFORE_WRITE : FlushStep.BEFORE_COMMIT;
    MergeDelivery dying = worker(name, settings, (table, s) -> {
      if (s == step) {
        throw new Crash();
      }
    });
    long version = table(name).version();
    batch.forEach(dying::accept);
    assertThrows(Crash.class, dying::flush);
    assertEquals(version, table(name).version(), "nothing committed");
    if (at == At.WHILE_A_FILTER_IS_WRITTEN) {
      // Filters cut short at random lengths, as a write the process did not finish leaves them.
      Set<Path> written = filters(name);
      written.removeAll(filtersBefore);
      assertFalse(written.isEmpty(), "the dying worker wrote key filters");
      Random cut = new Random(version);
      for (Path filter : written) {
        byte[] whole = Files.readAllBytes(filter);
        Files.write(filter, java.util.Arrays.copyOf(whole, cut.nextInt(whole.length)));
      }
    }
  }

  /** The data and deletion vector files in the table's directory (not its log, nor lakesink's `_lakesink`). */
  private Set<Path> tableFiles(String name) throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("lakesink").resolve(name))) {
      return files.filter(p -> !p.getFileName().toString().startsWith("_") && Files.isRegularFile(p))
          .collect(Collectors.toCollection(HashSet::new));
    }
  }

  private Set<Path> filters(String name) throws IOException {
    Path keys = dir.resolve("lakesink").resolve(name).resolve("_lakesink").resolve("keys");
    if (!Files.isDirectory(keys)) {
      return new HashSet<>();
    }
    try (Stream<Path> files = Files.list(keys)) {
      return files.collect(Collectors.toCollection(HashSet::new));
    }
  }

  /** id → v as delta-spark reads the table, one row per key. */
  private Map<Long, String> sparkRows(String name) {
    Map<Long, String> read = new TreeMap<>();
    for (Row r : spark.sql("SELECT id, v FROM delta.`" + storage().tableLocation(name) + "`").collectAsList()) {
      assertNull(read.put(r.getLong(0), r.getString(1)), "one row per key: " + r.getLong(0));
    }
    return read;
  }

  /** id → v as lakesink reads the table (Delta Kernel, deletion vectors applied). */
  private Map<Long, String> lakesinkRows(String name) {
    Map<Long, String> read = new TreeMap<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(table(name))) {
      assertNull(read.put((Long) r.get("id"), (String) r.get("v")), "one row per key: " + r.get("id"));
    }
    return read;
  }

  /** The rows the stream so far leaves (id → v), and the next Kafka offset. */
  private static final class Model {
    final Map<Long, String> rows = new TreeMap<>();
    private long offset;

    /** A change at the next offset; {@code v} null for a delete (the key and nulls, as Debezium sends it by default). */
    ChangeEvent change(Operation op, long ts, long id, String v) {
      return event("t", 0, offset++, op, ts, row("id", id, "v", v));
    }

    /** Gives the batch to the worker, flushes, and applies it to the model. */
    void deliver(MergeDelivery worker, List<ChangeEvent> batch) {
      batch.forEach(worker::accept);
      worker.flush();
      for (ChangeEvent e : batch) {
        long id = (Long) e.value("id");
        if (e.isDelete()) {
          rows.remove(id);
        } else {
          rows.put(id, (String) e.value("v"));
        }
      }
    }
  }
}
