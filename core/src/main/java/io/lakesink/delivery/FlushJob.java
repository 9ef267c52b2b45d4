package io.lakesink.delivery;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One table's batch on its way to the log: the events the buffer held when the flush started,
 * owned by the writer thread until the outcome is collected. The poll thread meanwhile only
 * reads the counts fixed at the start and may give partitions up ({@link #abandon}).
 */
final class FlushJob {
  private final EventBuffer batch;
  private final int events;
  private final long heapBytes;
  /** Partitions revoked or lost since the start: never written by a later attempt, never given back. */
  private final Set<SourcePartition> abandoned = ConcurrentHashMap.newKeySet();
  /** What the writer learned of the log while retrying (next offset per partition). */
  private final Map<SourcePartition, Long> learned = new HashMap<>();
  private final CompletableFuture<FlushOutcome> done = new CompletableFuture<>();
  /**
   * Set by the writer thread when an attempt failed on storage and is retried: the poll thread
   * shows the table as waiting on storage at once, not only once the whole flush gives up (its
   * attempts and their backoff, and a storage client's own retries, can take minutes).
   */
  private volatile ServiceWait failing;

  FlushJob(EventBuffer batch) {
    this.batch = batch;
    this.events = batch.size();
    this.heapBytes = batch.heapBytes();
  }

  /** Runs the attempts on the calling thread. */
  void run(Function<FlushJob, FlushOutcome> attempts) {
    try {
      done.complete(attempts.apply(this));
    } catch (Throwable t) {
      // An Error (or a bug) on a writer thread must reach the poll thread, which rethrows it.
      done.completeExceptionally(t);
    }
  }

  void runOn(Executor executor, Function<FlushJob, FlushOutcome> attempts) {
    executor.execute(() -> run(attempts));
  }

  EventBuffer batch() {
    return batch;
  }

  int events() {
    return events;
  }

  long heapBytes() {
    return heapBytes;
  }

  void abandon(Collection<SourcePartition> partitions) {
    abandoned.addAll(partitions);
  }

  boolean abandoned(SourcePartition p) {
    return abandoned.contains(p);
  }

  /** Writer thread, before each attempt: drops the events of partitions given up meanwhile. */
  void dropAbandoned() {
    if (!abandoned.isEmpty()) {
      batch.discard(Set.copyOf(abandoned));
    }
  }

  /** Writer thread: drops what the log already holds, and remembers it. */
  void dropStored(Map<SourcePartition, Long> landed) {
    landed.forEach((p, next) -> learned.merge(p, next, Math::max));
    batch.dropStored(landed);
  }

  /** After the outcome: what the log was seen to hold, without the partitions given up. */
  Map<SourcePartition, Long> learned() {
    Map<SourcePartition, Long> kept = new HashMap<>(learned);
    kept.keySet().removeAll(abandoned);
    return kept;
  }

  /** Offsets of partitions still ours. */
  Map<SourcePartition, Long> kept(Map<SourcePartition, Long> offsets) {
    if (abandoned.isEmpty()) {
      return offsets;
    }
    Map<SourcePartition, Long> kept = new HashMap<>(offsets);
    kept.keySet().removeAll(abandoned);
    return Map.copyOf(kept);
  }

  /** What is left of the batch for the buffer, without the partitions given up. */
  EventBuffer remains() {
    batch.discard(Set.copyOf(abandoned));
    return batch;
  }

  /** Writer thread: an attempt failed on storage and will be retried. */
  void attemptFailed(String problem, java.time.Instant at) {
    ServiceWait was = failing;
    failing = was == null ? new ServiceWait(problem, at) : was.again(problem);
  }

  /** Since when, and why, this job's attempts fail on storage; null while none did. */
  ServiceWait failing() {
    return failing;
  }

  boolean finished() {
    return done.isDone();
  }

  /** Waits up to {@code millis} for the outcome; whether it is there. */
  boolean await(long millis) {
    try {
      done.get(Math.max(0, millis), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return done.isDone();
    }
  }

  /** The outcome of a finished job; an Error or bug on the writer thread is rethrown here. */
  FlushOutcome outcome() {
    try {
      return done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw e;
    }
  }
}
