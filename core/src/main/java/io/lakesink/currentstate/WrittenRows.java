package io.lakesink.currentstate;

import io.lakesink.event.Column;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of this worker's latest changelog commits, handed to the kept table's follow in memory
 * so that it does not read back the file it was just written: reading a flush's rows back was a
 * quarter of a follow's CPU and made a second copy of every value, which the follow then held
 * beside the worker's buffers. Only a cache: a file the follow finds here is applied from these
 * rows, any other from the changelog, with the same result ({@link ChangelogChanges}).
 *
 * <p>Bounded: at most {@link #maxRows} rows are held, the oldest commits let go first, and a
 * follow forgets the commits it reflects. Rows are held as the changelog writer gave them to the
 * Parquet writer and never changed afterwards. Thread-safe: the changelog's writer offers, the
 * follower takes.
 */
final class WrittenRows {
  /** The rows one changelog commit wrote into its only data file, with the columns they are aligned with. */
  record Written(long version, List<Column> columns, List<Object[]> rows) {
    /**
     * Whether these rows line up with a row read from the changelog with {@code now}, its columns
     * now: theirs are a prefix of them (columns are only ever added at the end; a row written
     * before one was added reads null in it).
     */
    boolean alignedWith(List<Column> now) {
      return columns.size() <= now.size() && now.subList(0, columns.size()).equals(columns);
    }
  }

  private final long maxRows;
  /** By data file path (as the changelog's log spells it), oldest commit first. */
  private final Map<String, Written> byPath = new LinkedHashMap<>();
  private long held;

  /** @param maxRows rows held at most; a commit of more is not held */
  WrittenRows(long maxRows) {
    this.maxRows = maxRows;
  }

  /** The changelog committed {@code rows} as the one data file {@code path} at {@code version}. */
  synchronized void offer(long version, String path, List<Column> columns, List<Object[]> rows) {
    if (rows.size() > maxRows) {
      return;
    }
    Written previous = byPath.put(path, new Written(version, List.copyOf(columns), rows));
    held += rows.size() - (previous == null ? 0 : previous.rows().size());
    Iterator<Written> oldest = byPath.values().iterator();
    while (held > maxRows && oldest.hasNext()) {
      held -= oldest.next().rows().size();
      oldest.remove();
    }
  }

  /** The rows written into {@code path}, let go of here; null when not held. */
  synchronized Written take(String path) {
    Written w = byPath.remove(path);
    if (w != null) {
      held -= w.rows().size();
    }
    return w;
  }

  /** The rows written into {@code path}, still held here; null when not held. */
  synchronized Written peek(String path) {
    return byPath.get(path);
  }

  /** Lets go of the commits up to {@code version}: the table reflects them (or read them from the changelog). */
  synchronized void forgetThrough(long version) {
    Iterator<Written> all = byPath.values().iterator();
    while (all.hasNext()) {
      Written w = all.next();
      if (w.version() <= version) {
        held -= w.rows().size();
        all.remove();
      }
    }
  }

  synchronized long heldRows() {
    return held;
  }
}
