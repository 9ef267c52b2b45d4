package io.lakesink.delivery;

import java.util.concurrent.Executor;

/**
 * Where flushes run. The standalone worker writes Parquet and commits on a small pool of writer
 * threads while its poll thread goes on reading; the Kafka Connect task, whose {@code preCommit}
 * may only report offsets already in Delta, writes on the calling thread ({@link #SYNCHRONOUS}).
 * A table never has more than one flush in flight, whatever the pool's size (see
 * {@link BufferedDelivery#startFlush}).
 */
public final class FlushWriters {
  /** Flushes run on the thread that starts them. */
  public static final FlushWriters SYNCHRONOUS = new FlushWriters(0);
  /** Writer threads are named so; the benchmark adds up their CPU time by this prefix. */
  public static final String THREAD_PREFIX = "lakesink-writer-";

  private final int threads;
  /** Given after every flush (and every task run beside them): the poll thread may wait on it for room in its budget. */
  private final ProgressSignal progress = new ProgressSignal();
  /** The writer threads, signalling {@link #progress} after each task; null for {@link #SYNCHRONOUS}. */
  private final Executor pool;

  private FlushWriters(int threads) {
    this.threads = threads;
    this.pool = threads == 0 ? null : progress.signalling(IdleDaemonPool.create(THREAD_PREFIX, threads));
  }

  /** A pool of its own for one worker's tables. */
  public static FlushWriters pool(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("a writer pool needs at least one thread, not " + threads);
    }
    return new FlushWriters(threads);
  }

  /**
   * One writer thread per core: as many tables written at once as there are cores (each still
   * one batch at a time). The poll thread no longer decodes (the Kafka worker's decoder threads
   * do, one per core too), so writers only compete with decoding for the cores while both have
   * work, and a writer waiting on storage (a commit, an upload) leaves its core to the others.
   * The buffer budget counts the batches in flight, so more writers hold no more memory.
   */
  public static FlushWriters forThisMachine() {
    return pool(Math.max(1, Runtime.getRuntime().availableProcessors()));
  }

  public boolean synchronous() {
    return pool == null;
  }

  public int threads() {
    return threads;
  }

  Executor executor() {
    return pool;
  }

  /**
   * Given each time a flush (or a task run beside them) ends on a writer thread; the worker's other
   * background work (a kept table's follow) gives it too. A poll thread that paused reading for
   * its buffer budget waits on it.
   */
  public ProgressSignal progress() {
    return progress;
  }

  /**
   * Runs {@code task} on a writer thread, ahead of any flush started after it; nothing when
   * flushes are synchronous (the caller's thread must not wait for it).
   */
  public void runBeside(Runnable task) {
    if (pool != null) {
      pool.execute(task);
    }
  }
}
