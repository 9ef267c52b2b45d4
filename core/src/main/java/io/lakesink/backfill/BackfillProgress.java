package io.lakesink.backfill;

import java.util.OptionalLong;

/** What a running backfill reports: the command line draws it, tests stop a backfill with it. */
public interface BackfillProgress {
  BackfillProgress NONE = new BackfillProgress() {};

  /**
   * @param resumedAt rows an earlier run of the same backfill already committed
   * @param total rows the source holds, when known
   */
  default void started(String backfillId, long resumedAt, OptionalLong total) {}

  /**
   * One batch committed.
   *
   * @param position rows of the source done so far (this run and earlier ones)
   * @param written rows this run wrote into the table
   */
  default void committed(long position, long written, long tableVersion) {}

  default void finished(long position, long written) {}
}
