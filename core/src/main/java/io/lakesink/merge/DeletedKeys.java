package io.lakesink.merge;

import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the deletes this worker applied ranked, so that an older change of a deleted key that
 * arrives later (from another partition, after the key moved) does not bring the key back: the
 * merged table itself keeps no trace of a deleted row. Held in memory for the most recent
 * {@value #CAPACITY} deleted keys, until the worker restarts (docs/merge.md).
 */
final class DeletedKeys {
  static final int CAPACITY = 100_000;

  private final Map<RowKey, ChangeOrder> deleted;

  DeletedKeys() {
    this(CAPACITY);
  }

  DeletedKeys(int capacity) {
    this.deleted = new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<RowKey, ChangeOrder> eldest) {
        return size() > capacity;
      }
    };
  }

  /** Where the last delete of this key ranked, or null when none is remembered. */
  ChangeOrder deletedAt(RowKey key) {
    return deleted.get(key);
  }

  void deleted(RowKey key, ChangeOrder at) {
    deleted.remove(key); // re-inserted last: the most recent deletes are the ones kept
    deleted.put(key, at);
  }

  /** Whether no delete is remembered: then nothing a merge writes needs {@link #reinserted}. */
  boolean isEmpty() {
    return deleted.isEmpty();
  }

  /** The key holds a row again: its delete no longer matters. */
  void reinserted(RowKey key) {
    deleted.remove(key);
  }
}
