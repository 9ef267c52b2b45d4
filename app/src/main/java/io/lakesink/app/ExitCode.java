package io.lakesink.app;

/**
 * Every exit code of {@code lakesink}, in one place so each means one thing to a supervisor or a
 * script (docs/operations.md, "Exit codes", lists the same table).
 */
public enum ExitCode {
  /** Done: every table delivering, everything read was committed. */
  OK(0),
  /** An unexpected exception: a bug or an environment problem the message names. */
  CRASHED(1),
  /** The command line was wrong: unknown command or option, missing option value, an {@code init --output} that exists. */
  USAGE(2),
  /** The run ended with at least one table quarantined ({@code lakesink quarantine list} says why). */
  TABLES_QUARANTINED(3),
  /** The configuration file or an environment variable it names is wrong. */
  CONFIGURATION(4),
  /**
   * {@code check} failed a step, {@code status} found no worker answering, or {@code init} could not
   * read the broker or found no table topic on it.
   */
  CHECK_FAILED(5),
  /**
   * The final flush before exit could not write (storage unreachable): those events are not in the
   * table and their offsets are not committed, so the next start reads them again.
   */
  FINAL_FLUSH_FAILED(6),
  /**
   * Stopped before the final flush finished: a second SIGTERM/SIGINT, or the shutdown timeout
   * ({@code LAKESINK_SHUTDOWN_TIMEOUT}) passed. Nothing is lost; uncommitted events are read again.
   */
  SHUTDOWN_INCOMPLETE(7),
  /**
   * {@code run --stop-at-end} stopped on a worker-level fault: storage or the schema registry
   * refused the worker's credentials or permissions. No table was quarantined for it.
   */
  WORKER_FAULT(8),
  /**
   * {@code backfill} stopped on a failure retries did not get past (storage unreachable, other
   * writers winning every commit). Every committed batch is kept: the same command resumes.
   */
  BACKFILL_INTERRUPTED(9);

  public final int code;

  ExitCode(int code) {
    this.code = code;
  }
}
