package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableRewrite;
import io.lakesink.error.ConfigurationException;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VacuumTest {
  @TempDir Path dir;

  static TableMaintenance at(DeltaTable t, Instant now) {
    return new TableMaintenance("t", t, List.of("id"), OptimizeTest.SMALL, Clock.fixed(now, ZoneOffset.UTC), line -> {});
  }

  static boolean allExist(List<String> paths) {
    return paths.stream().allMatch(p -> Files.exists(Path.of(URI.create(p.startsWith("file:/") && !p.startsWith("file:///") ? "file://" + p.substring(5) : p))));
  }

  @Test
  void filesOfRetainedVersionsStayAndExpiredOnesGo() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 12, 50, 4);
    long beforeOptimize = t.version();
    List<String> rows = content(t);
    assertTrue(at(t, Instant.now()).optimize(false).committed());
    int live = t.files().size();

    // inside the retention: time travel to the version before the optimize still finds every file
    VacuumResult soon = at(t, Instant.now().plus(Duration.ofHours(167))).vacuum(Optional.empty(), false, false);
    assertEquals(0, soon.filesDeleted(), soon.toString());
    assertTrue(allExist(MaintenanceTables.filesAt(t, beforeOptimize)));

    // past it: the files only old versions referenced are deleted, the latest version reads the same
    VacuumResult late = at(t, Instant.now().plus(Duration.ofHours(169))).vacuum(Optional.empty(), false, false);
    assertEquals(12, late.filesDeleted(), late.toString());
    assertEquals(live, late.after().files());
    assertEquals(rows, content(t));
    assertTrue(allExist(MaintenanceTables.filesAt(t, t.version())));
    assertFalse(allExist(MaintenanceTables.filesAt(t, beforeOptimize)));
    assertEquals(live, MaintenanceTables.dataFiles(tables.root("items")).size());
  }

  @Test
  void orphansOfACrashedWriteGoOnceOlderThanTheRetentionAndHiddenFilesNeverDo() throws IOException {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 6, 30);
    TableRewrite crashed = TableRewrite.begin(t, Map.of());
    crashed.copy(crashed.files().stream().filter(f -> f.partitionValues().get("__ingest_date").equals("2026-11-28")).toList());
    Path root = tables.root("events_APPEND");
    Path hidden = Files.writeString(root.resolve("_hidden.parquet"), "x");
    Path dot = Files.writeString(root.resolve("__ingest_date=2026-11-28").resolve(".part.crc"), "x");
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(30)));
    Files.setLastModifiedTime(hidden, old);
    Files.setLastModifiedTime(dot, old);
    List<Path> log = MaintenanceTables.dataFiles(root.resolve("_delta_log"));
    int files = MaintenanceTables.dataFiles(root).size();

    assertEquals(0, at(t, Instant.now()).vacuum(Optional.empty(), false, false).filesDeleted(), "young orphans stay");
    VacuumResult dry = at(t, Instant.now().plus(Duration.ofDays(8))).vacuum(Optional.empty(), false, true);
    assertEquals(1, dry.filesDeleted(), dry.toString());
    assertEquals(files, MaintenanceTables.dataFiles(root).size(), "a dry run deletes nothing");
    VacuumResult r = at(t, Instant.now().plus(Duration.ofDays(8))).vacuum(Optional.empty(), false, false);

    assertEquals(1, r.filesDeleted(), r.toString());
    assertEquals(files - 1, MaintenanceTables.dataFiles(root).size());
    assertTrue(Files.exists(hidden) && Files.exists(dot));
    assertEquals(log, MaintenanceTables.dataFiles(root.resolve("_delta_log")));
    assertTrue(allExist(MaintenanceTables.filesAt(t, t.version())));
  }

  @Test
  void aShorterRetentionNeedsTheOptionAndBelowTheSafeMinimumForce() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.merged(t, 6, 20, 5);
    assertTrue(at(t, Instant.now()).optimize(false).committed());
    Instant in3h = Instant.now().plus(Duration.ofHours(3));

    assertEquals(0, at(t, in3h).vacuum(Optional.empty(), false, false).filesDeleted());
    assertEquals(6, at(t, in3h).vacuum(Optional.of(Duration.ofHours(2)), false, true).filesDeleted());
    ConfigurationException refused =
        assertThrows(ConfigurationException.class, () -> at(t, in3h).vacuum(Optional.of(Duration.ofMinutes(10)), false, false));
    assertTrue(refused.getMessage().contains("--force"), refused.getMessage());
    assertEquals(6, at(t, in3h).vacuum(Optional.of(Duration.ofMinutes(10)), true, false).filesDeleted());
  }

  @Test
  void theTablesOwnDeletedFileRetentionIsHonoured() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("items");
    MaintenanceTables.mergedCommit(t, List.<Object[]>of(new Object[] {1L, "r", "a"}), List.of(),
        Map.of("delta.deletedFileRetentionDuration", "interval 2 hours"));
    MaintenanceTables.mergedCommit(t, List.<Object[]>of(new Object[] {2L, "r", "b"}), List.of());
    assertTrue(at(t, Instant.now()).optimize(false).committed());

    VacuumResult r = at(t, Instant.now().plus(Duration.ofHours(3))).vacuum(Optional.empty(), false, false);
    assertEquals(Duration.ofHours(2), r.retention());
    assertEquals(2, r.filesDeleted(), r.toString());
  }

  @Test
  void aVacuumThatDiesHalfwayLosesNothingAndTheNextOneFinishes() {
    AtomicInteger deletesLeft = new AtomicInteger(3);
    MaintenanceTables tables = new MaintenanceTables(dir);
    TableStorage dying = new TableStorage() {
      final FileIO io = new ForwardingFileIO(tables.storage.fileIO()) {
        @Override
        public boolean delete(String path) throws IOException {
          if (deletesLeft.decrementAndGet() < 0) {
            throw new IOException("process killed");
          }
          return super.delete(path);
        }
      };

      @Override
      public String tableLocation(String tableName) {
        return tables.storage.tableLocation(tableName);
      }

      @Override
      public FileIO fileIO() {
        return io;
      }

      @Override
      public String describe() {
        return "dying";
      }
    };
    DeltaTable t = new DeltaTable(KernelEngine.create(dying), dying.tableLocation("items"));
    MaintenanceTables.merged(t, 10, 20, 6);
    List<String> rows = content(t);
    assertTrue(at(t, Instant.now()).optimize(false).committed());
    Instant later = Instant.now().plus(Duration.ofDays(8));

    assertThrows(RuntimeException.class, () -> at(t, later).vacuum(Optional.empty(), false, false));
    assertEquals(rows, content(tables.open("items")));
    assertTrue(allExist(MaintenanceTables.filesAt(t, t.version())));

    deletesLeft.set(Integer.MAX_VALUE);
    VacuumResult rest = at(t, later).vacuum(Optional.empty(), false, false);
    assertEquals(7, rest.filesDeleted(), rest.toString());
    assertEquals(rows, content(tables.open("items")));
  }
}
