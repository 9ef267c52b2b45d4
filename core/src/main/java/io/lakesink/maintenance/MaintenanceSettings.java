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
 * @param stepBytes the most input one OPTIMIZE commit rewrites (256 MiB); a bigger job takes
 *     several commits. A step of a MERGE table holds its delivery back (the two would otherwise
 *     race for the same files), so this bounds how long a merge waits for maintenance
 * @param clusterStepBytes the most input one clustering step rewrites: clustering sorts the rows
 *     it rewrites in memory, so this follows what a merge may hold (the default is the default
 *     {@code delivery.merge_scan_limit_mb}, 512 MiB, over the {@link #MEMORY_FACTOR} times a row takes in memory)
 */
public record MaintenanceSettings(
    long targetFileBytes, int optimizeEveryCommits, int optimizeAboveFiles, int vacuumEveryOptimizes,
    int fileCountCheckEveryCommits, long stepBytes, long clusterStepBytes) {
  /**
   * How many times larger a row is on the heap than in its Parquet file: measured at 14-15 on
   * the merge benchmark's 1-million-row table and 23.7 on its 10-million-row table ({@code
   * bench/run merge}, "memory factor"; the bigger table's files compress better), 25 assumed.
   */
  public static final int MEMORY_FACTOR = 25;
  public static final MaintenanceSettings DEFAULT =
      new MaintenanceSettings(128L << 20, 100, 1_000, 10, 10, 256L << 20, (512L << 20) / MEMORY_FACTOR);
  /**
   * The shortest vacuum retention allowed without {@code --force}: a reader that started on a
   * version, or a write whose files are not committed yet, may need its files this long.
   */
  public static final Duration SAFE_MINIMUM_RETENTION = Duration.ofHours(1);

  public MaintenanceSettings(
      long targetFileBytes, int optimizeEveryCommits, int optimizeAboveFiles, int vacuumEveryOptimizes,
      int fileCountCheckEveryCommits) {
    this(targetFileBytes, optimizeEveryCommits, optimizeAboveFiles, vacuumEveryOptimizes, fileCountCheckEveryCommits,
        DEFAULT.stepBytes, DEFAULT.clusterStepBytes);
  }

  public MaintenanceSettings withTargetFileBytes(long bytes) {
    return new MaintenanceSettings(bytes, optimizeEveryCommits, optimizeAboveFiles, vacuumEveryOptimizes,
        fileCountCheckEveryCommits, stepBytes, clusterStepBytes);
  }

  public MaintenanceSettings withTriggers(int everyCommits, int aboveFiles, int vacuumEvery) {
    return new MaintenanceSettings(targetFileBytes, everyCommits, aboveFiles, vacuumEvery, fileCountCheckEveryCommits,
        stepBytes, clusterStepBytes);
  }

  public MaintenanceSettings withSteps(long newStepBytes, long newClusterStepBytes) {
    return new MaintenanceSettings(targetFileBytes, optimizeEveryCommits, optimizeAboveFiles, vacuumEveryOptimizes,
        fileCountCheckEveryCommits, newStepBytes, newClusterStepBytes);
  }

  /** Clustering steps sized to what a merge may hold ({@code delivery.merge_scan_limit_mb}). */
  public MaintenanceSettings withMergeMemory(long mergeScanLimitBytes) {
    return withSteps(stepBytes, Math.max(1L << 20, mergeScanLimitBytes / MEMORY_FACTOR));
  }
}
