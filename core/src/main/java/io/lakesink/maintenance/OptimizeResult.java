package io.lakesink.maintenance;

import java.util.OptionalLong;

/**
 * What one optimization, or one step of it, did (or, in a dry run, would do).
 *
 * @param before the table's live files when it was planned
 * @param after the live files once committed (in a dry run: as planned, output files estimated)
 * @param version the (last) OPTIMIZE commit; empty when nothing was worth rewriting, in a dry
 *     run, or when a concurrent commit changed the files and the optimization gave up
 * @param gaveUp whether it lost to a concurrent commit (its written files are orphans for vacuum)
 * @param more whether work is left for another step (the step's budget was reached)
 */
public record OptimizeResult(
    String table, FileSizes before, FileSizes after, long filesRewritten, long filesWritten, OptionalLong version,
    boolean dryRun, boolean gaveUp, boolean more) {

  public boolean committed() {
    return version.isPresent();
  }

  /** This result followed by the next step's: from this one's start to that one's end. */
  OptimizeResult then(OptimizeResult next) {
    return new OptimizeResult(table, before, next.after, filesRewritten + next.filesRewritten,
        filesWritten + next.filesWritten, next.version.isPresent() ? next.version : version, dryRun,
        next.gaveUp, next.more);
  }

  @Override
  public String toString() {
    String what = dryRun ? "would rewrite" : gaveUp ? "gave up rewriting" : "rewrote";
    return "optimize " + table + ": " + what + " " + filesRewritten + " files into " + filesWritten
        + "; before " + before + ", after " + after + version.stream().mapToObj(v -> " (version " + v + ")").findFirst().orElse("")
        + (more ? "; more left for the next step" : "");
  }
}
