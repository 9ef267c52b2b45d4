package io.lakesink.merge;

import java.time.Duration;

/**
 * Tuning of MERGE delivery.
 *
 * @param scanLimitBytes what one merge may hold in memory ({@code DELTA_MERGE_SCAN_LIMIT_MB})
 * @param snapshotIdle an initial snapshot is published after this long without new rows
 * @param snapshotMaxRows … or every this many rows
 */
public record MergeSettings(long scanLimitBytes, Duration snapshotIdle, long snapshotMaxRows) {
  public static final long DEFAULT_SCAN_LIMIT_MB = 512;
  public static final MergeSettings DEFAULT =
      new MergeSettings(DEFAULT_SCAN_LIMIT_MB << 20, Duration.ofSeconds(30), 1_000_000);

  public MergeSettings withScanLimitMb(long mb) {
    return new MergeSettings(mb << 20, snapshotIdle, snapshotMaxRows);
  }
}
