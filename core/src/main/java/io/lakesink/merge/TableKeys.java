package io.lakesink.merge;

import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ColumnType;
import io.lakesink.merge.KeyColumns.RowKey;
import java.util.Collection;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * Every key a MERGE table may hold at one version, as this worker knows it: a superset, never
 * missing a key the table holds, so a batch key it does not hold is provably absent and a merge
 * inserts it without reading any file. What makes a big unordered snapshot an append instead of
 * a read of every file loaded before each commit (docs/merge.md, "Initial snapshots").
 *
 * <p>It is true for one table version only ({@link #version}): started empty when the table has
 * no file, or from one scan of every file's keys, then advanced by each commit of this worker
 * that lands right on top of it with the keys that commit wrote. Any other commit (another
 * writer, an optimize, this worker's own maintenance) leaves it behind, and it is not used
 * again. Deleted keys stay in it: a superset is all it promises.
 *
 * <p>One compressed bitmap of 32-bit values: a single {@code int}/{@code bigint} key from 0 to
 * 2<sup>32</sup>-1 (the usual id) is its own value, exact, about a bit per key for dense ids; any
 * other key is a hash of its stored form, where a shared value only makes a key a "maybe", looked
 * for in the files as before. So the set takes at most about 2 bytes per key (sparse values) and
 * never more than {@link #MAX_BYTES}: a table with more keys is merged as before.
 */
final class TableKeys {
  /** Above this the set is dropped and merges read files as before: the heap is not the table's. */
  static final long MAX_BYTES = 64L << 20;
  /**
   * What the sets of all of a worker's tables may take together, an eighth of the heap: a set
   * that would go past it is dropped, so many big tables keyed at once slow down to reading
   * files instead of running out of memory.
   */
  static final long ALL_TABLES_BYTES = Runtime.getRuntime().maxMemory() / 8;
  /** Every set some table may still hold, counted against {@link #MAX_BYTES} and {@link #ALL_TABLES_BYTES}. */
  private static final HeapShare<TableKeys> LIVE = new HeapShare<>(TableKeys::bytes, MAX_BYTES);

  private final List<String> columns;
  private final boolean integer;
  private final RoaringBitmap values = new RoaringBitmap();
  private long version;

  private TableKeys(KeyColumns key, long version) {
    this.columns = key.names();
    this.integer = isInteger(key);
    this.version = version;
    LIVE.add(this);
  }

  /** The keys of a table that holds no file at {@code version}: none. */
  static TableKeys empty(KeyColumns key, long version) {
    return new TableKeys(key, version);
  }

  /**
   * The keys of every live row of {@code files} (the table at {@code version}), read as a merge
   * reads them: the key column only, file by file.
   *
   * @param reader reads (at least) the key columns
   * @return empty when they take more than {@link #MAX_BYTES} (the rest of the files is not read)
   */
  static java.util.Optional<TableKeys> scan(PositionedRowReader reader, List<TableFile> files, KeyColumns key, long version) {
    TableKeys keys = new TableKeys(key, version);
    PositionedRowReader.RowSink none = (row, position) -> { };
    boolean[] tooMany = {false};
    ParallelFiles.map(files, TableMerge.LANES, file -> {
      synchronized (keys) {
        if (tooMany[0]) {
          return null;
        }
      }
      RoaringBitmap local = new RoaringBitmap();
      if (keys.integer) {
        reader.forEachLongKey(file, key.names().get(0), (k, isNull) -> {
          if (!isNull) {
            local.add(value(k));
          }
          return false;
        }, none);
      } else {
        reader.forEach(file, key.names(), probe -> {
          RowKey k = key.keyOf(probe);
          if (k != null) {
            local.add(hash(k));
          }
          return false;
        }, none);
      }
      synchronized (keys) {
        keys.values.or(local);
        tooMany[0] |= keys.bytes() > MAX_BYTES;
      }
      return null;
    });
    return tooMany[0] ? java.util.Optional.empty() : java.util.Optional.of(keys);
  }

  /** Whether it describes the table at this version, for batches keyed on these columns. */
  boolean describes(long tableVersion, KeyColumns key) {
    return version == tableVersion && columns.equals(key.names());
  }

  /** False only when the table certainly does not hold the key. */
  boolean mayHold(RowKey key) {
    return values.contains(valueOf(key));
  }

  /** A commit of this worker landed at {@code newVersion}, right on top of {@link #version}, writing these keys. */
  void committed(Collection<RowKey> written, long newVersion) {
    for (RowKey k : written) {
      if (!k.columns().equals(columns)) {
        continue;
      }
      values.add(valueOf(k));
    }
    version = newVersion;
  }

  /** What the sets still counted take together. */
  static long liveBytes() {
    return LIVE.liveBytes();
  }

  long version() {
    return version;
  }

  /**
   * Whether it may be kept: within {@link #MAX_BYTES}, and within {@link #ALL_TABLES_BYTES} with
   * the other tables' sets. One that does not fit is given up here (no longer counted).
   */
  boolean fits() {
    return fits(ALL_TABLES_BYTES);
  }

  boolean fits(long allTablesBytes) {
    return LIVE.fits(this, allTablesBytes);
  }


  long bytes() {
    return values.getLongSizeInBytes();
  }

  private static boolean isInteger(KeyColumns key) {
    return key.types().length == 1
        && (key.types()[0].kind() == ColumnType.Kind.BIGINT || key.types()[0].kind() == ColumnType.Kind.INT);
  }

  private int valueOf(RowKey key) {
    return integer ? value(((Number) key.first()).longValue()) : hash(key);
  }

  /** An integer key from 0 to 2^32-1 as itself (exact), any other hashed. */
  private static int value(long k) {
    if (k >>> 32 == 0) {
      return (int) k;
    }
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** Equal keys hash alike ({@link RowKey#hashCode}), spread over the 32 bits. */
  private static int hash(RowKey key) {
    int h = key.hashCode() * 0x9E3779B1;
    return h ^ (h >>> 15);
  }
}
