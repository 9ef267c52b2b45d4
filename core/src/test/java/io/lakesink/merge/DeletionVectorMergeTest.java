package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.maintenance.VacuumResult;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MERGE with deletion vectors on real Delta tables: same outcome as copy-on-write, files kept, vectors maintained. */
class DeletionVectorMergeTest {
  @TempDir Path dir;

  static final MergeSettings COPY_ON_WRITE = MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.NONE);

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table(String name) {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation(name));
  }

  Path root(String name) {
    return dir.resolve("lakesink").resolve(name);
  }

  MergeDelivery delivery(String name, MergeSettings settings, FlushHook hook) {
    Subscription s = new Subscription("t", name, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, table(name), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withHook(hook), settings);
  }

  static ChangeEvent change(long offset, Operation op, long ts, long id, String v) {
    return event("t", 0, offset, op, ts, row("id", id, "v", v));
  }

  /** Batches covering what a merge must get right; each batch is one flush. */
  static List<List<ChangeEvent>> script() {
    List<List<ChangeEvent>> batches = new ArrayList<>();
    long o = 0;
    for (int file = 0; file < 2; file++) {
      List<ChangeEvent> inserts = new ArrayList<>();
      for (long id = file * 100; id < file * 100 + 100; id++) {
        inserts.add(change(o++, Operation.CREATE, 1, id, "a" + id));
      }
      batches.add(inserts);
    }
    batches.add(List.of(
        change(o++, Operation.UPDATE, 2, 5, "b5"),
        change(o++, Operation.DELETE, 2, 10, null),
        change(o++, Operation.UPDATE, 2, 150, "b150"), // a key updated twice in one batch:
        change(o++, Operation.UPDATE, 3, 150, "c150"), // the later change wins
        change(o++, Operation.CREATE, 2, 500, "new500"),
        change(o++, Operation.DELETE, 2, 999, null))); // a key the table never held
    batches.add(List.of(
        change(o++, Operation.UPDATE, 4, 6, "d6"), // a second merge on a file that already has a vector
        change(o++, Operation.CREATE, 4, 10, "again10"), // re-insert of a deleted key
        change(o++, Operation.UPDATE, 4, 5, "d5"))); // the row the last merge wrote, in the new file
    batches.add(List.of(
        change(o++, Operation.DELETE, 5, 150, null),
        // Another partition (the key moved), ranked below the stored row: ignored. (In the
        // stored row's partition, a later offset is a later change, whatever its time.)
        event("t", 1, 0, Operation.UPDATE, 0L, row("id", 7L, "v", "older")),
        change(o++, Operation.UPDATE, 5, 199, "e199")));
    return batches;
  }

  static void run(MergeDelivery d, List<List<ChangeEvent>> batches) {
    for (List<ChangeEvent> batch : batches) {
      batch.forEach(d::accept);
      d.flush();
      assertTrue(d.state().delivering(), d.state().toString());
    }
  }

  static Map<Long, Object> content(DeltaTable t) {
    t.refresh();
    Map<Long, Object> out = new TreeMap<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(t)) {
      assertEquals(null, out.put((Long) r.get("id"), r.get("v")), "one row per key: " + r);
    }
    return out;
  }

  static List<String> vectorFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.list(root)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("deletion_vector_")).sorted().toList();
    }
  }

  @Test
  void aMergeWithDeletionVectorsEndsAsCopyOnWriteDoesWithoutRewritingAFile() throws IOException {
    run(delivery("cow", COPY_ON_WRITE, FlushHook.NONE), script());
    MergeDelivery dv = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    List<List<ChangeEvent>> batches = script();
    run(dv, batches.subList(0, 2));
    Set<String> inserted = table("dv").files().stream().map(TableFile::path).collect(Collectors.toSet());
    run(dv, batches.subList(2, batches.size()));

    Map<Long, Object> expected = content(table("cow"));
    assertEquals(expected, content(table("dv")));
    assertEquals("again10", expected.get(10L));
    assertEquals("d5", expected.get(5L));
    assertEquals("a7", expected.get(7L));
    assertFalse(expected.containsKey(150L) || expected.containsKey(999L));
    assertEquals(200, expected.size()); // 200 inserted, 500 added, 150 deleted

    DeltaTable t = table("dv");
    assertTrue(t.deletionVectorsEnabled());
    assertFalse(table("cow").deletionVectorsEnabled());
    List<TableFile> files = t.files();
    Set<String> live = files.stream().map(TableFile::path).collect(Collectors.toSet());
    assertTrue(live.containsAll(inserted), "no file rewritten: " + live);
    TableFile first = files.stream().filter(f -> inserted.contains(f.path()) && Long.valueOf(0).equals(f.min().get("id")))
        .findFirst().orElseThrow();
    assertEquals(3, first.deletedRows(), "5, 10 and 6 deleted by the vector of the ids 0-99 file: " + first);
    assertEquals(97, first.rows(), "live rows");
    assertEquals(expected.size(), files.stream().mapToLong(TableFile::rows).sum(), "live rows of the table");
    String protocol = Files.readString(root("dv").resolve("_delta_log").resolve(String.format("%020d.json", 0)));
    assertTrue(protocol.contains("\"minReaderVersion\":3") && protocol.contains("\"minWriterVersion\":7")
        && protocol.contains("deletionVectors"), protocol);
    assertFalse(vectorFiles(root("dv")).isEmpty());
  }

  @Test
  void aFileWhoseEveryRowIsDeletedIsRemovedInsteadOfKeptWithAVectorOfAllItsRows() throws IOException {
    MergeDelivery d = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    Map<Long, Object> expected = new TreeMap<>();
    long o = 0;
    List<List<ChangeEvent>> inserts = new ArrayList<>();
    for (int file = 0; file < 2; file++) {
      List<ChangeEvent> batch = new ArrayList<>();
      for (long id = file * 100; id < file * 100 + 100; id++) {
        batch.add(change(o++, Operation.CREATE, 1, id, "a" + id));
        expected.put(id, "a" + id);
      }
      inserts.add(batch);
    }
    run(d, inserts);
    TableFile first = table("dv").files().stream().filter(f -> Long.valueOf(0).equals(f.min().get("id"))).findFirst().orElseThrow();

    // Half of the first file's rows replaced: it keeps a vector of 50 rows.
    List<ChangeEvent> half = new ArrayList<>();
    for (long id = 0; id < 50; id++) {
      half.add(change(o++, Operation.UPDATE, 2, id, "b" + id));
      expected.put(id, "b" + id);
    }
    run(d, List.of(half));
    assertEquals(50, table("dv").files().stream().filter(f -> f.path().equals(first.path())).findFirst().orElseThrow().deletedRows());

    // The other half deleted or replaced, and one row of the second file deleted, in one commit.
    List<ChangeEvent> rest = new ArrayList<>();
    for (long id = 50; id < 100; id++) {
      boolean delete = id < 90;
      rest.add(change(o++, delete ? Operation.DELETE : Operation.UPDATE, 3, id, delete ? null : "c" + id));
      if (delete) {
        expected.remove(id);
      } else {
        expected.put(id, "c" + id);
      }
    }
    rest.add(change(o++, Operation.DELETE, 3, 150, null));
    expected.remove(150L);
    int vectorsBefore = vectorFiles(root("dv")).size();
    run(d, List.of(rest));

    DeltaTable t = table("dv");
    List<TableFile> files = t.files();
    assertFalse(files.stream().anyMatch(f -> f.path().equals(first.path())), "the emptied file is gone: " + files);
    TableFile second = files.stream().filter(f -> Long.valueOf(100).equals(f.min().get("id"))).findFirst().orElseThrow();
    assertEquals(1, second.deletedRows(), "the other file keeps its vector: " + second);
    assertEquals(expected, content(t));
    assertEquals(expected.size(), files.stream().mapToLong(TableFile::rows).sum(), "live rows of the table");
    String commit = Files.readString(root("dv").resolve("_delta_log").resolve(String.format("%020d.json", t.version())));
    String name = first.path().substring(first.path().lastIndexOf('/') + 1);
    List<String> actions = commit.lines().filter(l -> l.contains(name)).toList();
    assertEquals(1, actions.size(), "one action names the emptied file: " + actions);
    assertTrue(actions.get(0).startsWith("{\"remove\""), actions.get(0));
    assertEquals(vectorsBefore + 1, vectorFiles(root("dv")).size(), "one vector file, for the second file only");
  }

  @Test
  void aCrashAfterTheVectorIsWrittenLeavesAnOrphanThatVacuumRemovesAndKeepsWhatVersionsReference() throws IOException {
    MergeDelivery d = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    List<List<ChangeEvent>> batches = script();
    run(d, batches.subList(0, 3));
    Map<Long, Object> before = content(table("dv"));
    long version = table("dv").version();
    List<String> referenced = vectorFiles(root("dv"));
    assertEquals(1, referenced.size());

    // The process dies between the written files (data and vector) and the commit.
    MergeDelivery crashing = delivery("dv", MergeSettings.DEFAULT, (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT) {
        throw new Crash();
      }
    });
    batches.get(3).forEach(crashing::accept);
    assertThrows(Crash.class, crashing::flush);
    assertEquals(version, table("dv").version(), "nothing committed");
    assertEquals(before, content(table("dv")), "nothing visible");
    List<String> afterCrash = vectorFiles(root("dv"));
    assertEquals(2, afterCrash.size(), "the crashed merge's vector file is an orphan");
    String orphan = afterCrash.stream().filter(n -> !referenced.contains(n)).findFirst().orElseThrow();

    // Restarted, the batch is merged again; a vector file replaced by a newer one stays referenced by the remove.
    MergeDelivery restarted = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    run(restarted, batches.subList(3, 5));
    Map<Long, Object> now = content(table("dv"));
    List<String> all = vectorFiles(root("dv"));
    assertEquals(4, all.size(), all.toString());
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(30)));
    for (String name : all) {
      Files.setLastModifiedTime(root("dv").resolve(name), old);
    }

    VacuumResult inside = maintenance(Instant.now()).vacuum(Optional.empty(), false, false);
    assertEquals(1, inside.filesDeleted(), inside.toString());
    assertFalse(Files.exists(root("dv").resolve(orphan)), "the orphan of the crash is gone");
    assertTrue(vectorFiles(root("dv")).containsAll(referenced),
        "the vector the first merge wrote is named by a remove inside the retention: time travel needs it");
    assertEquals(now, content(table("dv")));

    VacuumResult past = maintenance(Instant.now().plus(Duration.ofHours(169))).vacuum(Optional.empty(), false, false);
    List<String> left = vectorFiles(root("dv"));
    assertEquals(2, left.size(), "only the vectors the latest version names are left: " + left + " " + past);
    assertFalse(left.containsAll(referenced), "the first merge's vector went with the retention");
    assertEquals(past.live().files(), past.after().files(), "what is left is live, vector files included: " + past);
    assertEquals(now, content(table("dv")), "the latest version reads the same");
  }

  @Test
  void optimizePurgesDeletedRowsAndPicksASingleFileWhoseVectorDeletesALargeShare() throws IOException {
    purges(List.of("id"));
  }

  @Test
  void compactionWithoutAKeyPurgesASingleFileWhoseVectorDeletesALargeShareToo() throws IOException {
    purges(List.of()); // a table keyed on the record key is compacted, not clustered
  }

  void purges(List<String> optimizeKey) throws IOException {
    MergeDelivery d = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    List<ChangeEvent> inserts = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      inserts.add(change(id, Operation.CREATE, 1, id, "a" + id));
    }
    List<ChangeEvent> deletes = new ArrayList<>();
    for (long id = 0; id < 10; id++) {
      deletes.add(change(100 + id, Operation.DELETE, 2, id * 3, null));
    }
    run(d, List.of(inserts, deletes));
    List<TableFile> before = table("dv").files();
    assertEquals(1, before.size(), "deletes only: one file, 10 % of it deleted");
    assertEquals(10, before.get(0).deletedRows());
    Map<Long, Object> content = content(table("dv"));

    TableMaintenance maintenance =
        new TableMaintenance("dv", table("dv"), optimizeKey, MaintenanceSettings.DEFAULT, Clock.systemUTC(), line -> {});
    assertTrue(maintenance.optimize(false).committed(), "one file, but a tenth of it deleted");
    List<TableFile> after = table("dv").files();
    assertEquals(0, after.stream().mapToLong(TableFile::deletedRows).sum(), "no vector left");
    assertEquals(90, after.stream().mapToLong(TableFile::rows).sum(), "the Parquet files hold only live rows");
    assertEquals(content, content(table("dv")));
  }

  @Test
  void anExistingCopyOnWriteTableGetsDeletionVectorsOnlyWhenTheOperatorAsks() {
    List<List<ChangeEvent>> batches = script();
    run(delivery("t", COPY_ON_WRITE, FlushHook.NONE), batches.subList(0, 2));
    run(delivery("t", MergeSettings.DEFAULT, FlushHook.NONE), batches.subList(2, 3));
    assertFalse(table("t").deletionVectorsEnabled(), "new_tables leaves an existing table as it is");
    Set<String> files = table("t").files().stream().map(TableFile::path).collect(Collectors.toSet());

    run(delivery("t", MergeSettings.DEFAULT.withDeletionVectors(MergeSettings.DeletionVectors.ALL), FlushHook.NONE),
        batches.subList(3, 5));
    assertTrue(table("t").deletionVectorsEnabled());
    assertTrue(table("t").files().stream().map(TableFile::path).collect(Collectors.toSet()).containsAll(files), "no rewrite");
    run(delivery("cow", COPY_ON_WRITE, FlushHook.NONE), batches);
    assertEquals(content(table("cow")), content(table("t")));
  }

  @Test
  void vectorsSurviveACheckpointAndEveryMergeOnTheSameFileAddsToItsVector() throws IOException {
    MergeDelivery d = delivery("dv", MergeSettings.DEFAULT, FlushHook.NONE);
    Map<Long, Object> expected = new TreeMap<>();
    List<ChangeEvent> inserts = new ArrayList<>();
    for (long id = 0; id < 50; id++) {
      inserts.add(change(id, Operation.CREATE, 1, id, "a" + id));
      expected.put(id, "a" + id);
    }
    run(d, List.of(inserts));
    long offset = 50;
    for (int merge = 0; merge < 12; merge++) { // past delta.checkpointInterval (10)
      long id = merge * 4L;
      boolean delete = merge % 3 == 0;
      run(d, List.of(List.of(change(offset++, delete ? Operation.DELETE : Operation.UPDATE, 2 + merge, id, "m" + merge))));
      if (delete) {
        expected.remove(id);
      } else {
        expected.put(id, "m" + merge);
      }
    }
    try (Stream<Path> log = Files.list(root("dv").resolve("_delta_log"))) {
      assertTrue(log.anyMatch(p -> p.getFileName().toString().endsWith(".checkpoint.parquet")), "a checkpoint was written");
    }
    assertEquals(expected, content(table("dv")), "read through the checkpoint");
    TableFile first = table("dv").files().stream().filter(f -> Long.valueOf(0).equals(f.min().get("id"))).findFirst().orElseThrow();
    assertEquals(12, first.deletedRows(), "each merge added its row to the file's vector: " + first);
  }

  TableMaintenance maintenance(Instant now) {
    return new TableMaintenance("dv", table("dv"), List.of("id"), MaintenanceSettings.DEFAULT, Clock.fixed(now, ZoneOffset.UTC), line -> {});
  }

  /** What a killed process does to a flush: it never returns. */
  static final class Crash extends Error {}
}
