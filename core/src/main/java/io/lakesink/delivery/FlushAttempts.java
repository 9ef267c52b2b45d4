package io.lakesink.delivery;

import io.lakesink.delta.CommitConflictException;
import io.lakesink.delta.CommitErrors;
import io.lakesink.delta.CommitFencedException;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.ErrorKind;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.retry.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one flush and their retry policy: storage failures are retried with backoff,
 * fenced commits and conflicts at once, after dropping what the log already holds. Runs on a
 * writer thread (or the caller's, for synchronous flushes) and touches nothing but the job's batch
 * and the table: the outcome is applied by the poll thread.
 */
final class FlushAttempts {
  private static final Logger log = LoggerFactory.getLogger(FlushAttempts.class);
  /** Storage failures within one flush: 0.2 s, 0.4 s, … with jitter; the deadline may cut it short. */
  static final RetryPolicy FLUSH_RETRY =
      new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(15), BufferedDelivery.MAX_ATTEMPTS, 0.25);
  /** Fenced commits retried at once within one flush; each one means another writer progressed. */
  static final int MAX_FENCED = 20;

  /** A mode's write: the batch and its offsets in one Delta commit; returns the new version. */
  @FunctionalInterface
  interface BatchWriter {
    long write(List<ChangeEvent> events, CommitOffsets offsets);
  }

  private final String tableName;
  private final DeltaTable table;
  private final BatchWriter writer;
  private final FlushHook hook;
  private final Backoff backoff;
  private final Clock clock;
  private final DeliveryMetrics metrics;

  FlushAttempts(String tableName, DeltaTable table, BatchWriter writer, DeliveryContext context) {
    this.tableName = tableName;
    this.table = table;
    this.writer = writer;
    this.hook = context.hook();
    this.backoff = context.backoff();
    this.clock = context.clock();
    this.metrics = context.metrics();
  }

  FlushOutcome run(FlushJob job, long deadlineMillis) {
    EventBuffer batch = job.batch();
    RuntimeException last = null;
    int failures = 0;
    for (int fenced = 0; fenced <= MAX_FENCED; ) {
      try {
        job.dropAbandoned();
        if (last != null) {
          // Before writing again, learn what the failed attempt left in the log: an attempt
          // whose outcome looked failed may have landed, another writer may have committed.
          Map<SourcePartition, Long> attempted = batch.next();
          job.dropStored(landedIn(attempted));
          if (batch.isEmpty() && !batch.positionsOnly()) {
            batch.clear();
            return new FlushOutcome.Landed(attempted);
          }
        } else if (batch.isEmpty() && !batch.positionsOnly()) {
          return new FlushOutcome.Returned(); // every partition of the batch was given up
        }
        return commit(batch);
      } catch (TableFailureException e) {
        return new FlushOutcome.Failed(e);
      } catch (CommitFencedException e) {
        // Another writer (the partition's new owner, a worker that lost it, another deployment)
        // committed some of these offsets: drop them from the batch at once and go on.
        log.info("{}; dropping what it delivered and committing the rest", e.getMessage());
        last = e;
        fenced++;
      } catch (CommitConflictException e) {
        // Contention, not a failure: re-read the log and plan again without backing off.
        log.debug("{}", e.getMessage());
        last = e;
        fenced++;
      } catch (RuntimeException e) {
        ErrorKind kind = CommitErrors.classify(e);
        metrics.error(tableName, kind);
        if (kind == ErrorKind.CONFIGURATION) {
          // Credentials or permissions refused: not this table's fault, and every table would
          // hit it. The worker reports it and waits; the batch goes back to the buffer.
          return new FlushOutcome.Failed(configurationCause(e));
        }
        if (kind != ErrorKind.RETRYABLE) {
          return new FlushOutcome.Failed(
              new TableFailureException("Writing table " + tableName + " failed: " + e.getMessage(), null, e));
        }
        last = e;
        failures++;
        job.attemptFailed("Writing " + tableName + " failed: " + withRootCause(e), clock.instant());
        if (!FLUSH_RETRY.mayRetryAfter(failures)) {
          break;
        }
        long wait = FLUSH_RETRY.delay(failures, ThreadLocalRandom.current()).toMillis();
        if (clock.millis() + wait > deadlineMillis) {
          // Kafka evicts a consumer that does not poll in time, and a revoke or shutdown waits
          // for this flush: give up, keep the events, and try again later.
          break;
        }
        log.warn("Flush of {} failed (attempt {}/{}), retrying: {}", tableName, failures, BufferedDelivery.MAX_ATTEMPTS,
            e.toString());
        if (!pause(wait)) {
          return new FlushOutcome.Failed(new RetryableException("Interrupted while retrying a flush of " + tableName, e));
        }
      }
    }
    return new FlushOutcome.Failed(new RetryableException(
        "Flush of " + tableName + " did not go through after " + failures + " attempts (last: " + last
            + "); buffered rows are kept and retried in " + BufferedDelivery.RETRY_AFTER.toSeconds() + " s", last));
  }

  private FlushOutcome commit(EventBuffer batch) {
    hook.at(tableName, FlushStep.BEFORE_WRITE);
    long started = System.nanoTime();
    int events = batch.size();
    long version = writer.write(List.copyOf(batch.events()), batch.offsets());
    Map<SourcePartition, Long> committed = batch.next();
    if (events == 0) {
      log.info("Committed the positions of records without rows (tombstones) to {} as version {} ({})", tableName,
          version, committed);
    } else {
      log.info("Committed {} events to {} as version {} ({})", events, tableName, version, committed);
    }
    List<String> recordKey = List.of();
    List<ChangeEvent> written = batch.events();
    for (int i = written.size() - 1; i >= 0; i--) {
      if (!written.get(i).recordKeyFields().isEmpty()) {
        recordKey = List.copyOf(written.get(i).recordKeyFields());
        break;
      }
    }
    FlushOutcome outcome = new FlushOutcome.Committed(
        version, committed, events, batch.bytes(), Duration.ofNanos(System.nanoTime() - started), recordKey);
    batch.clear();
    return outcome;
  }

  /**
   * What this table's log holds of these partitions. Only this table's: the other mode's table is
   * read when partitions are assigned (a mode switch goes on where the other mode stopped), but
   * another subscription may be writing it right now (two Kafka Connect connectors on one topic,
   * one per mode), and its offsets say nothing about what landed here.
   */
  private Map<SourcePartition, Long> landedIn(Map<SourcePartition, Long> attempted) {
    return BufferedDelivery.offsetsIn(List.of(table), attempted.keySet());
  }

  /**
   * The failure and, when it wraps one, its root cause: Kernel wraps a storage error in its own
   * ("maximum number of retries (0) has been reached"), which alone does not say that storage
   * failed, nor how. Storage clients' messages name the path, never a credential.
   */
  static String withRootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? e.toString() : e + " (cause: " + root + ")";
  }

  private static ConfigurationException configurationCause(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof ConfigurationException ce) {
        return ce;
      }
    }
    throw new IllegalStateException("classified as a configuration error without one", e);
  }

  /** Waits before the next attempt; false when interrupted (the worker is going away). */
  private boolean pause(long millis) {
    try {
      backoff.pause(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
