package io.lakesink.connect;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lakesink tasks this worker runs, each with the status it last published, for
 * {@link LakesinkRestExtension}.
 *
 * <p>A static is needed because Connect builds the REST extension and every task itself, with
 * no object it could hand to both. Both are loaded by this plugin's class loader, which a
 * worker creates once, so this map is exactly "the lakesink tasks of this worker" (two workers
 * in one JVM, as in tests, have two class loaders and two maps). Tasks publish from their own
 * threads and REST requests read from Jetty's, hence a concurrent map of immutable snapshots.
 */
final class RunningTasks {
  private static final Map<Object, TaskStatus> TASKS = new ConcurrentHashMap<>();

  private RunningTasks() {}

  /** Adds or replaces the task's status; the task is the key, by identity. */
  static void publish(Object task, TaskStatus status) {
    TASKS.put(task, status);
  }

  static void remove(Object task) {
    TASKS.remove(task);
  }

  /** Every running task's status, by connector name then first partition, so output is stable. */
  static List<TaskStatus> all() {
    return TASKS.values().stream()
        .sorted(Comparator.comparing(TaskStatus::connector)
            .thenComparing(t -> t.partitions().isEmpty() ? "" : t.partitions().get(0)))
        .toList();
  }
}
