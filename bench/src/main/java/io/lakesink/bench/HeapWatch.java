package io.lakesink.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Heap use over a measured window, from the JVM's GC notifications: the most heap in use just
 * before a collection (the peak the heap had to hold, garbage included) and the most still in
 * use just after one (an upper bound of the live data at its peak: what a smaller heap would
 * have had to fit). JDK classes only, so the Spark JVM uses it too.
 */
final class HeapWatch {
  private volatile long maxBefore;
  private volatile long maxAfter;
  private volatile int collections;

  HeapWatch() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            record(info.getGcInfo().getMemoryUsageBeforeGc(), info.getGcInfo().getMemoryUsageAfterGc());
          }
        }, null, null);
      }
    }
  }

  /** Starts a new window. */
  synchronized void reset() {
    maxBefore = 0;
    maxAfter = 0;
    collections = 0;
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  private synchronized void record(Map<String, MemoryUsage> before, Map<String, MemoryUsage> after) {
    maxBefore = Math.max(maxBefore, heapUsed(before));
    maxAfter = Math.max(maxAfter, heapUsed(after));
    collections++;
  }

  /** Most heap in use during the window: before any collection, or now. */
  long peakBytes() {
    return Math.max(maxBefore, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
  }

  /** Most heap still in use after a collection in the window (0 if none ran). */
  long peakAfterGcBytes() {
    return maxAfter;
  }

  int collections() {
    return collections;
  }

  /**
   * Heap in use after a full collection ({@code System.gc()}, outside any timed window): what
   * stays reachable between merges. Growing from merge to merge would mean something is kept.
   */
  static long retainedBytes() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Sums the heap pools of a GC's before/after usage (the map also holds non-heap pools). */
  private static long heapUsed(Map<String, MemoryUsage> usage) {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage u = usage.get(pool.getName());
      if (u != null && pool.getType() == MemoryType.HEAP) {
        sum += u.getUsed();
      }
    }
    return sum;
  }
}
