package io.lakesink.maintenance;

import java.time.Duration;

/**
 * When maintenance runs and what it aims for.
 *
 * @param targetFileBytes optimize packs files into files of about this size (128 MiB)
 * @param optimizeEveryCommits optimize after this many delivery commits (100) ...
 * @param optimizeAboveFiles ... or once the table holds more files than this (1,000)
 * @param vacuumEveryOptimizes vacuum after every this many optimizations (10)
 * @param fileCountCheckEveryCommits how often the file count is looked at (it costs a log scan)
 */
public record MaintenanceSettings(
    long targetFileBytes, int optimizeEveryCommits, int optimizeAboveFiles, int vacuumEveryOptimizes,
    int fileCountCheckEveryCommits) {
  public static final MaintenanceSettings DEFAULT = new MaintenanceSettings(128L << 20, 100, 1_000, 10, 10);
  /**
   * The shortest vacuum retention allowed without {@code --force}: a reader that started on a
   * version, or a write whose files are not committed yet, may need its files this long.
   */
  public static final Duration SAFE_MINIMUM_RETENTION = Duration.ofHours(1);

  public MaintenanceSettings withTargetFileBytes(long bytes) {
    return new MaintenanceSettings(bytes, optimizeEveryCommits, optimizeAboveFiles, vacuumEveryOptimizes, fileCountCheckEveryCommits);
  }

  public MaintenanceSettings withTriggers(int everyCommits, int aboveFiles, int vacuumEvery) {
    return new MaintenanceSettings(targetFileBytes, everyCommits, aboveFiles, vacuumEvery, fileCountCheckEveryCommits);
  }
}
