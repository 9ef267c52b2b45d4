package io.lakesink.maintenance;

import java.util.OptionalLong;

/**
 * What one optimization did (or, in a dry run, would do).
 *
 * @param before the table's live files when it was planned
 * @param after the live files once committed (in a dry run: as planned, output files estimated)
 * @param version the OPTIMIZE commit; empty when nothing was worth rewriting, in a dry run, or
 *     when a concurrent delivery commit changed the files and the optimization gave up
 * @param gaveUp whether it lost to a concurrent commit (its written files are orphans for vacuum)
 */
public record OptimizeResult(
    String table, FileSizes before, FileSizes after, long filesRewritten, long filesWritten, OptionalLong version,
    boolean dryRun, boolean gaveUp) {

  public boolean committed() {
    return version.isPresent();
  }

  @Override
  public String toString() {
    String what = dryRun ? "would rewrite" : gaveUp ? "gave up rewriting" : "rewrote";
    return "optimize " + table + ": " + what + " " + filesRewritten + " files into " + filesWritten
        + "; before " + before + ", after " + after + version.stream().mapToObj(v -> " (version " + v + ")").findFirst().orElse("");
  }
}
