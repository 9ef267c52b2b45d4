package io.lakesink.merge;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.ToLongFunction;

/**
 * What a worker's per-table sets of one kind ({@link TableKeys}, {@link KeyLocations}) hold
 * on the heap together, bounded per table and for all tables: each set counts while it is
 * live, held weakly, so one forgotten with its table stops counting without being told.
 */
final class HeapShare<T> {
  private final Set<T> live = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
  private final ToLongFunction<T> bytes;
  private final long perTable;

  /**
   * @param bytes what a set holds, about
   * @param perTable what one set may hold
   */
  HeapShare(ToLongFunction<T> bytes, long perTable) {
    this.bytes = bytes;
    this.perTable = perTable;
  }

  /** Counts a set from now on. */
  void add(T set) {
    live.add(set);
  }

  /** No longer counts a set (given up). */
  void remove(T set) {
    live.remove(set);
  }

  /** What the sets counted hold together. */
  long liveBytes() {
    long all = 0;
    synchronized (live) {
      for (T s : live) {
        all += bytes.applyAsLong(s);
      }
    }
    return all;
  }

  /**
   * Whether {@code set} may be kept: within the per-table bound, and with the others within
   * {@code allTables}. One that does not fit is given up here (no longer counted).
   */
  boolean fits(T set, long allTables) {
    long mine = bytes.applyAsLong(set);
    long others = liveBytes() - (live.contains(set) ? mine : 0);
    if (mine <= perTable && others + mine <= allTables) {
      return true;
    }
    live.remove(set);
    return false;
  }
}
