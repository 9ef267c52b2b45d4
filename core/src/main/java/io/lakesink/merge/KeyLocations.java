package io.lakesink.merge;

import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.delta.WrittenFile;
import io.lakesink.event.ColumnType;
import io.lakesink.event.StringOrder;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where each key's row is in a kept current-state table at one version: its file, its position
 * in the file and the rank its ordering columns give it. With it a follow finds the rows its
 * changes replace without reading the table: each follow of a busy table touches keys spread over
 * every file, so the merge read the key column of every file at every commit (a tenth of a
 * follow's CPU on local disk, and requests to the store for every file on Azure), and held a
 * Parquet batch, the batch's keys as UTF-8 and a row per match while it did.
 *
 * <p>True for one table version only ({@link #version}): made from one read of every file's key
 * and ordering columns, then moved on by each commit of this worker that lands right on top of
 * it, with the rows that commit wrote (their file and position) and the keys it deleted. Any other
 * commit (an optimize, another writer) leaves it behind and the next follow makes it again.
 * Only for a one-column {@code string}, {@code int} or {@code bigint} key, and within {@link
 * #MAX_BYTES} (and {@link #ALL_TABLES_BYTES} with the other tables'): a bigger table is merged by
 * reading its files, as before.
 */
final class KeyLocations {
  /** What one key's entry takes, about: the map's node, the location, the key (a short string). */
  static final long BYTES_PER_KEY = 144;
  /** Above this a table is merged by reading its files: the heap is the worker's buffers'. */
  static final long MAX_BYTES = Runtime.getRuntime().maxMemory() / 16;
  /** What the locations of all of a worker's kept tables may take together. */
  static final long ALL_TABLES_BYTES = Runtime.getRuntime().maxMemory() / 8;
  /** Every table's locations that may still be used, counted against {@link #MAX_BYTES} and {@link #ALL_TABLES_BYTES}. */
  private static final HeapShare<KeyLocations> LIVE = new HeapShare<>(KeyLocations::bytes, MAX_BYTES);

  /** A stored row: its file (an index into {@link #paths}), its position, and its rank's parts (null: {@code NULL}). */
  private static final class Location {
    /** -1 until the key is placed. */
    int file = -1;
    long position;
    long tsMs;
    long partition;
    long offset;

    ChangeOrder rank() {
      return new ChangeOrder(tsMs == NULL ? null : tsMs, partition == NULL ? null : (int) partition, offset == NULL ? null : offset);
    }

    void set(int file, long position, ChangeOrder rank) {
      this.file = file;
      this.position = position;
      this.tsMs = rank.tsMs() == null ? NULL : rank.tsMs();
      this.partition = rank.partition() == null ? NULL : rank.partition();
      this.offset = rank.offset() == null ? NULL : rank.offset();
    }
  }

  private static final long NULL = Long.MIN_VALUE;

  private final List<String> column;
  private final boolean integer;
  private final Map<Object, Location> byKey = new HashMap<>();
  /**
   * The files rows are located in, by index, each with the keys located in it: a file none is
   * left in (its rows all replaced; the merge removes such a file) gives its index to the next
   * one, so a worker that runs for months does not gather a path per follow.
   */
  private final List<String> paths = new ArrayList<>();
  private int[] keysIn = new int[16];
  private final Map<String, Integer> pathIndex = new HashMap<>();
  private final ArrayDeque<Integer> freeFiles = new ArrayDeque<>();
  private long version;

  private KeyLocations(KeyColumns key, long version) {
    this.column = key.names();
    this.integer = key.types()[0].kind() != ColumnType.Kind.STRING;
    this.version = version;
  }

  /** Whether batches keyed on these columns may be located: one {@code string}, {@code int} or {@code bigint} column. */
  static boolean locates(KeyColumns key) {
    if (key.types().length != 1) {
      return false;
    }
    ColumnType.Kind kind = key.types()[0].kind();
    return kind == ColumnType.Kind.STRING || kind == ColumnType.Kind.BIGINT || kind == ColumnType.Kind.INT;
  }

  /**
   * The locations of every live row of {@code files} (the table at {@code version}), read from
   * their key and ordering columns; empty when a key is held twice (the table was not written by
   * a merge alone) or they do not fit ({@link #wouldFit} tells before the read, by the files' statistics).
   *
   * @param ranks a stored row's rank from the row as read
   */
  static Optional<KeyLocations> read(
      PositionedRowReader reader, List<TableFile> files, KeyColumns key, long version,
      Function<Object[], ChangeOrder> ranks) {
    KeyLocations index = new KeyLocations(key, version);
    boolean[] valid = {true};
    for (TableFile file : files) {
      int f = index.fileOf(file.path());
      reader.forEach(file, (row, position) -> {
        RowKey k = key.keyOf(row);
        if (k == null || !valid[0]) {
          return;
        }
        Object value = index.valueOf(k);
        Location at = new Location();
        if (value == null || index.byKey.putIfAbsent(value, at) != null) {
          valid[0] = false; // a key held twice
          return;
        }
        at.set(f, position, ranks.apply(row));
        index.keysIn[f]++;
      });
      if (!valid[0]) {
        return Optional.empty();
      }
    }
    LIVE.add(index);
    return index.fits() ? Optional.of(index) : Optional.empty();
  }

  /** The locations of a table that holds no file at {@code version}: none. */
  static KeyLocations empty(KeyColumns key, long version) {
    KeyLocations index = new KeyLocations(key, version);
    LIVE.add(index);
    return index;
  }

  /**
   * Whether the locations of these files' live rows would fit, by their statistics (a file
   * without them: no): checked before they are read, so a table too big for them costs no read.
   */
  static boolean wouldFit(List<TableFile> files) {
    if (files.stream().anyMatch(f -> f.rows() < 0)) {
      return false;
    }
    long bytes = files.stream().mapToLong(TableFile::rows).sum() * BYTES_PER_KEY;
    return bytes <= MAX_BYTES && LIVE.liveBytes() + bytes <= ALL_TABLES_BYTES;
  }

  /** Whether it describes the table at this version, for batches keyed on these columns. */
  boolean describes(long tableVersion, KeyColumns key) {
    return version == tableVersion && column.equals(key.names());
  }

  /**
   * Where the table holds the key, as {@code (path, position, rank)}; null when it does not, and
   * {@link #UNKNOWN} when the key cannot be looked up here (a string with an unpaired surrogate:
   * no stored string reads back as it, so only a read of the files finds what the merge compares).
   */
  Stored find(RowKey key) {
    Object value = valueOf(key);
    if (value == null) {
      return UNKNOWN;
    }
    Location at = byKey.get(value);
    return at == null ? null : new Stored(paths.get(at.file), at.position, at.rank(), at);
  }

  /** What {@link #find} gives for a key it cannot look up. */
  static final Stored UNKNOWN = new Stored("", -1, ChangeOrder.UNKNOWN, null);

  /**
   * A stored row of a key: its file's path, its position in the file, and its rank; {@code entry}
   * is the key's entry, which {@link #committed} moves without looking the key up again.
   */
  record Stored(String path, long position, ChangeOrder rank, Location entry) {}

  /**
   * A commit of this worker landed at {@code newVersion}, right on top of {@link #version}: it
   * deleted the rows of {@code deleted}, and wrote {@code rows} (in their order) into {@code
   * files}, replacing the stored rows of their keys.
   *
   * @param found the rows written whose key the table held, each with where {@link #find} found
   *     it (by identity): moved without looking their keys up again
   * @return false when the rows written cannot be placed (a file's row count unknown, or not the
   *     rows' count): the index is then no longer good for anything
   */
  boolean committed(Iterable<RowKey> deleted, KeyColumns key, List<Object[]> rows, Map<Object[], Stored> found,
      Function<Object[], ChangeOrder> ranks, List<WrittenFile> files, long newVersion) {
    for (RowKey k : deleted) {
      Object value = valueOf(k);
      Location at = value == null ? null : byKey.remove(value);
      if (at != null) {
        left(at.file);
      }
    }
    long total = 0;
    for (WrittenFile f : files) {
      if (f.rows() < 0) {
        return false;
      }
      total += f.rows();
    }
    if (total != rows.size()) {
      return false;
    }
    int r = 0;
    for (WrittenFile f : files) {
      int file = fileOf(f.path());
      for (long i = 0; i < f.rows(); i++, r++) {
        long position = f.position(i);
        Object[] row = rows.get(r);
        Stored held = found.get(row);
        Location at = held == null ? null : held.entry();
        if (at == null) {
          RowKey k = key.keyOf(row);
          Object value = k == null ? null : valueOf(k);
          if (value == null) {
            return false;
          }
          at = byKey.computeIfAbsent(value, v -> new Location());
        }
        if (at.file >= 0) {
          left(at.file);
        }
        at.set(file, position, ranks.apply(row));
        keysIn[file]++;
      }
    }
    version = newVersion;
    return fits();
  }

  long version() {
    return version;
  }

  int size() {
    return byKey.size();
  }

  long bytes() {
    return byKey.size() * BYTES_PER_KEY;
  }

  /** Whether it may be kept: within {@link #MAX_BYTES}, and with the other tables' within {@link #ALL_TABLES_BYTES}. */
  private boolean fits() {
    return LIVE.fits(this, ALL_TABLES_BYTES);
  }

  /** Gives it up: no longer counted with the other tables'. */
  void drop() {
    LIVE.remove(this);
  }

  private int fileOf(String path) {
    Integer i = pathIndex.get(path);
    if (i == null) {
      i = freeFiles.poll();
      if (i == null) {
        i = paths.size();
        paths.add(path);
        if (i == keysIn.length) {
          keysIn = Arrays.copyOf(keysIn, i * 2);
        }
      } else {
        paths.set(i, path);
      }
      pathIndex.put(path, i);
    }
    return i;
  }

  /** A key no longer located in file {@code file}; its index is free once none is. */
  private void left(int file) {
    if (--keysIn[file] == 0) {
      pathIndex.remove(paths.get(file));
      paths.set(file, null);
      freeFiles.add(file);
    }
  }

  /** Files keys are located in: what the table's live files are, at the version it describes. */
  int files() {
    return pathIndex.size();
  }

  /** The key's value as the index holds it (an integer as a {@code Long}); null when it cannot stand for the key. */
  private Object valueOf(RowKey key) {
    if (key.values().size() != 1) {
      return null;
    }
    Object v = key.values().get(0);
    if (integer) {
      return v instanceof Number n ? (Object) n.longValue() : null;
    }
    return v instanceof String s && readsBack(s) ? s : null;
  }

  /** Whether a stored string reads back as this one: not when it has an unpaired surrogate (Java writes {@code ?} for it). */
  private static boolean readsBack(String s) {
    return !StringOrder.hasSurrogate(s) || new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
  }
}
