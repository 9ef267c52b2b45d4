package io.lakesink.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Optimize against another process's merges (a second worker on the same table): the two are not
 * coordinated, so the optimizations that lose give up and the merges that lose plan again; no
 * row is ever lost or doubled.
 */
class OptimizeAgainstAnotherProcessTest {
  static final int MERGES = 40;
  static final long SEED = 2026;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void optimizeRacingAnotherProcessesMergesLosesAndDoublesNoRow() throws Exception {
    MaintenanceTables tables = new MaintenanceTables(dir);
    Process merges = start();
    int committed = 0;
    int gaveUp = 0;
    ExecutorService optimizer = Executors.newSingleThreadExecutor();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(merges.getInputStream(), StandardCharsets.UTF_8));
        PrintStream in = new PrintStream(merges.getOutputStream(), true, StandardCharsets.UTF_8)) {
      TableMaintenance maintenance = new TableMaintenance("items", tables.open("items"), List.of("id"),
          MaintenanceSettings.DEFAULT, Clock.systemUTC(), line -> {});
      for (int i = 0; i < MERGES; i++) {
        assertEquals("merged", out.readLine(), this::log);
        // The optimization starts, then the other process's next merge: either may commit first.
        Future<OptimizeResult> optimized = optimizer.submit(() -> maintenance.optimize(false));
        in.println("go");
        OptimizeResult r = optimized.get();
        committed += r.committed() ? 1 : 0;
        gaveUp += r.gaveUp() ? 1 : 0;
      }
      assertEquals(0, merges.waitFor(), this::log);
    } finally {
      merges.destroyForcibly();
      optimizer.shutdownNow();
    }
    System.out.println("optimizations beside the other process: " + committed + " committed, " + gaveUp + " gave up");

    DeltaTable t = tables.open("items");
    assertEquals(MergeScript.model(SEED, MERGES), rows(t));
    assertFalse(new TableMaintenance("items", t, List.of("id"), MaintenanceSettings.DEFAULT, Clock.systemUTC(), line -> {})
        .optimize(false).gaveUp(), "no one races it now");
    assertEquals(MergeScript.model(SEED, MERGES), rows(t), "and after an optimization with no one racing it");
  }

  private static List<String> rows(DeltaTable t) {
    t.refresh();
    return DeltaTableReader.readAll(t).stream().map(r -> r.get("id") + "=" + r.get("name"))
        .sorted(java.util.Comparator.comparingLong(s -> Long.parseLong(s.substring(0, s.indexOf('='))))).toList();
  }

  private Process start() throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder = new ProcessBuilder(java.toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        MergeScript.class.getName(), dir.toString(), String.valueOf(MERGES), String.valueOf(SEED));
    builder.redirectError(dir.resolve("merges.log").toFile());
    return builder.start();
  }

  private String log() {
    try {
      Path file = dir.resolve("merges.log");
      return Files.exists(file) ? "\n--- the merging process ---\n" + Files.readString(file) : "";
    } catch (IOException e) {
      return e.toString();
    }
  }
}
