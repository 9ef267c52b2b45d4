package io.lakesink.delivery;

/** Waits between attempts; tests pass one that records instead of sleeping. */
@FunctionalInterface
public interface Backoff {
  Backoff SLEEP = Thread::sleep;

  void pause(long millis) throws InterruptedException;
}
