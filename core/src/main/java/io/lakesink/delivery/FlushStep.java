package io.lakesink.delivery;

/** The steps of a flush, in order; a crash between any two must lose and duplicate nothing. */
public enum FlushStep {
  /** Rows buffered, nothing written yet. */
  BEFORE_WRITE,
  /** Parquet files written, not yet committed to the Delta log. */
  BEFORE_COMMIT,
  /** Delta commit done (offsets in the log), Kafka group offsets not yet committed. */
  AFTER_COMMIT
}
