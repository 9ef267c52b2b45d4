package io.lakesink.delta;

/**
 * Another writer committed to the table while a commit that cannot be moved onto the new log (a
 * MERGE rewrite, a schema change) was being prepared. Nothing was written; the caller re-reads
 * the log and plans the commit again, at once: this is contention, not a failure.
 */
public final class CommitConflictException extends RuntimeException {
  CommitConflictException(String table, Throwable cause) {
    super("another writer committed to " + table + " first; planning the commit again", cause);
  }
}
