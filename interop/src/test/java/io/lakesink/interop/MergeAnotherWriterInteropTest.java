package io.lakesink.interop;

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
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another writer between two merges: lakesink loads a snapshot into a MERGE table (as appends, its
 * keys known), delta-spark then updates, deletes, inserts, merges and optimizes that table, and
 * lakesink goes on with the snapshot and with changes of the same keys, in the same worker (whose
 * known keys are now behind the table) and in a worker started afresh. delta-spark reads one
 * row per key, each the change that ranks highest, whoever wrote it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(600)
class MergeAnotherWriterInteropTest {
  @TempDir static Path dir;
  private SparkSession spark;

  @BeforeAll
  void start() {
    spark = LocalSpark.builder("lakesink-merge-another-writer", dir).getOrCreate();
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

  MergeDelivery worker() {
    return worker("accounts");
  }

  MergeDelivery worker(String table) {
    Subscription s = new Subscription("t", table, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, new DeltaTable(KernelEngine.create(storage()), storage().tableLocation(table)), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())), MergeSettings.DEFAULT);
  }

  static io.lakesink.event.ChangeEvent change(long offset, Operation op, long ts, long id, String v) {
    return event("t", 0, offset, op, ts, row("id", id, "v", v));
  }

  @Test
  void aTableDeltaSparkWroteToBetweenTwoMergesIsMergedCorrectly() {
    List<Long> snapshot = new ArrayList<>();
    for (long id = 0; id < 3_000; id++) {
      snapshot.add(id);
    }
    Collections.shuffle(snapshot, new Random(25));
    Map<Long, String> expected = new TreeMap<>();
    MergeDelivery worker = worker();
    long offset = 0;
    for (int i = 0; i < 1_500; i++) { // the first half of an unordered snapshot, three commits
      long id = snapshot.get(i);
      worker.accept(change(offset++, Operation.READ, 1_000, id, "snap"));
      expected.put(id, "snap");
      if (offset % 500 == 0) {
        worker.flush();
      }
    }
    assertEquals(0, worker.filesRead(), "appended: no file read");

    // delta-spark, another writer, with later source times than the snapshot's.
    String t = "delta.`" + storage().tableLocation("accounts") + "`";
    spark.sql("UPDATE " + t + " SET v = 'spark-update', __ts_ms = 5000 WHERE id % 10 = 0");
    spark.sql("DELETE FROM " + t + " WHERE id % 10 = 1");
    List<Long> sparkInserts = snapshot.subList(1_500, 1_600); // keys the snapshot has yet to emit
    StringBuilder values = new StringBuilder();
    for (long id : sparkInserts) {
      values.append(values.isEmpty() ? "" : ", ").append("(").append(id).append(", 'spark-insert', 'c', 5000, 1, ").append(id)
          .append(")");
    }
    spark.sql("INSERT INTO " + t + " (id, v, __op, __ts_ms, __partition, __offset) VALUES " + values);
    spark.sql("MERGE INTO " + t + " AS s USING (SELECT id FROM " + t + " WHERE id % 10 = 2) AS c ON s.id = c.id"
        + " WHEN MATCHED THEN UPDATE SET v = 'spark-merge', __ts_ms = 5000");
    spark.sql("OPTIMIZE " + t);
    for (long id : new ArrayList<>(expected.keySet())) {
      if (id % 10 == 0) {
        expected.put(id, "spark-update");
      } else if (id % 10 == 1) {
        expected.remove(id);
      } else if (id % 10 == 2) {
        expected.put(id, "spark-merge");
      }
    }
    sparkInserts.forEach(id -> expected.put(id, id % 10 == 2 ? "spark-merge" : "spark-insert"));

    // The same worker goes on with the snapshot (it ranks below delta-spark's rows), then changes.
    for (int i = 1_500; i < 3_000; i++) {
      long id = snapshot.get(i);
      worker.accept(change(offset++, Operation.READ, 1_000, id, "snap"));
      expected.putIfAbsent(id, "snap");
      if (offset % 500 == 0) {
        worker.flush();
      }
    }
    worker.flush();
    for (long id = 0; id < 3_000; id += 7) { // newer than every row: they win
      worker.accept(change(offset++, id % 2 == 0 ? Operation.UPDATE : Operation.DELETE, 9_000, id, "lakesink"));
      if (id % 2 == 0) {
        expected.put(id, "lakesink");
      } else {
        expected.remove(id);
      }
    }
    worker.flush();

    // delta-spark once more, then a worker started afresh.
    spark.sql("UPDATE " + t + " SET v = 'spark-again', __ts_ms = 10000 WHERE id % 100 = 5");
    expected.replaceAll((id, v) -> id % 100 == 5 ? "spark-again" : v);
    MergeDelivery restarted = worker();
    for (long id = 5; id < 3_000; id += 50) {
      restarted.accept(change(offset++, Operation.UPDATE, 11_000, id, "restarted"));
      expected.put(id, "restarted");
    }
    restarted.flush();

    Map<Long, String> read = new TreeMap<>();
    for (Row r : spark.sql("SELECT id, v FROM " + t).collectAsList()) {
      assertEquals(null, read.put(r.getLong(0), r.getString(1)), "one row per key: " + r.getLong(0));
    }
    assertEquals(expected, read);
    assertTrue(worker.filesRead() > 0, "after delta-spark's commits the worker looked in the files");
  }

  /**
   * A merge that deletes the last live rows of a file removes the file (no deletion vector of
   * all its rows): delta-spark reads the table without it, and its checksum validation accepts
   * the version's checksum, which Kernel carried from the one before through the removal.
   */
  @Test
  void aFileAMergeEmptiesIsRemovedAndDeltaSparkReadsAndValidatesTheTable() {
    MergeDelivery worker = worker("emptied");
    Map<Long, String> expected = new TreeMap<>();
    long offset = 0;
    for (long id = 0; id < 200; id++) { // two files: 0-99 and 100-199
      worker.accept(change(offset++, Operation.CREATE, 1, id, "a"));
      expected.put(id, "a");
      if (id == 99) {
        worker.flush();
      }
    }
    worker.flush();
    String t = "delta.`" + storage().tableLocation("emptied") + "`";
    List<String> filesBefore = List.of(spark.sql("SELECT * FROM " + t).inputFiles());
    for (long id = 0; id < 50; id++) { // half of the first file replaced: a vector
      worker.accept(change(offset++, Operation.UPDATE, 2, id, "b"));
      expected.put(id, "b");
    }
    worker.flush();
    for (long id = 50; id < 100; id++) { // the rest of it deleted, one row of the second file too
      worker.accept(change(offset++, Operation.DELETE, 3, id, null));
      expected.remove(id);
    }
    worker.accept(change(offset++, Operation.DELETE, 3, 150, null));
    expected.remove(150L);
    worker.flush();

    Map<Long, String> read = new TreeMap<>();
    for (Row r : spark.sql("SELECT id, v FROM " + t).collectAsList()) {
      assertEquals(null, read.put(r.getLong(0), r.getString(1)), "one row per key: " + r.getLong(0));
    }
    assertEquals(expected, read);
    List<String> filesAfter = List.of(spark.sql("SELECT * FROM " + t).inputFiles());
    assertEquals(1, filesBefore.stream().filter(f -> !filesAfter.contains(f)).count(),
        "the first file is gone, the second stays: " + filesBefore + " then " + filesAfter);
    DeltaSparkChecks.assertLatestChecksumValid(spark, storage().tableLocation("emptied"), "emptied");
  }
}
