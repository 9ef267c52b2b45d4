package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.commitJson;
import static io.lakesink.maintenance.MaintenanceTables.content;
import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's side: maintenance runs when due from {@code maintain()}, between flushes. */
class MaintenanceTriggersTest {
  @TempDir Path dir;
  long offset;

  DeliveryContext context(MaintenanceTables tables, MaintenanceSettings settings) {
    // Runs where it is started, so that a test sees its outcome at once.
    return DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(tables.storage))
        .withMaintenance(new MaintenancePolicy(true, settings, Runnable::run));
  }

  ChangelogDelivery changelog(MaintenanceTables tables, MaintenanceSettings settings) {
    Subscription s = new Subscription("t", "events", DeliveryMode.CHANGELOG, List.of(), SourceFormat.JSON, true);
    return new ChangelogDelivery(s, tables.open("events_APPEND"), context(tables, settings));
  }

  void flush(BufferedDelivery d, int rows) {
    for (int i = 0; i < rows; i++, offset++) {
      d.accept(event("t", 0, offset, Operation.CREATE, 1000L + offset, row("id", offset, "name", "n" + offset)));
    }
    d.flush();
  }

  /** What the worker's loop does while no events arrive: maintain until nothing is left to start. */
  static void maintain(BufferedDelivery d) {
    do {
      d.maintain();
      d.maintenance().await();
    } while (d.maintenance().pending());
  }

  @Test
  void everyNthCommitOptimizesAndEveryMthOptimizeVacuums() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    ChangelogDelivery d = changelog(tables, MaintenanceSettings.DEFAULT.withTriggers(3, 1_000, 2));
    DeltaTable t = tables.open("events_APPEND");
    maintain(d);
    flush(d, 10);
    flush(d, 10);
    maintain(d);
    assertNull(d.maintenance().last().optimize(), "2 commits: not due yet");

    flush(d, 10);
    maintain(d);
    MaintenanceRunner.Report first = d.maintenance().last();
    assertTrue(first.optimize().committed(), first.toString());
    assertNull(first.vacuum());
    assertTrue(commitJson(tables.root("events_APPEND"), first.optimize().version().getAsLong()).contains("\"operation\":\"OPTIMIZE\""));
    assertEquals(1, tables.open("events_APPEND").files().size());
    assertEquals(30, content(t).size());

    flush(d, 10);
    flush(d, 10);
    flush(d, 10);
    maintain(d);
    MaintenanceRunner.Report second = d.maintenance().last();
    assertTrue(second.optimize().committed() && second.optimize().version().getAsLong() > first.optimize().version().getAsLong());
    assertNotNull(second.vacuum(), "the 2nd optimize is followed by a vacuum");
    assertEquals(60, content(t).size());
  }

  /** A MERGE table without deletion vectors: every merge rewrites the files it touches. */
  static final MergeSettings COPY_ON_WRITE = MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE);

  @Test
  void aMergeTableWithNothingToCompactIsStillVacuumedEveryMthOptimize() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, tables.open("items"), null,
        context(tables, MaintenanceSettings.DEFAULT.withTriggers(1, 1_000, 2)), COPY_ON_WRITE);
    maintain(d);
    for (int round = 0; round < 2; round++) {
      // every merge rewrites the table's one file: nothing for optimize, a replaced file for vacuum
      d.accept(event("t", 0, offset++, Operation.UPDATE, 1000L + offset, row("id", 1L, "name", "v" + round)));
      d.flush();
      maintain(d);
      assertTrue(d.maintenance().last().optimize() != null && !d.maintenance().last().optimize().committed());
    }
    assertNotNull(d.maintenance().last().vacuum(), "the 2nd optimization, though it had nothing to do, is followed by a vacuum");
  }

  @Test
  void aTableWithTooManyFilesIsOptimizedWhenTheWorkerStarts() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    MaintenanceTables.changelog(tables.open("events_APPEND"), 8, 5); // 8 files, left by an earlier run
    ChangelogDelivery d = changelog(tables, MaintenanceSettings.DEFAULT.withTriggers(100, 5, 10));

    maintain(d);

    assertTrue(d.maintenance().last().optimize().committed(), d.maintenance().last().toString());
    assertEquals(2, tables.open("events_APPEND").files().size(), "one file per date");
  }

  @Test
  void aConstantKeyColumnIsWarnedInStatus() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("tenant", "id"), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, tables.open("items"), null, context(tables, MaintenanceSettings.DEFAULT), MergeSettings.DEFAULT);
    for (int i = 0; i < 150; i++, offset++) {
      d.accept(event("t", 0, offset, Operation.CREATE, 1000L + offset, row("tenant", "acme", "id", offset)));
    }
    d.flush();
    assertEquals(List.of(), d.status().warnings());

    maintain(d); // the file count is looked at on start

    List<String> warnings = d.status().warnings();
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("'tenant'") && warnings.get(0).contains("primary_key"), warnings.get(0));
  }

  @Test
  void aMergeRewritingMostOfTheTableForAFewChangesIsWarnedUntilOptimized() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, tables.open("items"), null,
        context(tables, MaintenanceSettings.DEFAULT.withTriggers(4, 1_000, 10)), COPY_ON_WRITE);
    for (long batch = 0; batch < 2; batch++) {
      for (int i = 0; i < 200; i++, offset++) {
        d.accept(event("t", 0, offset, Operation.CREATE, 1000L + offset, row("id", batch * 1000 + i, "name", "a")));
      }
      d.flush();
    }
    assertEquals(List.of(), d.status().warnings(), "inserting new keys rewrites nothing");

    d.accept(event("t", 0, offset++, Operation.UPDATE, 5000L, row("id", 0L, "name", "b")));
    d.accept(event("t", 0, offset++, Operation.UPDATE, 5000L, row("id", 1000L, "name", "b")));
    d.flush(); // 2 changes rewrite both files: all 400 rows

    assertEquals(1, d.status().warnings().size(), d.status().warnings().toString());
    assertTrue(d.status().warnings().get(0).contains("400 rows rewritten for 2 changes"), d.status().warnings().get(0));

    flush(d, 1); // the 4th commit: optimize is due
    maintain(d);
    assertTrue(d.maintenance().last().optimize().committed());
    assertEquals(List.of(), d.status().warnings());
  }

  /**
   * Updates spread over the keys mark rows deleted in every file and append their new versions:
   * once the deletion vectors delete more rows than the files hold live, the table is optimized,
   * long before its commit count or file count would have it.
   */
  @Test
  void aTableWhoseDeletionVectorsDeleteMostOfWhatReadersReadIsOptimized() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    // The layout looked at after every commit; the commit and file triggers far away.
    MergeDelivery d = new MergeDelivery(s, tables.open("items"), null,
        context(tables, new MaintenanceSettings(128L << 20, 100, 1_000, 10, 1)), MergeSettings.DEFAULT);
    for (long id = 0; id < 100; id++, offset++) {
      d.accept(event("t", 0, offset, Operation.CREATE, 1000L + offset, row("id", id, "name", "a")));
    }
    d.flush();
    maintain(d);
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    DeltaTable t = tables.open("items");
    // Each round updates a random half of the keys: about 50 rows deleted by vectors, 50 appended.
    for (int round = 1; round <= 4; round++) {
      for (long id = 0; id < 100; id++) {
        if (random.nextBoolean()) {
          d.accept(event("t", 0, offset++, Operation.UPDATE, 1000L + offset, row("id", id, "name", "r" + round)));
        }
      }
      d.flush();
      t.refresh();
      long live = t.files().stream().mapToLong(io.lakesink.delta.TableFile::rows).sum();
      long deleted = t.files().stream().mapToLong(io.lakesink.delta.TableFile::deletedRows).sum();
      assertEquals(100, live);
      maintain(d);
      String what = "round " + round + ": " + deleted + " rows deleted, " + live + " live";
      if (deleted <= live) {
        assertNull(d.maintenance().last().optimize(), what + ": not due");
        continue;
      }
      assertNotNull(d.maintenance().last().optimize(), what + ": due");
      assertTrue(d.maintenance().last().optimize().committed(), d.maintenance().last().toString());
      t.refresh();
      assertEquals(0, t.files().stream().mapToLong(io.lakesink.delta.TableFile::deletedRows).sum(), "the optimize purged them");
      assertEquals(100, content(t).size());
      assertTrue(round > 1, "a round deletes at most as many rows as it appends");
      return;
    }
    throw new AssertionError("not optimized though the deletion vectors delete more rows than are live");
  }
}
