package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.TableFile;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another writer (a second worker, delta-spark) keeps changing the files an optimization
 * rewrites: each try gives up safely, the next comes sooner and rewrites less, and repeated
 * give-ups are a warning until one goes through.
 */
class OptimizeGiveUpTest {
  static final Pattern READ = Pattern.compile("read (\\d+) files");

  @TempDir Path dir;

  @Test
  void triesAfterGiveUpsComeSoonerWithASmallerScopeAndAreWarnedUntilOneGoesThrough() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 16, 20, 7); // 16 small files whose key ranges overlap
    long tableBytes = t.files().stream().mapToLong(TableFile::size).sum();
    DeltaTable other = tables.open("items");
    List<Integer> filesRead = new ArrayList<>();
    boolean[] racing = {true};
    // Whenever optimize has read what it clusters, the other writer rewrites the file with the
    // lowest key, which every step takes first.
    MaintenanceSettings settings = new MaintenanceSettings(128L << 20, 4, 1_000, 10, 2).withSteps(tableBytes, tableBytes);
    TableMaintenance maintenance = new TableMaintenance("items", tables.open("items"), List.of("id"), settings, Clock.systemUTC(), line -> {
          Matcher m = READ.matcher(line);
          if (m.find()) {
            filesRead.add(Integer.parseInt(m.group(1)));
            if (racing[0]) {
              rewriteLowest(other, filesRead.size());
            }
          }
        });
    MaintenanceRunner runner = new MaintenanceRunner(maintenance, List.of("id"), true,
        new MaintenancePolicy(true, settings, Runnable::run));

    poll(runner); // the file count, looked at on start
    commits(runner, 4);
    poll(runner);
    assertEquals(1, runner.state().optimizeGiveUps());
    assertEquals(List.of(16), filesRead, "the first try takes the whole table");

    commits(runner, 1);
    poll(runner);
    assertEquals(1, filesRead.size(), "not yet: the next try comes after 2 commits");
    commits(runner, 1);
    poll(runner);
    commits(runner, 2);
    poll(runner);

    assertEquals(3, runner.state().optimizeGiveUps());
    assertTrue(filesRead.get(1) < filesRead.get(0) && filesRead.get(2) < filesRead.get(1),
        "each try after a give-up rewrites less: " + filesRead);
    List<String> warnings = runner.warnings().current();
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("gave up 3 times in a row") && warnings.get(0).contains("lakesink maintain --table items"),
        warnings.get(0));
    assertRowsKept(t, 3);

    racing[0] = false;
    List<String> before = content(t);
    commits(runner, 2);
    do {
      poll(runner);
    } while (runner.pending());
    assertEquals(0, runner.state().optimizeGiveUps());
    assertEquals(List.of(), runner.warnings().current(), "the warning clears once an optimization goes through");
    assertTrue(runner.last().optimize().committed(), runner.last().toString());
    assertEquals(before, content(t), "optimize changes no row");
  }

  /** A storage failure is not a lost race: the optimization is tried again when next due, with its whole scope. */
  @Test
  void aStorageFailureIsTriedAgainWhenNextDueAndIsNoGiveUp() {
    io.lakesink.testing.FlakyStorage storage = new io.lakesink.testing.FlakyStorage(dir);
    DeltaTable t = new DeltaTable(io.lakesink.delta.KernelEngine.create(storage), storage.tableLocation("items"));
    MaintenanceTables.merged(t, 8, 20, 3);
    List<String> before = content(t);
    MaintenanceSettings settings = new MaintenanceSettings(128L << 20, 4, 1_000, 10, 2);
    MaintenanceRunner runner = new MaintenanceRunner(
        new TableMaintenance("items", new DeltaTable(io.lakesink.delta.KernelEngine.create(storage), storage.tableLocation("items")),
            List.of("id"), settings, Clock.systemUTC(), line -> {}),
        List.of("id"), true, new MaintenancePolicy(true, settings, Runnable::run));
    poll(runner); // the file count, on start

    storage.failNextCommits(1, io.lakesink.testing.FlakyStorage.Fault.FAIL_BEFORE_WRITE);
    commits(runner, 4);
    poll(runner);
    assertEquals(0, runner.state().optimizeGiveUps(), "an I/O failure is no lost race");
    assertEquals(List.of(), runner.warnings().current());
    assertEquals(8, t.files().size(), "nothing committed");

    commits(runner, 2);
    poll(runner);
    assertEquals(null, runner.last().optimize(), "not due again after 2 commits: the next try comes with the next 4");
    commits(runner, 2);
    do {
      poll(runner);
    } while (runner.pending());
    assertTrue(runner.last().optimize().committed(), runner.last().toString());
    assertEquals(before, content(t));
  }

  /** What the other writer did last stands, and no row of the table was lost or doubled. */
  private static void assertRowsKept(DeltaTable t, int rewrites) {
    t.refresh();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(t);
    assertEquals(320, rows.size());
    assertEquals(320, new TreeSet<>(rows.stream().map(r -> (Long) r.get("id")).toList()).size());
    // Each rewrite took the same file (the lowest keys): its rows carry the last one's name.
    assertEquals(20, rows.stream().filter(r -> ("rewritten-" + rewrites).equals(r.get("name"))).count());
  }

  /** A copy-on-write merge of the other writer: the file with the lowest key, every row renamed. */
  private static void rewriteLowest(DeltaTable other, int round) {
    other.refresh();
    TableFile victim = other.files().stream().min(Comparator.comparing(f -> (Long) f.min().get("id"))).orElseThrow();
    List<Object[]> rows = new ArrayList<>();
    for (Map<String, Object> row : other.read(victim)) {
      rows.add(new Object[] {row.get("id"), row.get("region"), "rewritten-" + round});
    }
    MaintenanceTables.mergedCommit(other, rows, List.of(victim));
  }

  private static void commits(MaintenanceRunner runner, int n) {
    for (int i = 0; i < n; i++) {
      runner.committed();
    }
  }

  private static void poll(MaintenanceRunner runner) {
    runner.poll(false);
    runner.await();
    assertFalse(runner.holdsDelivery());
  }
}
