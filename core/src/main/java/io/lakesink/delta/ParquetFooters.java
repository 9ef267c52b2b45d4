package io.lakesink.delta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * The Parquet footers of a table's data files, kept between merges: a merge that reaches every
 * file opened and parsed every footer again (profiled at 10 million rows in 218 files, a twentieth
 * of a merge's CPU), though a data file never changes once written. A footer is found by the
 * file's path, size and modification time, so a file written again under the same name (by hand,
 * or a restore) is read afresh.
 *
 * <p>At most {@link #MAX_BYTES} of footers, as {@link #weight} estimates them: a footer grows with
 * the file's columns, row groups and the statistics' values (a wide table's long strings), so it
 * is counted, not assumed small; one above a sixteenth of that is not kept. A full cache evicts
 * at random, not the least recently used: a merge reads the files in the same order every time,
 * and with more files than the cache holds, least-recently-used eviction would evict each footer
 * just before it is asked for again. Thread-safe: a merge's lanes share it.
 */
final class ParquetFooters {
  /**
   * A table's footers in memory, as much as its key filters ({@code merge.KeyFilters}): 218
   * footers of the benchmark's 12-column files weigh about 2 MB (estimated).
   */
  static final long MAX_BYTES = 8L << 20;

  private final long capacity;
  private final Map<String, Kept> footers = new HashMap<>();
  /** The keys of {@link #footers}, for eviction at random. */
  private final List<String> keys = new ArrayList<>();
  private long bytes;

  /** @param capacity bytes of footers kept, as {@link #weight} estimates them */
  ParquetFooters(long capacity) {
    this.capacity = capacity;
  }

  /**
   * About what a parsed footer holds on the heap: a few hundred bytes per column chunk and per
   * field of the schema, and the statistics' minimum and maximum values.
   */
  static long weight(ParquetMetadata footer) {
    long w = 512 + 128L * footer.getFileMetaData().getSchema().getFieldCount();
    for (BlockMetaData block : footer.getBlocks()) {
      w += 256;
      for (ColumnChunkMetaData column : block.getColumns()) {
        w += 512;
        Statistics<?> stats = column.getStatistics();
        if (stats != null && stats.hasNonNullValue()) {
          w += stats.getMinBytes().length + stats.getMaxBytes().length;
        }
      }
    }
    return w;
  }

  private record Kept(ParquetMetadata footer, long weight) {}

  static String key(String path, long size, long modificationTime) {
    return path + '\u0001' + size + '\u0001' + modificationTime;
  }

  synchronized ParquetMetadata get(String key) {
    Kept kept = footers.get(key);
    return kept == null ? null : kept.footer();
  }

  void put(String key, ParquetMetadata footer) {
    long w = weight(footer); // outside the lock: lanes put footers at once
    synchronized (this) {
      if (w > capacity / 16 || footers.containsKey(key)) {
        return;
      }
      while (bytes + w > capacity && !keys.isEmpty()) {
        int victim = ThreadLocalRandom.current().nextInt(keys.size());
        bytes -= footers.remove(keys.get(victim)).weight();
        keys.set(victim, keys.get(keys.size() - 1));
        keys.remove(keys.size() - 1);
      }
      footers.put(key, new Kept(footer, w));
      keys.add(key);
      bytes += w;
    }
  }

  synchronized int size() {
    return footers.size();
  }

  synchronized long bytes() {
    return bytes;
  }
}
