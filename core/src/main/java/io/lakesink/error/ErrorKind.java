package io.lakesink.error;

/**
 * The one error taxonomy of lakesink. Every failure is classified into exactly one kind, and
 * the kind alone decides what the worker does about it.
 */
public enum ErrorKind {
  /** Throttling, 5xx, timeouts, storage blips, commit races: retried with backoff, never fatal. */
  RETRYABLE,
  /** A record, schema or value this table cannot take: the table stops, other tables flow. */
  TABLE_FAILURE,
  /** The configuration is wrong: the worker refuses to start and says which key to change. */
  CONFIGURATION
}
