package io.lakesink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of the JVM's own threads, which ThreadMXBean does not show: the JIT compilers and the
 * garbage collector. Read from {@code /proc/self/task/<tid>/} (Linux; empty elsewhere), by group:
 * {@code jit} (C1/C2 compiler threads), {@code gc} (GC workers, G1's concurrent and refinement
 * threads) and {@code vm} (the VM thread, which runs safepoint operations, stop-the-world
 * collections included). Threads that ended are missing; JIT and GC threads live as long as the JVM.
 */
final class JvmThreadCpu {
  /** Clock ticks per second of {@code /proc} times: USER_HZ, 100 on every Linux platform Java runs on. */
  private static final double TICKS_PER_SECOND = 100;

  private JvmThreadCpu() {}

  /** CPU seconds so far by group ({@link #group}); threads of no group are left out. */
  static Map<String, Double> now() {
    Map<String, Double> cpu = new TreeMap<>();
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return cpu;
    }
    try (Stream<Path> all = Files.list(tasks)) {
      all.forEach(task -> {
        try {
          String group = group(Files.readString(task.resolve("comm")).strip());
          if (group != null) {
            cpu.merge(group, seconds(Files.readString(task.resolve("stat"))), Double::sum);
          }
        } catch (IOException e) {
          // the thread ended while being read: it is left out, as ended threads are
        }
      });
    } catch (IOException e) {
      return cpu;
    }
    return cpu;
  }

  /** The group of a thread by its kernel name (at most 15 characters), or null for another thread. */
  static String group(String comm) {
    if (comm.contains("CompilerThre")) {
      return "jit";
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
      return "gc";
    }
    return comm.equals("VM Thread") ? "vm" : null;
  }

  /**
   * User plus system time of a {@code /proc/.../stat} line, in seconds. The name in parentheses may
   * itself hold spaces and parentheses, so the fields are counted from the last ')': utime and
   * stime are the 14th and 15th fields of the line, the 12th and 13th after it.
   */
  static double seconds(String stat) {
    String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return (Long.parseLong(after[11]) + Long.parseLong(after[12])) / TICKS_PER_SECOND;
  }
}
