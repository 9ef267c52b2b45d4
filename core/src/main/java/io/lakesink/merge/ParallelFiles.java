package io.lakesink.merge;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Runs one task per file on a few lanes: the calling thread and helpers, each taking the next
 * file when done with its own. A merge's work per file (Parquet decode, merge, encode and
 * compress) is independent of the other files', so two lanes keep both cores busy while the
 * memory held stays one file per lane. The first failure stops the lanes taking new files and is
 * rethrown as it was thrown, so its classification (retryable or not) is kept.
 */
final class ParallelFiles {
  private ParallelFiles() {}

  static <F, T> List<T> map(List<F> files, int lanes, Function<F, T> task) {
    int n = files.size();
    Object[] results = new Object[n];
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable lane = () -> {
      for (int i; failure.get() == null && (i = next.getAndIncrement()) < n; ) {
        try {
          results[i] = task.apply(files.get(i));
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }
    };
    int helpers = Math.min(lanes, n) - 1;
    if (helpers <= 0) {
      lane.run();
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(helpers, r -> {
        Thread t = new Thread(r, "lakesink-merge-lane");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int h = 0; h < helpers; h++) {
          running.add(pool.submit(lane));
        }
        lane.run();
        for (Future<?> f : running) {
          awaitUninterruptibly(f);
        }
      } finally {
        pool.shutdown();
      }
    }
    Throwable t = failure.get();
    if (t instanceof RuntimeException re) {
      throw re;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException(t);
    }
    @SuppressWarnings("unchecked")
    List<T> out = (List<T>) Arrays.asList(results);
    return out;
  }

  /** A lane catches what its tasks throw, so waiting for it only ends when it is done. */
  private static void awaitUninterruptibly(Future<?> f) {
    boolean interrupted = false;
    while (true) {
      try {
        f.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the helper holds a file's rows and writes its Parquet: let it finish
      } catch (ExecutionException e) {
        throw new IllegalStateException("a merge lane failed outside its task", e.getCause());
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
