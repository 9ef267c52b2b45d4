package io.lakesink.delivery;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker's thread pools (writers, decoders): a fixed number of named daemon threads that end
 * after 30 s idle. Daemon and idle-ending so that a worker that stops (or a test) needs no close,
 * and a task hanging on storage at exit does not keep the JVM alive after the final flush gave up.
 * The names carry a prefix the benchmark adds up CPU time by.
 */
public final class IdleDaemonPool {
  private IdleDaemonPool() {}

  /** @param threads at least 1 */
  public static ThreadPoolExecutor create(String namePrefix, int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, namePrefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
