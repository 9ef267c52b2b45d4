package io.lakesink.delta;

/**
 * A data file a pending commit added: its path as the log spells it, the rows placed in it (-1
 * when its statistics do not say), and where they sit. The rows handed to one write fill its
 * files in order ({@code positions} null: the first {@code rows} positions); a file taken over
 * from another table ({@link DeltaTable.PendingWrite#takeOver}) keeps only the rows at {@code
 * positions}, in that order.
 */
public record WrittenFile(String path, long rows, long[] positions) {
  public WrittenFile(String path, long rows) {
    this(path, rows, null);
  }

  /** The position in the file of the {@code i}-th row placed in it. */
  public long position(long i) {
    return positions == null ? i : positions[Math.toIntExact(i)];
  }
}
