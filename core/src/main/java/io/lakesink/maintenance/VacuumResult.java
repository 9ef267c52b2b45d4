package io.lakesink.maintenance;

import java.time.Duration;

/**
 * What one vacuum did (or, in a dry run, would do).
 *
 * @param live the files the latest version holds (never deleted)
 * @param before every data file found in storage, live or not
 * @param after what remains once the unreferenced files are deleted
 */
public record VacuumResult(String table, Duration retention, FileSizes live, FileSizes before, FileSizes after, boolean dryRun) {
  public long filesDeleted() {
    return before.files() - after.files();
  }

  @Override
  public String toString() {
    return "vacuum " + table + " (retention " + retention.toHours() + " h): " + (dryRun ? "would delete " : "deleted ")
        + filesDeleted() + " files, " + (before.bytes() - after.bytes()) + " bytes; before " + before + ", after " + after
        + " (" + live.files() + " live)";
  }
}
