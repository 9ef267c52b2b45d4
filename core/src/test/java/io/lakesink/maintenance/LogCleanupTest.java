package io.lakesink.maintenance;

import static io.lakesink.maintenance.MaintenanceTables.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.DeltaTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogCleanupTest {
  @TempDir Path dir;

  static Path log(Path root, long version, String suffix) {
    return root.resolve("_delta_log").resolve(String.format("%020d.%s", version, suffix));
  }

  @Test
  void deliveryCommitsCheckpointEveryTenVersions() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 25, 5);
    Path root = tables.root("events_APPEND");
    assertTrue(Files.exists(log(root, 10, "checkpoint.parquet")));
    assertTrue(Files.exists(log(root, 20, "checkpoint.parquet")));
    assertFalse(Files.exists(log(root, 25, "checkpoint.parquet")));
  }

  @Test
  void logFilesPastTheRetentionGoOnlyBeforeACheckpointThatStays() {
    MaintenanceTables tables = new MaintenanceTables(dir);
    DeltaTable t = tables.open("events_APPEND");
    MaintenanceTables.changelog(t, 25, 5);
    Path root = tables.root("events_APPEND");
    List<String> rows = content(t);
    long version = t.version();

    TableMaintenance inside = new TableMaintenance("t", t, List.of(), MaintenanceSettings.DEFAULT,
        Clock.fixed(Instant.now().plus(Duration.ofDays(29)), ZoneOffset.UTC), line -> {});
    assertEquals(0, inside.cleanupLog(), "30 days of log retention by default");
    assertTrue(Files.exists(log(root, 0, "json")));

    TableMaintenance past = new TableMaintenance("t", t, List.of(), MaintenanceSettings.DEFAULT,
        Clock.fixed(Instant.now().plus(Duration.ofDays(31)), ZoneOffset.UTC), line -> {});
    long deleted = past.cleanupLog();

    assertTrue(deleted > 20, "deleted " + deleted);
    assertFalse(Files.exists(log(root, 0, "json")));
    assertFalse(Files.exists(log(root, 10, "checkpoint.parquet")));
    assertTrue(Files.exists(log(root, version, "checkpoint.parquet")), "the checkpoint the log now starts from stays");
    assertTrue(Files.exists(log(root, version, "json")));
    DeltaTable reopened = tables.open("events_APPEND");
    assertEquals(version, reopened.version());
    assertEquals(rows, content(reopened));
  }
}
