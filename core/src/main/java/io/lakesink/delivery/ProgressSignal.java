package io.lakesink.delivery;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Background work (a flush on a writer thread, a kept table's follow) tells the poll thread that it
 * ended, so that a poll thread waiting for the buffer budget goes on at once instead of at the end
 * of its poll timeout. While the budget is full every partition is paused, and a Kafka poll of
 * paused partitions returns only at its timeout: catching up a backlog, each flush ended on
 * average half a timeout (100 ms) before reading went on, about a tenth of the worker's time.
 *
 * <p>A signal is kept until a wait takes it: one given while nobody waits ends the next wait at
 * once, which then looks at the budget again (never a missed end, at worst one look too many).
 */
public final class ProgressSignal {
  private boolean signalled;

  /** Something that may have freed buffer budget ended; from any thread. */
  public synchronized void signal() {
    signalled = true;
    notifyAll();
  }

  /**
   * Waits for a signal given since the last wait took one, at most {@code timeout}.
   *
   * @return whether a signal ended the wait (false: the timeout did)
   */
  public synchronized boolean await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!signalled) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    signalled = false;
    return true;
  }

  /** {@code executor}, signalling after each task it runs, however the task ends. */
  public Executor signalling(Executor executor) {
    return task -> executor.execute(() -> {
      try {
        task.run();
      } finally {
        signal();
      }
    });
  }
}
