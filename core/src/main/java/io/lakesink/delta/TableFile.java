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
  private final long deletedRows;
  private final Map<String, Object> min;
  private final Map<String, Object> max;
  private final Map<String, String> partitionValues;
  private final boolean deletionVector;
  final Row scanRow;
  /** The statistics' JSON as the log holds it, or null: what a table taking the file over starts from. */
  final String stats;
  /**
   * The rows its current deletion vector deletes, sorted, once read ({@link
   * DeletionVectorFile#deletedPositions}): a merge reads them to skip those rows, and again to
   * write the file's next vector. A file of one snapshot never changes its vector.
   */
  volatile long[] deletedPositions;

  TableFile(
      String path, long size, long rows, long deletedRows, Map<String, Object> min, Map<String, Object> max,
      Map<String, String> partitionValues, boolean deletionVector, Row scanRow, String stats) {
    this.path = path;
    this.size = size;
    this.rows = rows;
    this.deletedRows = deletedRows;
    this.min = min;
    this.max = max;
    this.partitionValues = partitionValues;
    this.deletionVector = deletionVector;
    this.scanRow = scanRow;
    this.stats = stats;
  }

  /** The file's partition values as the log holds them (text); empty for an unpartitioned table. */
  public Map<String, String> partitionValues() {
    return partitionValues;
  }

  /**
   * True when a deletion vector hides some of the file's rows (MERGE tables with deletion
   * vectors, or another engine's writes): readers that only see the Parquet file would show them.
   */
  public boolean hasDeletionVector() {
    return deletionVector;
  }

  /**
   * What identifies the file's deletion vector (Kernel's unique id of its descriptor: storage,
   * path or inline bytes, offset), or null without one. Equal between two snapshots exactly when
   * the file's vector did not change.
   */
  public String deletionVectorId() {
    if (!deletionVector || scanRow == null) {
      return null;
    }
    return DeletionVectorFile.descriptor(this).getUniqueId();
  }

  public String path() {
    return path;
  }

  public long size() {
    return size;
  }

  /**
   * The file's live rows (those its deletion vector does not delete), or -1 when its statistics
   * do not say.
   */
  public long rows() {
    return rows < 0 ? rows : rows - deletedRows;
  }

  /** The Parquet file's rows, those its deletion vector deletes included, or -1 when its statistics do not say. */
  public long physicalRows() {
    return rows;
  }

  /** Rows of the Parquet file its deletion vector deletes; 0 without one. */
  public long deletedRows() {
    return deletedRows;
  }

  /** The on-disk bytes of the live rows: the file's size scaled by the share of its rows still live. */
  public long liveBytes() {
    return rows <= 0 || deletedRows == 0 ? size : Math.round((double) size * (rows - deletedRows) / rows);
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
    return path + " (" + rows() + " rows" + (deletedRows > 0 ? " live, " + deletedRows + " deleted" : "") + ", " + size + " bytes)";
  }
}
