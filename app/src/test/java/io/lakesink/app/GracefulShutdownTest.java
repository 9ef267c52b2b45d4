package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decisions of the SIGTERM handling that a real process cannot show deterministically (a
 * final flush that hangs, a second signal during it); {@link ShutdownSignalTest} sends a real
 * SIGTERM to a real worker.
 */
@Timeout(60)
class GracefulShutdownTest {
  final List<Integer> exits = new CopyOnWriteArrayList<>();
  final List<Integer> halts = new CopyOnWriteArrayList<>();

  GracefulShutdown shutdown(Duration timeout) {
    return new GracefulShutdown(timeout, exits::add, halts::add);
  }

  @Test
  void haltsWithTheRunsExitCodeOnceItReturned() throws Exception {
    GracefulShutdown s = shutdown(Duration.ofSeconds(30));
    CountDownLatch stopped = new CountDownLatch(1);
    s.onStop(stopped::countDown);
    Thread run = new Thread(() -> {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        return;
      }
      s.finished(ExitCode.OK.code); // the run flushed, committed and closed the worker
    });
    run.start();
    s.shutDown();
    assertEquals(List.of(ExitCode.OK.code), halts);
    run.join();
  }

  @Test
  void aRunThatDoesNotReturnInTimeEndsTheProcessAnyway() {
    GracefulShutdown s = shutdown(Duration.ofMillis(300));
    CountDownLatch stopped = new CountDownLatch(1);
    s.onStop(stopped::countDown); // the worker is asked to stop but never returns
    long start = System.nanoTime();
    s.shutDown();
    assertEquals(0, stopped.getCount());
    assertEquals(List.of(ExitCode.SHUTDOWN_INCOMPLETE.code), halts);
    assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(300));
  }

  @Test
  void theFirstSignalShutsDownInOrderTheSecondHaltsAtOnce() {
    GracefulShutdown s = shutdown(Duration.ofMinutes(10));
    s.onSignal();
    assertEquals(1, exits.size(), "the first signal starts the JVM's shutdown, which runs the hook");
    assertTrue(halts.isEmpty());
    s.onSignal();
    assertEquals(List.of(ExitCode.SHUTDOWN_INCOMPLETE.code), halts);
  }

  @Test
  void aStopSignalBeforeTheWorkerExistsStopsItWhenItDoes() throws Exception {
    GracefulShutdown s = shutdown(Duration.ofMillis(100));
    s.shutDown(); // nothing to stop yet; times out
    CountDownLatch stopped = new CountDownLatch(1);
    s.onStop(stopped::countDown);
    assertEquals(0, stopped.getCount());
  }

  @Test
  void theTimeoutComesFromThePropertyOrTheEnvironment() {
    assertEquals(Duration.ofSeconds(30), GracefulShutdown.timeout(null, null));
    assertEquals(Duration.ofSeconds(45), GracefulShutdown.timeout(null, "45"));
    assertEquals(Duration.ofMillis(500), GracefulShutdown.timeout("500ms", "45"));
    assertEquals(Duration.ofMinutes(2), GracefulShutdown.timeout(null, "2m"));
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> GracefulShutdown.timeout(null, "soon"));
    assertTrue(e.getMessage().contains("LAKESINK_SHUTDOWN_TIMEOUT"), e.getMessage());
  }
}
