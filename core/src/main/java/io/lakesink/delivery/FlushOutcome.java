package io.lakesink.delivery;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one flush job did, handed from the writer thread to the poll thread, which alone updates
 * the delivery's state (stored offsets, status, the buffer).
 */
sealed interface FlushOutcome {

  /** The batch is in the log as {@code version}; {@code next} is what the commit stored. */
  record Committed(long version, Map<SourcePartition, Long> next, int events, long bytes, Duration took,
      List<String> recordKey) implements FlushOutcome {}

  /** A failed-looking attempt had landed after all (or another writer wrote the rest): nothing left to write. */
  record Landed(Map<SourcePartition, Long> next) implements FlushOutcome {}

  /** Nothing was written: what is left of the batch goes back to the buffer (its partitions were given up). */
  record Returned() implements FlushOutcome {}

  /**
   * Nothing was written; what is left of the batch goes back to the front of the buffer. The
   * error is a {@link io.lakesink.error.RetryableException}, a
   * {@link io.lakesink.error.ConfigurationException} or a
   * {@link io.lakesink.error.TableFailureException}, each handled as a synchronous flush does.
   */
  record Failed(RuntimeException error) implements FlushOutcome {}
}
