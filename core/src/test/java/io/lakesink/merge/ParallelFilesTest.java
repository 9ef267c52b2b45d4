package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.RetryableException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ParallelFilesTest {
  @Test
  void resultsComeBackInTheFilesOrderAndTwoLanesRunAtOnce() throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<Integer> out = ParallelFiles.map(IntStream.range(0, 20).boxed().toList(), 2, i -> {
      threads.add(Thread.currentThread().getName());
      if (i < 2) {
        // The first two files wait for each other: only two lanes working at once get past this.
        both.countDown();
        try {
          assertTrue(both.await(60, TimeUnit.SECONDS), "the other lane never started");
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      return i * 10;
    });
    assertEquals(IntStream.range(0, 20).map(i -> i * 10).boxed().toList(), out);
    assertEquals(2, threads.size(), "the caller and one helper: " + threads);
  }

  @Test
  void aFailureIsRethrownAsItWasThrownSoItsClassificationIsKept() {
    RetryableException failure = new RetryableException("storage unreachable", null);
    RetryableException thrown = assertThrows(RetryableException.class, () -> ParallelFiles.map(List.of(1, 2, 3, 4), 2, i -> {
      if (i == 3) {
        throw failure;
      }
      return i;
    }));
    assertSame(failure, thrown);
  }
}
