package io.lakesink.bench;

import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructField;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;

/**
 * The floor of the changelog benchmark: what one thread of this machine does with the same events
 * and no Kafka, no Delta log. The events {@link BenchEvents} produces are generated into memory
 * first (not timed); then, timed on one thread, they are decoded with Jackson's streaming parser
 * into column arrays ({@link EnvelopeColumns}) and written, {@code flush-rows} rows per file as
 * lakesink flushes, by the same Parquet writer with the same settings: Kernel's default engine
 * built by {@link KernelEngine} (zstd), the same columns, statistics on every column, under the
 * {@code __ingest_date} directory. The row count in the files' statistics must equal the events.
 */
final class ParquetFloorBench {
  private ParquetFloorBench() {}

  /** --events N --flush-rows R --data DIR --result FILE */
  static void run(long events, int flushRows, Path data, Path resultFile) throws IOException {
    int n = Math.toIntExact(events);
    // One partition: offsets are the events' positions, as in bench.p1.
    byte[][] values = new byte[n][];
    int[] count = {0};
    BenchEvents.generate(events, 1, (partition, key, value) -> values[count[0]++] = value);
    long bytes = 0;
    for (byte[] v : values) {
      bytes += v.length;
    }

    LocalStorage storage = new LocalStorage(data, "");
    Engine engine = KernelEngine.create(storage);
    String directory = storage.tableLocation(ChangelogThroughputBench.TABLE) + "/__ingest_date="
        + LocalDate.now(ZoneOffset.UTC);
    EnvelopeColumns columns = new EnvelopeColumns(Math.min(flushRows, n));
    HeapWatch heap = new HeapWatch();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long gcBefore = ChangelogThroughputBench.gcMillis();
    heap.reset();

    long cpuStart = threads.getCurrentThreadCpuTime();
    long processCpuStart = ChangelogThroughputBench.processCpuNanos();
    long start = System.nanoTime();
    long decodeNanos = 0;
    long rows = 0;
    int files = 0;
    for (int from = 0; from < n; from += flushRows) {
      long t = System.nanoTime();
      columns.clear();
      for (int i = from; i < Math.min(n, from + flushRows); i++) {
        columns.add(values[i], 0, i);
      }
      decodeNanos += System.nanoTime() - t;
      for (DataFileStatus file : write(engine, directory, columns)) {
        rows += file.getStatistics().orElseThrow(() -> new IllegalStateException("a file without statistics")).getNumRecords();
        files++;
      }
    }
    long elapsed = System.nanoTime() - start;
    long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
    long processCpu = ChangelogThroughputBench.processCpuNanos() - processCpuStart;

    Properties r = new Properties();
    r.setProperty("events", String.valueOf(events));
    r.setProperty("event_mb", String.valueOf(bytes >> 20));
    r.setProperty("flush_rows", String.valueOf(flushRows));
    r.setProperty("seconds", String.valueOf(elapsed / 1e9));
    r.setProperty("events_per_second", String.valueOf(events / (elapsed / 1e9)));
    r.setProperty("thread_cpu_seconds", String.valueOf(cpu / 1e9));
    // The JVM's own threads besides: JIT compilers, GC.
    r.setProperty("cpu_seconds", String.valueOf(processCpu / 1e9));
    r.setProperty("decode_seconds", String.valueOf(decodeNanos / 1e9));
    r.setProperty("write_seconds", String.valueOf((elapsed - decodeNanos) / 1e9));
    r.setProperty("gc_seconds", String.valueOf((ChangelogThroughputBench.gcMillis() - gcBefore) / 1e3));
    r.setProperty("peak_heap_mb", String.valueOf(heap.peakBytes() >> 20));
    r.setProperty("files", String.valueOf(files));
    r.setProperty("rows", String.valueOf(rows));
    r.setProperty("table_mb", String.valueOf(ChangelogThroughputBench.directoryBytes(data) >> 20));
    r.setProperty("verified", String.valueOf(rows == events));
    ChangelogThroughputBench.store(r, resultFile);
    System.out.printf(Locale.ROOT, "Floor: %,d events in %.2f s = %,.0f events/s, %.2f thread CPU s (process %.2f s; decode %.2f s, write %.2f s), %d file(s), %,d rows%n",
        events, elapsed / 1e9, events / (elapsed / 1e9), cpu / 1e9, processCpu / 1e9, decodeNanos / 1e9, (elapsed - decodeNanos) / 1e9, files, rows);
    if (rows != events) {
      System.err.println("The floor's files hold " + rows + " rows, not " + events);
      System.exit(3);
    }
  }

  /** One flush's worth of rows through Kernel's Parquet writer, as lakesink's DeltaTable writes them. */
  private static List<DataFileStatus> write(Engine engine, String directory, EnvelopeColumns columns) throws IOException {
    var batch = columns.batch();
    // Statistics on every column: Kernel's write context asks for the first 32 (delta.dataSkippingNumIndexedCols).
    List<Column> statistics = new ArrayList<>();
    for (StructField f : batch.getSchema().fields()) {
      statistics.add(new Column(f.getName()));
    }
    List<DataFileStatus> written = new ArrayList<>();
    try (CloseableIterator<DataFileStatus> files = engine.getParquetHandler().writeParquetFiles(
        directory, io.delta.kernel.internal.util.Utils.toCloseableIterator(
            List.of(new FilteredColumnarBatch(batch, Optional.empty())).iterator()), statistics)) {
      files.forEachRemaining(written::add);
    }
    return written;
  }
}
