package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.commitJson;
import static io.lakesink.maintenance.MaintenanceTables.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.delta.TableRewrite;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OptimizeTest {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Small files in tests: several output files from a few thousand rows. */
  static final MaintenanceSettings SMALL = MaintenanceSettings.DEFAULT.withTargetFileBytes(16 << 10);

  @TempDir Path dir;

  TableMaintenance maintenance(DeltaTable t, List<String> key) {
    return new TableMaintenance("t", t, key, SMALL, Clock.systemUTC(), line -> {});
  }

  @Test
  void changelogIsCompactedWithinEachDateInOneOptimizeCommit() throws Exception {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 40, 100);
    List<String> before = content(t);
    int filesBefore = t.files().size();

    OptimizeResult r = maintenance(t, List.of()).optimize(false);

    assertTrue(r.committed(), r.toString());
    assertEquals(before, content(t));
    List<TableFile> after = t.files();
    assertTrue(after.size() < filesBefore / 4, "files before " + filesBefore + ", after " + after.size());
    assertTrue(after.size() >= 4, "the small target forces several files per date: " + after.size());
    assertEquals(r.after().files(), after.size());
    assertEquals(Set.of(Map.of("__ingest_date", "2026-11-28"), Map.of("__ingest_date", "2026-11-29")),
        new HashSet<>(after.stream().map(TableFile::partitionValues).toList()));
    // each new file holds the rows of one date only (its directory is its partition)
    for (TableFile f : after) {
      assertTrue(f.path().contains("__ingest_date=" + f.partitionValues().get("__ingest_date")), f.path());
    }
    JsonNode info = null;
    int adds = 0;
    int removes = 0;
    for (String line : commitJson(tables.root("events_APPEND"), r.version().getAsLong()).split("\n")) {
      JsonNode action = JSON.readTree(line);
      if (action.has("commitInfo")) {
        info = action.get("commitInfo");
      } else if (action.has("add")) {
        adds++;
        assertFalse(action.get("add").get("dataChange").asBoolean(), line);
      } else if (action.has("remove")) {
        removes++;
        assertFalse(action.get("remove").get("dataChange").asBoolean(), line);
      }
    }
    assertEquals("OPTIMIZE", info.get("operation").asText());
    assertEquals(String.valueOf(removes), info.get("operationMetrics").get("numRemovedFiles").asText());
    assertEquals(String.valueOf(adds), info.get("operationMetrics").get("numAddedFiles").asText());
    assertEquals(filesBefore, removes);

    // it converges: a second run only packs output files still under half the target, into fewer
    OptimizeResult again = maintenance(t, List.of()).optimize(false);
    assertTrue(again.after().files() <= after.size(), again.toString());
    assertEquals(before, content(t));
  }

  /**
   * A MERGE table larger than one clustering step is compacted in steps of at most the step's
   * budget, in key order, never whole; what the steps wrote is not small any more, so later
   * optimizations settle (here the tiny files shrink a lot when packed, so it takes a round or
   * two) instead of rewriting the table every time.
   */
  @Test
  void aTableLargerThanOneClusteringStepIsCompactedInStepsAndNotRewrittenAgain() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 30, 100, 2);
    List<String> before = content(t);
    long tableBytes = t.files().stream().mapToLong(TableFile::size).sum();
    long budget = tableBytes / 4;
    MaintenanceSettings stepped = MaintenanceSettings.DEFAULT.withTargetFileBytes(1L << 20).withSteps(1L << 30, budget);
    List<String> progress = new java.util.ArrayList<>();
    TableMaintenance m = new TableMaintenance("t", t, List.of("id"), stepped, Clock.systemUTC(), progress::add);

    OptimizeResult r = m.optimize(false);

    assertTrue(r.committed(), r.toString());
    assertEquals(before, content(t));
    List<Long> readPerStep = progress.stream().filter(l -> l.contains(" rows; clustering on ")).map(l -> {
      java.util.regex.Matcher x = java.util.regex.Pattern.compile("read (\\d+) files").matcher(l);
      assertTrue(x.find(), l);
      return Long.parseLong(x.group(1));
    }).toList();
    assertTrue(readPerStep.size() >= 4, "several steps, each within the budget: " + progress);
    assertTrue(t.files().size() < 30 / 2, "files after: " + t.files().size());
    int rounds = 0;
    for (OptimizeResult again = m.optimize(false); again.committed(); again = m.optimize(false)) {
      assertTrue(again.filesRewritten() < r.filesRewritten() / 2, again.toString());
      assertTrue(++rounds <= 3, "optimizations settle: " + again);
    }
    assertEquals(before, content(t));
  }

  @Test
  void mergeTableIsClusteredOnItsKeySoFileKeyRangesDoNotOverlap() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 30, 100, 1);
    List<String> before = content(t);
    assertTrue(overlapping(t.files()), "random inserts: files overlap on id before");

    OptimizeResult r = maintenance(t, List.of("id")).optimize(false);

    assertTrue(r.committed(), r.toString());
    assertEquals(before, content(t));
    List<TableFile> after = t.files();
    assertTrue(after.size() >= 3 && after.size() < 30, "files after: " + after.size());
    assertFalse(overlapping(after), "clustered files have disjoint id ranges: " + ranges(after));
    assertTrue(commitJson(tables.root("items"), r.version().getAsLong()).contains("\"zOrderBy\":\"[\\\"id\\\"]\""));
  }

  @Test
  void filesMoreThanOneAndAHalfTimesTheTargetAreSplitEvenWhenAlreadyInKeyOrder() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    // written in key order: disjoint ranges, each file several times the 16 KiB target
    for (long c = 0; c < 2; c++) {
      List<Object[]> rows = new ArrayList<>();
      for (long id = c * 3000; id < (c + 1) * 3000; id++) {
        rows.add(new Object[] {id, "region-" + (id % 5), "name-" + id + "-" + Long.toHexString(id * 0x9E3779B97F4A7C15L)});
      }
      MaintenanceTables.mergedCommit(t, rows, List.of());
    }
    List<String> before = content(t);
    assertFalse(overlapping(t.files()), ranges(t.files()).toString());
    long largest = t.files().stream().mapToLong(TableFile::size).max().orElseThrow();
    assertTrue(largest > 2 * SMALL.targetFileBytes(), "the test needs oversized files: " + largest);

    OptimizeResult r = maintenance(t, List.of("id")).optimize(false);

    assertTrue(r.committed(), r.toString());
    assertEquals(before, content(t));
    List<TableFile> after = t.files();
    assertTrue(after.size() >= 4, "split into files of about the target: " + after.size() + " files, " + r);
    assertFalse(overlapping(after), "still clustered: " + ranges(after));
    assertTrue(after.stream().allMatch(f -> f.size() <= SMALL.targetFileBytes() * 3 / 2), r.toString());
    // it converges: the split files are not rewritten again
    assertFalse(maintenance(t, List.of("id")).optimize(false).committed());
  }

  @Test
  void severalKeyColumnsAreZOrdered() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 20, 100, 2);
    List<String> before = content(t);

    OptimizeResult r = new TableMaintenance("t", t, List.of("region", "id"), MaintenanceSettings.DEFAULT.withTargetFileBytes(6 << 10),
        Clock.systemUTC(), line -> {}).optimize(false);

    assertTrue(r.committed(), r.toString());
    assertEquals(before, content(t));
    // Z-order keeps locality on both columns: most files hold fewer than all 5 regions
    long narrow = t.files().stream().filter(f -> !f.min().get("region").equals(f.max().get("region"))).count();
    assertTrue(t.files().size() >= 3, "files: " + t.files().size());
    assertTrue(t.files().stream().anyMatch(f -> !"region-0".equals(f.min().get("region")) || !"region-4".equals(f.max().get("region"))),
        "some file must not span every region: " + narrow);
  }

  @Test
  void aConcurrentAppendWinsAndTheOptimizeIsCommittedOnTopOfIt() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 10, 50);
    TableRewrite rewrite = TableRewrite.begin(t, Map.of());
    List<TableFile> day = rewrite.files().stream().filter(f -> f.partitionValues().get("__ingest_date").equals("2026-11-28")).toList();
    rewrite.copy(day);

    DeltaTable delivery = tables.open("events_APPEND"); // another writer: the worker's delivery
    MaintenanceTables.changelog(delivery, 1, 7);
    long deliveryVersion = delivery.version();
    List<String> withDelivery = content(t);

    OptionalLong v = rewrite.commit(Map.of());

    assertEquals(OptionalLong.of(deliveryVersion + 1), v);
    assertEquals(withDelivery, content(t));
  }

  @Test
  void anOptimizeWhoseFilesAMergeRewroteGivesUpAndTheMergeStands() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 6, 20, 3);
    TableRewrite rewrite = TableRewrite.begin(t, Map.of());
    List<TableFile> all = rewrite.files();
    rewrite.copy(all);

    DeltaTable delivery = tables.open("items");
    TableFile victim = delivery.files().get(0);
    List<Object[]> rewritten = new ArrayList<>();
    for (Map<String, Object> row : delivery.read(victim)) {
      rewritten.add(new Object[] {row.get("id"), row.get("region"), "updated"});
    }
    MaintenanceTables.mergedCommit(delivery, rewritten, List.of(victim));
    List<String> merged = content(t);

    assertEquals(OptionalLong.empty(), rewrite.commit(Map.of()));
    assertEquals(merged, content(t));
    assertTrue(merged.stream().anyMatch(r -> r.contains("name=updated")));
  }

  @Test
  void filesOfAnOptimizeThatNeverCommittedAreInvisible() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 10, 50);
    List<String> before = content(t);
    long version = t.version();
    int onDisk = MaintenanceTables.dataFiles(tables.root("events_APPEND")).size();

    TableRewrite crashed = TableRewrite.begin(t, Map.of());
    crashed.copy(crashed.files().stream().filter(f -> f.partitionValues().get("__ingest_date").equals("2026-11-29")).toList());
    // the process dies here: no commit

    assertTrue(MaintenanceTables.dataFiles(tables.root("events_APPEND")).size() > onDisk, "the crash left files behind");
    assertEquals(version, tables.open("events_APPEND").version());
    assertEquals(before, content(tables.open("events_APPEND")));
    // and a later optimize proceeds normally
    assertTrue(maintenance(tables.open("events_APPEND"), List.of()).optimize(false).committed());
    assertEquals(before, content(t));
  }

  @Test
  void aDryRunChangesNothing() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 10, 50);
    long version = t.version();
    OptimizeResult r = maintenance(t, List.of()).optimize(true);
    assertTrue(r.dryRun() && r.filesRewritten() == 10 && r.after().files() < 10, r.toString());
    assertEquals(version, tables.open("events_APPEND").version());
  }

  static boolean overlapping(List<TableFile> files) {
    List<TableFile> byMin = new ArrayList<>(files);
    byMin.sort(Comparator.comparingLong(f -> (Long) f.min().get("id")));
    for (int i = 1; i < byMin.size(); i++) {
      if ((Long) byMin.get(i).min().get("id") <= (Long) byMin.get(i - 1).max().get("id")) {
        return true;
      }
    }
    return false;
  }

  static List<String> ranges(List<TableFile> files) {
    return files.stream().map(f -> f.min().get("id") + ".." + f.max().get("id")).toList();
  }
}
