package io.lakesink.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The poll thread's wait for room in its budget: ended by a flush's or a follow's end, never missed. */
class ProgressSignalTest {
  private static final Duration LONG = Duration.ofHours(1);

  @Test
  void aSignalFromAnotherThreadEndsTheWait() throws Exception {
    ProgressSignal signal = new ProgressSignal();
    ExecutorService waiter = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
        try {
          return signal.await(LONG);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, waiter);
      signal.signal();
      // An hour's wait ended by the signal (given before or during the wait: either way it ends it).
      assertTrue(waited.get(2, TimeUnit.MINUTES));
    } finally {
      waiter.shutdownNow();
    }
  }

  @Test
  void aSignalGivenWhileNobodyWaitsEndsTheNextWaitOnceOnly() throws Exception {
    ProgressSignal signal = new ProgressSignal();
    signal.signal();
    signal.signal(); // two ends before the wait: one look at the budget is enough
    assertTrue(signal.await(LONG), "kept until a wait takes it, so an end just before the wait is not missed");
    assertFalse(signal.await(Duration.ofMillis(1)), "taken by that wait");
  }

  @Test
  void withoutASignalTheWaitEndsAtItsTimeout() throws Exception {
    assertFalse(new ProgressSignal().await(Duration.ofMillis(1)));
    assertFalse(new ProgressSignal().await(Duration.ZERO));
  }

  @Test
  void aSignallingExecutorSignalsAfterEachTaskHoweverItEnds() throws Exception {
    ProgressSignal signal = new ProgressSignal();
    AtomicInteger ran = new AtomicInteger();
    var executor = signal.signalling(Runnable::run);

    executor.execute(ran::incrementAndGet);
    assertEquals(1, ran.get());
    assertTrue(signal.await(Duration.ZERO), "signalled after the task");

    RuntimeException failure = assertThrows(RuntimeException.class, () -> executor.execute(() -> {
      throw new IllegalStateException("the flush failed");
    }));
    assertEquals("the flush failed", failure.getMessage());
    assertTrue(signal.await(Duration.ZERO), "a failed flush gives the signal too: its events go back to the buffer");
    assertFalse(signal.await(Duration.ZERO));
  }
}
