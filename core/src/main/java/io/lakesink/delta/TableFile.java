package io.lakesink.delta;

import io.delta.kernel.data.Row;
import java.util.Map;

/**
 * One data file of a table, with the statistics Delta keeps for it. Holds Kernel's scan row so
 * that the file can be read and removed; callers outside this package only see the values.
 */
public final class TableFile {
  private final String path;
  private final long size;
  private final long rows;
  private final Map<String, Object> min;
  private final Map<String, Object> max;
  private final Map<String, String> partitionValues;
  private final boolean deletionVector;
  final Row scanRow;

  TableFile(
      String path, long size, long rows, Map<String, Object> min, Map<String, Object> max,
      Map<String, String> partitionValues, boolean deletionVector, Row scanRow) {
    this.path = path;
    this.size = size;
    this.rows = rows;
    this.min = min;
    this.max = max;
    this.partitionValues = partitionValues;
    this.deletionVector = deletionVector;
    this.scanRow = scanRow;
  }

  /** The file's partition values as the log holds them (text); empty for an unpartitioned table. */
  public Map<String, String> partitionValues() {
    return partitionValues;
  }

  /**
   * True when a deletion vector hides some of the file's rows. lakesink writes none; another
   * engine writing the table may (readers that only see the Parquet file would show them).
   */
  public boolean hasDeletionVector() {
    return deletionVector;
  }

  public String path() {
    return path;
  }

  public long size() {
    return size;
  }

  /** The file's row count, or -1 when its statistics do not say. */
  public long rows() {
    return rows;
  }

  /** Minimum per column as the statistics hold it (numbers, or text for strings and dates). */
  public Map<String, Object> min() {
    return min;
  }

  public Map<String, Object> max() {
    return max;
  }

  @Override
  public String toString() {
    return path + " (" + rows + " rows, " + size + " bytes)";
  }
}
