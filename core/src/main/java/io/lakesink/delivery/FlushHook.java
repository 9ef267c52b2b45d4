package io.lakesink.delivery;

/**
 * Called at each {@link FlushStep}. Production uses {@link #NONE}; tests inject crashes here to
 * prove that a restart after any step delivers every event exactly once.
 */
@FunctionalInterface
public interface FlushHook {
  FlushHook NONE = (table, step) -> {};

  void at(String table, FlushStep step);
}
