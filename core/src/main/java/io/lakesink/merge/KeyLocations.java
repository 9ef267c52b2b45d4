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
  /**
   * What one key takes at most, before the locations are read: a string key's map node, boxed
   * slot and string (about 104 bytes) and an integer key's share of the open-addressing table (at
   * most 48), plus the slot's arrays (36 bytes, up to twice that while they grow).
   */
  static final long BYTES_PER_STRING_KEY = 176;
  static final long BYTES_PER_INTEGER_KEY = 120;
  /** Above this a table is merged by reading its files: the heap is the worker's buffers'. */
  static final long MAX_BYTES = Runtime.getRuntime().maxMemory() / 16;
  /** What the locations of all of a worker's kept tables may take together. */
  static final long ALL_TABLES_BYTES = Runtime.getRuntime().maxMemory() / 8;
  /** Every table's locations that may still be used, counted against {@link #MAX_BYTES} and {@link #ALL_TABLES_BYTES}. */
  private static final HeapShare<KeyLocations> LIVE = new HeapShare<>(KeyLocations::bytes, MAX_BYTES);

  private static final long NULL = Long.MIN_VALUE;

  private final List<String> column;
  private final boolean integer;
  /**
   * Each key's slot: an integer key's in a primitive open-addressing table, a string's in a map.
   * A slot's row lives in the arrays below, not in an object per key: the locations stay on the
   * heap for the worker's life, and a hundred thousand keys as a node, a location and a boxed key
   * each were objects the collector marked at every cycle (and a lookup followed through three).
   */
  private final KeySlots slots;
  /** Per slot: the row's file (an index into {@link #paths}, -1 until placed), position and rank's parts ({@code NULL}: null). */
  private int[] fileAt = new int[16];
  private long[] positionAt = new long[16];
  private long[] tsMsAt = new long[16];
  private long[] partitionAt = new long[16];
  private long[] offsetAt = new long[16];
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
    this.slots = integer ? new KeySlots.Longs() : new KeySlots.Strings();
    this.version = version;
  }

  /** The slot of a key newly indexed, its arrays grown to hold it. */
  private int newSlot(Object value) {
    int slot = slots.add(value);
    if (slot >= fileAt.length) {
      int n = Math.max(slot + 1, fileAt.length * 2);
      fileAt = Arrays.copyOf(fileAt, n);
      positionAt = Arrays.copyOf(positionAt, n);
      tsMsAt = Arrays.copyOf(tsMsAt, n);
      partitionAt = Arrays.copyOf(partitionAt, n);
      offsetAt = Arrays.copyOf(offsetAt, n);
    }
    fileAt[slot] = -1;
    return slot;
  }

  private void set(int slot, int file, long position, ChangeOrder rank) {
    fileAt[slot] = file;
    positionAt[slot] = position;
    tsMsAt[slot] = rank.tsMs() == null ? NULL : rank.tsMs();
    partitionAt[slot] = rank.partition() == null ? NULL : rank.partition();
    offsetAt[slot] = rank.offset() == null ? NULL : rank.offset();
  }

  private ChangeOrder rank(int slot) {
    long ts = tsMsAt[slot];
    long partition = partitionAt[slot];
    long offset = offsetAt[slot];
    return new ChangeOrder(ts == NULL ? null : ts, partition == NULL ? null : (int) partition, offset == NULL ? null : offset);
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
        if (value == null || index.slots.slotOf(value) >= 0) {
          valid[0] = false; // a key held twice
          return;
        }
        index.set(index.newSlot(value), f, position, ranks.apply(row));
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
  static boolean wouldFit(List<TableFile> files, KeyColumns key) {
    if (files.stream().anyMatch(f -> f.rows() < 0)) {
      return false;
    }
    long perKey = key.types()[0].kind() == ColumnType.Kind.STRING ? BYTES_PER_STRING_KEY : BYTES_PER_INTEGER_KEY;
    long bytes = files.stream().mapToLong(TableFile::rows).sum() * perKey;
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
    int slot = slots.slotOf(value);
    return slot < 0 ? null : new Stored(paths.get(fileAt[slot]), positionAt[slot], rank(slot), slot);
  }

  /** What {@link #find} gives for a key it cannot look up. */
  static final Stored UNKNOWN = new Stored("", -1, ChangeOrder.UNKNOWN, -1);

  /**
   * A stored row of a key: its file's path, its position in the file, and its rank; {@code slot}
   * is the key's, which {@link #committed} moves without looking the key up again.
   */
  record Stored(String path, long position, ChangeOrder rank, int slot) {}

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
      int slot = value == null ? -1 : slots.remove(value);
      if (slot >= 0 && fileAt[slot] >= 0) {
        left(fileAt[slot]);
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
        int slot = held == null ? -1 : held.slot();
        if (slot < 0) {
          RowKey k = key.keyOf(row);
          Object value = k == null ? null : valueOf(k);
          if (value == null) {
            return false;
          }
          slot = slots.slotOf(value);
          if (slot < 0) {
            slot = newSlot(value);
          }
        }
        if (fileAt[slot] >= 0) {
          left(fileAt[slot]);
        }
        set(slot, file, position, ranks.apply(row));
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
    return slots.size();
  }

  long bytes() {
    return slots.bytes() + fileAt.length * 36L;
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
    if (key.size() != 1) {
      return null;
    }
    Object v = key.first();
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
