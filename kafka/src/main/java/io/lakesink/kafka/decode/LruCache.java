package io.lakesink.kafka.decode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map that forgets its least recently used entry beyond a capacity. Decoders cache what they
 * derive from each distinct schema; a stream whose schemas keep changing (or a producer cycling
 * through schema ids) must not grow those caches without end. Not thread-safe.
 */
public final class LruCache<K, V> extends LinkedHashMap<K, V> {
  /** Enough for every schema of a busy subscription; each entry is a few kilobytes at most. */
  public static final int DEFAULT_CAPACITY = 1000;

  private final int capacity;

  public LruCache(int capacity) {
    super(16, 0.75f, true);
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity " + capacity);
    }
    this.capacity = capacity;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    return size() > capacity;
  }
}
