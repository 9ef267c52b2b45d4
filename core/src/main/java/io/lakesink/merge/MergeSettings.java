package io.lakesink.merge;

import java.time.Duration;

/**
 * Tuning of MERGE delivery.
 *
 * @param scanLimitBytes the memory the rows of a MERGE table's maintenance may take ({@code
 *     delivery.merge_scan_limit_mb}): a clustering step rewrites at most this over the 20 times a
 *     row takes in memory. A merge itself streams the files it reads, whatever their size
 *     (docs/merge.md)
 * @param snapshotIdle an initial snapshot is published after this long without new rows
 * @param snapshotMaxRows … or every this many rows
 * @param deletionVectors which MERGE tables get deletion vectors (docs/merge.md)
 * @param keyFilters whether merges keep and use a key filter per data file (on; off only to
 *     measure what they save, {@code bench/run merge})
 */
public record MergeSettings(
    long scanLimitBytes, Duration snapshotIdle, long snapshotMaxRows, DeletionVectors deletionVectors, boolean keyFilters) {
  public static final long DEFAULT_SCAN_LIMIT_MB = 512;
  public static final MergeSettings DEFAULT =
      new MergeSettings(DEFAULT_SCAN_LIMIT_MB << 20, Duration.ofSeconds(30), 1_000_000, DeletionVectors.NEW_TABLES, true);

  public MergeSettings(long scanLimitBytes, Duration snapshotIdle, long snapshotMaxRows) {
    this(scanLimitBytes, snapshotIdle, snapshotMaxRows, DeletionVectors.NEW_TABLES, true);
  }

  public MergeSettings withScanLimitMb(long mb) {
    return new MergeSettings(mb << 20, snapshotIdle, snapshotMaxRows, deletionVectors, keyFilters);
  }

  public MergeSettings withDeletionVectors(DeletionVectors mode) {
    return new MergeSettings(scanLimitBytes, snapshotIdle, snapshotMaxRows, mode, keyFilters);
  }

  public MergeSettings withKeyFilters(boolean on) {
    return new MergeSettings(scanLimitBytes, snapshotIdle, snapshotMaxRows, deletionVectors, on);
  }

  /**
   * Which MERGE tables delete replaced rows with deletion vectors instead of rewriting their files.
   * A table with them needs readers with deletion vector support (reader protocol 3), so a table
   * created without them keeps copy-on-write unless the operator asks ({@link #ALL}).
   */
  public enum DeletionVectors {
    /** Tables this worker creates get them; existing tables keep what they have. */
    NEW_TABLES,
    /** Also turned on for existing MERGE tables (raises their protocol to reader 3 / writer 7). */
    ALL,
    /** New tables are created without them (copy-on-write); a table that has them keeps using them. */
    NONE;

    /** The configuration value: {@code new_tables}, {@code all}, {@code none}. */
    public String configValue() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
