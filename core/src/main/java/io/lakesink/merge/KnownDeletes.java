package io.lakesink.merge;

import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the latest delete of each key ranks, as far as a table kept from a changelog has learnt
 * it, for the life of its worker: answered from here, a key is not looked up in the changelog
 * again. Looking up a key read the changelog's history of it (every file that may hold a delete of
 * it, then every file that may hold the key, to rank the delete), so with a stream re-inserting
 * deleted keys every follow read more history than the one before: half of a follow's work after
 * 3 million changes on 100,000 keys, and growing.
 *
 * <p>An entry is complete: the highest rank of the key's deletes in the whole changelog as of the
 * version it was learnt at, or "none". It stays complete because every later delete of the key is
 * folded in once the commit applying it lands ({@link #deleted}), and a delete the merge did not
 * apply changes nothing: it ranked below the key's row (which outranks every delete before it) or
 * below the delete already known. Two ways an entry is made: a lookup in the changelog, and a
 * delete of a row the table held (that row outranked every earlier delete, and the delete
 * outranks the row). A delete of a key the table did not hold only raises an entry that exists:
 * alone it says nothing of the deletes before it (unless the whole history passed through here, below).
 *
 * <p>All of it is forgotten when the table reflects changes another writer applied (another
 * worker's follow: its deletes were never folded in here), and when it grows past
 * {@link #CAPACITY} keys. Only a cache: a key not found here is looked up as before.
 *
 * <p>Or <em>whole</em> ({@link #followsFromEmpty}): the table was empty when this object's first
 * application began, so every delete of the changelog passes through the merges this object
 * commits, and each one is folded in, also of a key the table did not hold (nothing can have come
 * before it unseen). Then a key not found here has no delete at all, and nothing is looked up: a
 * table built by this worker from the changelog's first version never reads the changelog for
 * deletes (in a benchmark of 1M changes, a tenth of the follows' CPU, all in the first one, where
 * every key is new; building a table over a long history, every step). Anything that may have let
 * a delete go unfolded (a failed application, another writer, room made) ends it; only a table
 * found empty again starts it again.
 */
final class KnownDeletes {
  static final int CAPACITY = 200_000;

  /** Per key, where its latest delete ranks; a null value: the key has none. */
  private final Map<RowKey, ChangeOrder> latest = new HashMap<>();
  /** Keys answered from here (not looked up), for tests and the benchmark. */
  long hits;
  /** Whether every delete of the changelog the table reflects was folded in here: a key not found has none. */
  private boolean whole;

  /** The table is empty, and this object applies the changelog from its first version: every delete will be folded in here. */
  void followsFromEmpty() {
    latest.clear();
    whole = true;
  }

  /** A delete may have been applied without being folded in here (an application failed): keys not found are looked up again. */
  void notWhole() {
    whole = false;
  }

  /** Whether a key not found here has no delete at all (see {@link #followsFromEmpty}). */
  boolean whole() {
    return whole;
  }

  /** The delete history that answers from what is known here and asks {@code changelog} for the rest, learning its answers. */
  DeleteHistory before(DeleteHistory changelog) {
    return new DeleteHistory() {
      @Override
      public Map<RowKey, ChangeOrder> deletedAt(Collection<RowKey> keys) {
        Map<RowKey, ChangeOrder> out = new HashMap<>();
        List<RowKey> unknown = new ArrayList<>();
        for (RowKey k : keys) {
          if (whole || latest.containsKey(k)) { // whole: every delete is here, a key not found has none
            hits++;
            ChangeOrder at = latest.get(k);
            if (at != null) {
              out.put(k, at);
            }
          } else {
            unknown.add(k);
          }
        }
        if (!unknown.isEmpty()) {
          Map<RowKey, ChangeOrder> looked = changelog.deletedAt(unknown);
          out.putAll(looked);
          makeRoomFor(unknown.size());
          unknown.forEach(k -> latest.put(k, looked.get(k)));
        }
        return out;
      }

      @Override
      public boolean knowsNone() {
        return changelog.knowsNone();
      }
    };
  }

  /**
   * A committed merge deleted {@code key} at {@code at}.
   *
   * @param held whether the table held the key's row before (then this delete is its latest)
   */
  void deleted(RowKey key, ChangeOrder at, boolean held) {
    if (latest.containsKey(key)) {
      ChangeOrder known = latest.get(key);
      latest.put(key, known != null && known.isAfter(at) ? known : at);
    } else if (held || whole) {
      makeRoomFor(1);
      latest.put(key, at);
    }
  }

  /** The table reflects changes applied elsewhere: what is known here may miss their deletes. */
  void forget() {
    latest.clear();
    whole = false;
  }

  int size() {
    return latest.size();
  }

  private void makeRoomFor(int keys) {
    if (latest.size() + keys > CAPACITY) {
      latest.clear(); // a cache: the keys are looked up again
      whole = false;
    }
  }
}
