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
final class DeletedKeys implements DeleteHistory {
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
    ChangeOrder before = deleted.remove(key); // re-inserted last: the most recent deletes are the ones kept
    // An older delete of an absent key, read late, does not lower where the key's latest delete ranks.
    deleted.put(key, before != null && before.isAfter(at) ? before : at);
  }

  @Override
  public Map<RowKey, ChangeOrder> deletedAt(java.util.Collection<RowKey> keys) {
    Map<RowKey, ChangeOrder> out = new java.util.HashMap<>();
    for (RowKey k : keys) {
      ChangeOrder at = deleted.get(k);
      if (at != null) {
        out.put(k, at);
      }
    }
    return out;
  }

  /** Whether no delete is remembered: then nothing a merge writes needs {@link #reinserted}. */
  @Override
  public boolean knowsNone() {
    return deleted.isEmpty();
  }

  @Override
  public boolean forgetsRewrittenKeys() {
    return true;
  }

  /** The key holds a row again: its delete no longer matters. */
  void reinserted(RowKey key) {
    deleted.remove(key);
  }
}
