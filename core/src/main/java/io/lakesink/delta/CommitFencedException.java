package io.lakesink.delta;

import java.util.Map;

/**
 * A commit was refused because the table's log already stores offsets past where its batch
 * starts: another writer committed some of the same source events. Nothing was written. The
 * delivery re-reads the log, drops what landed there, and commits the rest (or nothing).
 */
public final class CommitFencedException extends RuntimeException {
  private final Map<String, Long> stored;

  CommitFencedException(String table, Map<String, Long> stored) {
    super("commit to " + table + " fenced: the log already stores " + stored + " (another writer delivered these offsets)");
    this.stored = Map.copyOf(stored);
  }

  /** The offsets the log stores that fenced the commit, per identifier. */
  public Map<String, Long> stored() {
    return stored;
  }
}
