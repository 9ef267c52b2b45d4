package io.lakesink.merge;

import io.lakesink.delta.TableFile;
import io.lakesink.error.Errors;
import io.lakesink.error.TableFailureException;
import java.util.List;

/**
 * Copy-on-write MERGE reads every file that may hold a batch's keys, and a row in memory costs
 * far more than on disk (Parquet compresses the repetitive strings of CDC tables). Before reading
 * anything, the table's rows × on-disk row size × {@value #MEMORY_FACTOR} are checked against the
 * limit, plus a 10 % margin: the connector reference's model, kept as it is.
 *
 * <p>Measured ({@code bench/run merge}, "memory factor"): the rows of a file as a merge reads them
 * take about 14 times the file's on-disk size on the benchmark's table, whose rows compress to 18
 * bytes (more compressible than most), within the 20 assumed. A merge holds the rows of the files
 * it is merging at once ({@link TableMerge#LANES}), not the table's, so on a table of more than
 * a couple of files the estimate is well above what a merge holds (docs/merge.md).
 */
final class MergeSizeLimit {
  static final int MEMORY_FACTOR = 20;
  static final double MARGIN = 1.10;

  private MergeSizeLimit() {}

  /** How many rows one merge holds, for rows of this on-disk size. */
  static long capacity(long limitBytes, double bytesPerRow) {
    return (long) (limitBytes / (bytesPerRow * MEMORY_FACTOR) * MARGIN);
  }

  /** @throws TableFailureException when the table is past what one merge can hold */
  static void check(String table, List<TableFile> files, long limitBytes) {
    long rows = 0;
    long bytes = 0;
    for (TableFile f : files) {
      // Live rows and their share of the bytes: rows a deletion vector deletes are never read.
      bytes += f.liveBytes();
      rows += f.rows() >= 0 ? f.rows() : 0;
    }
    if (rows == 0) {
      return;
    }
    double bytesPerRow = (double) bytes / rows;
    long capacity = capacity(limitBytes, bytesPerRow);
    if (rows > capacity) {
      throw Errors.mergeTooLarge(table, rows, capacity, limitBytes >> 20, Math.round(bytesPerRow * MEMORY_FACTOR));
    }
  }
}
