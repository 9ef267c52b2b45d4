package io.lakesink.delivery;

import io.lakesink.config.Subscription;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Delivery of one subscription into its Delta table: buffers decoded events and flushes them in
 * commits that carry the source offsets they cover. The source side (the Kafka worker) drives it
 * and only commits its own offsets with what {@link #flush} returns.
 */
public interface TableDelivery {

  Subscription subscription();

  /** The Delta table written, by name. */
  String tableName();

  /** The next offset to read for each partition, as the table's log stores it. */
  Map<SourcePartition, Long> storedOffsets(Collection<SourcePartition> partitions);

  /**
   * Buffers one event.
   *
   * @throws TableFailureException when the event cannot be delivered (a cast that fails)
   */
  void accept(ChangeEvent event);

  /** Records that a position was read and needs no row (a tombstone), so commits cover it. */
  void skip(SourcePosition position);

  /** Whether the buffer should be flushed now (never while a flush of it is in flight). */
  boolean flushDue(long nowMillis);

  /**
   * Starts writing the buffer as one batch: on a writer thread, while the caller keeps buffering,
   * or right here for a synchronous delivery. Does nothing while a batch is in flight (one per
   * table) or when nothing is buffered. Its outcome is collected with {@link #finishedFlush}.
   */
  void startFlush(long deadlineMillis);

  /** Whether a batch was started and its outcome not collected yet. */
  boolean flushing();

  /**
   * Whether the table's flushes wait for a step of its maintenance (seconds at most): its buffer
   * grows meanwhile as it does behind a flush in flight.
   */
  default boolean heldByMaintenance() {
    return false;
  }

  /**
   * The outcome of the batch in flight once it finished, applied here on the caller's thread:
   * like {@link #flush()}, the next offset per partition it stored (empty map when nothing was
   * committed), or the same exceptions, its events back at the front of the buffer. Empty while
   * no batch finished.
   */
  Optional<Map<SourcePartition, Long>> finishedFlush();

  /** Like {@link #finishedFlush}, waiting for the batch in flight until {@code deadlineMillis}. */
  Optional<Map<SourcePartition, Long>> awaitFlush(long deadlineMillis);

  /**
   * Writes and commits the buffer on the calling thread, after waiting for a batch in flight.
   * Returns the next offset per partition now stored in the table
   * (empty when nothing was committed). Retryable failures are retried inside.
   *
   * @throws TableFailureException when the table cannot take the rows; the table is then failed
   * @throws io.lakesink.error.ConfigurationException when storage refuses the worker's
   *     credentials or permissions: the buffer is kept and the flush is tried again later
   */
  default Map<SourcePartition, Long> flush() {
    return flush(Long.MAX_VALUE);
  }

  /**
   * Like {@link #flush()}, but gives up retrying (keeping the buffer, with a
   * {@link io.lakesink.error.RetryableException}) rather than run past {@code deadlineMillis}:
   * the source must get back to polling in time.
   */
  Map<SourcePartition, Long> flush(long deadlineMillis);

  /** Drops the buffered events of these partitions (they were revoked without a flush). */
  void discard(Collection<SourcePartition> partitions);

  /**
   * Quarantines this table: buffered rows are dropped, offsets stay where they are, and the
   * reason is recorded durably.
   */
  void fail(TableFailureException reason);

  /**
   * For a quarantined table: whether an operator released it meanwhile. When true, the table is
   * delivering again and its partitions must be re-read from {@link #storedOffsets}.
   */
  boolean releaseIfAllowed();

  DeliveryState state();

  /**
   * Whether this table's commits fail on storage and are being retried: what failed last and
   * since the first failure; empty once a flush lands (or for a delivery that cannot tell).
   */
  default java.util.Optional<ServiceWait> storageWait() {
    return java.util.Optional.empty();
  }

  TableStatus status();

  /**
   * Called by the worker on every loop, cheap unless something is due: catches up work that
   * follows the data, such as a catalog registration that failed earlier.
   */
  void maintain();

  /** Waits up to {@code timeout} for background work (catalog registration) and applies it. */
  default void settle(java.time.Duration timeout) {}

  /** Events buffered and not yet committed. */
  int bufferedEvents();

  /** What the buffered events hold on the heap, estimated. */
  long bufferedHeapBytes();

  /**
   * What this table's delivery holds on the heap besides its buffer, estimated: the changes a
   * kept current-state table's follow holds while it runs. Reading leaves room for it within
   * {@code delivery.max_buffer_bytes}; a flush does not lower it, the follow's end does.
   */
  default long heldHeapBytes() {
    return 0;
  }
}
