package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.load;
import static io.lakesink.bench.ChangelogThroughputBench.store;
import static io.lakesink.bench.ChangelogThroughputBench.vmKb;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * MERGE delivery against delta-spark's MERGE, on the same table and the same changes, each in its
 * own JVM. Driven by {@code bench/run merge}, which runs six cases: three workloads, each on the
 * table as written and on the table optimized (clustered on the key):
 *
 * <ul>
 *   <li>{@code prepare}: writes the starting table ({@code rows} rows, keyed on {@code id}) with
 *       lakesink's {@link DeltaTable} under {@code base/}, in id order, 100,000 rows per commit
 *       (as lakesink stages an initial snapshot read in key order), with lakesink's merge-mode
 *       columns (the 10 source columns, then {@code __op} and {@code __ts_ms}); and, per workload,
 *       each batch of changes as a small Delta table under {@code batches-<workload>/}, so that both
 *       engines read exactly the same changes. Not timed.
 *   <li>{@code optimize}: the "optimized" layout both engines start from in the {@code *-optimized}
 *       cases: lakesink's own {@link TableMaintenance#optimize} on the table under {@code --dir},
 *       clustered on {@code id} into files of about {@code --target-file-mb} MB (1 MB makes the
 *       1M-row table, 17 MB, about as many files as the default 128 MiB makes of a 2 GB table).
 *       Not timed in the merges.
 *   <li>{@code limit}: what a user with the default size limit gets: the first batch through a
 *       {@link MergeDelivery} with {@link MergeSettings#DEFAULT}, on a throwaway copy of the
 *       table (if the limit lets it through, the merge must not change the measured table).
 *   <li>{@code lakesink}: every batch of a case directory ({@code lakesink/}, {@code batches/})
 *       through {@link MergeDelivery} in-process (no Kafka: events in, flush), with the limit
 *       raised. Per merge: time, rows, bytes and files rewritten (from the table's files before
 *       and after), heap. Then, untimed, the memory factor: the heap the rows of the largest file
 *       take when read as a merge reads them, per on-disk byte.
 *   <li>{@code report}: lakesink's figures next to {@code SparkMergeBench}'s, per case and side
 *       by side.
 * </ul>
 *
 * <p>Changes per batch: 70 % updates of existing keys, 20 % inserts of new keys (above every
 * existing key: ids are never reused), 10 % deletes of existing keys, each key at most once per
 * batch (delta-spark's MERGE refuses a target row matched twice), in random order. Workload
 * {@code random}: updates and deletes on keys drawn uniformly among the live keys. Workload
 * {@code skew}: 90 % of the updates and deletes on the newest 10 % of the keys (the highest ids),
 * the rest uniform. Workload {@code hot}: every update and delete on a hot set of 1 % of the keys,
 * spread over the whole key range (every hundredth id, like the busy accounts of a table), plus
 * the keys inserted since. Deterministic for a given seed.
 */
public final class MergeBench {
  static final String TABLE = "bench_merge";
  static final String TOPIC = "bench.merge";
  /** Rows per commit of the starting table: one Parquet file each, with disjoint id ranges. */
  static final int BASE_ROWS_PER_COMMIT = 100_000;
  static final long T0 = BenchEvents.T0;

  /** The source columns, in table order; {@code id} is the key. */
  static final List<Column> SOURCE_COLUMNS = List.of(
      new Column("id", ColumnType.BIGINT),
      new Column("customer_id", ColumnType.BIGINT),
      new Column("status", ColumnType.STRING),
      new Column("amount", ColumnType.decimal(12, 2)),
      new Column("currency", ColumnType.STRING),
      new Column("sku", ColumnType.STRING),
      new Column("quantity", ColumnType.INT),
      new Column("note", ColumnType.STRING),
      new Column("created_at", ColumnType.TIMESTAMP),
      new Column("updated_at", ColumnType.TIMESTAMP));
  /** The table's columns: MergeDelivery adds {@code __op} and {@code __ts_ms} without a column mapping. */
  static final List<Column> TABLE_COLUMNS;

  static {
    List<Column> all = new ArrayList<>(SOURCE_COLUMNS);
    all.add(new Column("__op", ColumnType.STRING));
    all.add(new Column("__ts_ms", ColumnType.BIGINT));
    TABLE_COLUMNS = List.copyOf(all);
  }

  private static final String[] STATUS = {"pending", "paid", "shipped", "delivered", "cancelled", "refunded"};
  private static final String[] CURRENCY = {"EUR", "USD", "GBP", "NOK", "CHF"};
  private static final String NOTE = "leave at the door, ring twice; fragile items inside: glassware & ceramics";

  private MergeBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
      return;
    }
    Map<String, String> o = ChangelogThroughputBench.options(Arrays.copyOfRange(args, 1, args.length));
    switch (args[0]) {
      case "prepare" -> prepare(o);
      case "optimize" -> optimize(o);
      case "limit" -> limit(o);
      case "lakesink" -> lakesink(o);
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run merge):
          prepare  --dir D --rows R --batches N --batch-size B [--seed S] [--rows-per-file F]
          optimize --dir D --target-file-mb N --result FILE
          limit    --dir D
          lakesink --dir D --batches N --scan-limit-mb M --result FILE
          report   --results DIR
        """);
    System.exit(1);
  }

  static Path lakesinkRoot(Path dir) {
    return dir.resolve("lakesink");
  }

  static String batchName(int b) {
    return String.format(Locale.ROOT, "batch-%02d", b);
  }

  // ------------------------------------------------------------------ prepare

  static Path baseRoot(Path dir) {
    return dir.resolve("base");
  }

  private static void prepare(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("dir"));
    long rows = Long.parseLong(o.get("rows"));
    int batches = Integer.parseInt(o.get("batches"));
    int batchSize = Integer.parseInt(o.get("batch-size"));
    List<String> workloads = List.of(o.getOrDefault("workloads", "random,skew").split(","));
    long seed = Long.parseLong(o.getOrDefault("seed", "42"));
    SplittableRandom random = new SplittableRandom(seed);
    long start = System.nanoTime();

    TableStorage storage = new LocalStorage(baseRoot(dir), "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(TABLE));
    // As MergeDelivery creates a table (delivery.merge_deletion_vectors: new_tables), unless the
    // run asks for copy-on-write: both engines copy this table, so delta-spark's MERGE gets the
    // same setting (with the property, it too deletes matched rows with deletion vectors).
    boolean deletionVectors = Boolean.parseBoolean(o.getOrDefault("deletion-vectors", "true"));
    Map<String, String> properties = deletionVectors
        ? Map.of("delta.checkpointInterval", "10", DeltaTable.ENABLE_DELETION_VECTORS, "true")
        : Map.of("delta.checkpointInterval", "10");
    // Smaller files give a table a big table's file count at a size that prepares fast (profiling the per-file cost).
    int perCommit = Integer.parseInt(o.getOrDefault("rows-per-file", String.valueOf(BASE_ROWS_PER_COMMIT)));
    for (long from = 1; from <= rows; from += perCommit) {
      List<Object[]> chunk = new ArrayList<>();
      for (long id = from; id < Math.min(rows + 1, from + perCommit); id++) {
        chunk.add(row(id, "c", T0 + id, random));
      }
      // MergeDelivery's own table property, so both engines see the table it would have created.
      table.commit(table.prepareAppend(new AppendRequest(TABLE_COLUMNS, List.of(), Map.of(), chunk, CommitOffsets.NONE, properties)));
    }
    List<TableFile> files = table.files();
    long bytes = files.stream().mapToLong(TableFile::size).sum();
    Properties r = new Properties();
    r.setProperty("rows", String.valueOf(rows));
    r.setProperty("files", String.valueOf(files.size()));
    r.setProperty("table_bytes", String.valueOf(bytes));
    r.setProperty("batches", String.valueOf(batches));
    r.setProperty("batch_size", String.valueOf(batchSize));
    r.setProperty("deletion_vectors", String.valueOf(deletionVectors));
    r.setProperty("workloads", String.join(",", workloads));
    store(r, dir.resolve("prepare.properties"));

    // The changes, drawn against the set of live keys so that updates and deletes hit rows that exist.
    for (String name : workloads) {
      Workload workload = new Workload(rows, new SplittableRandom(seed + name.hashCode()), name);
      TableStorage batchStorage = new LocalStorage(dir.resolve("batches-" + name), "");
      for (int b = 1; b <= batches; b++) {
        List<Object[]> changes = workload.batch(b, batchSize);
        DeltaTable t = new DeltaTable(KernelEngine.create(batchStorage), batchStorage.tableLocation(batchName(b)));
        t.commit(t.prepareAppend(new AppendRequest(TABLE_COLUMNS, List.of(), Map.of(), changes, CommitOffsets.NONE, Map.of())));
      }
      Properties w = new Properties();
      w.setProperty("workload", name);
      w.setProperty("updates", String.valueOf(workload.updates));
      w.setProperty("inserts", String.valueOf(workload.inserts));
      w.setProperty("deletes", String.valueOf(workload.deletes));
      w.setProperty("final_rows_expected", String.valueOf(workload.liveCount));
      store(w, dir.resolve("batches-" + name).resolve("workload.properties"));
    }
    System.out.printf(Locale.ROOT, "Prepared %,d rows in %d files (%,d MB, %.0f B/row on disk) and %d batches of %,d changes per workload %s in %.1f s%n",
        rows, files.size(), bytes >> 20, (double) bytes / rows, batches, batchSize, workloads, (System.nanoTime() - start) / 1e9);
  }

  /** One table row: the 10 source columns, then __op and __ts_ms. */
  static Object[] row(long id, String op, long tsMs, SplittableRandom random) {
    long cents = random.nextLong(1_000_000);
    return new Object[] {
        id,
        (long) (1 + random.nextInt(50_000)),
        STATUS[random.nextInt(STATUS.length)],
        BigDecimal.valueOf(cents, 2),
        CURRENCY[random.nextInt(CURRENCY.length)],
        "SKU-" + (100_000 + random.nextInt(900_000)),
        1 + random.nextInt(20),
        NOTE.substring(0, 20 + random.nextInt(NOTE.length() - 20)),
        Instant.ofEpochMilli(T0 - 86_400_000L + id * 1000),
        Instant.ofEpochMilli(tsMs),
        op,
        tsMs
    };
  }

  /** The live keys, and batches of changes drawn against them. */
  static final class Workload {
    /** Skew: this share of the updates and deletes falls on the newest keys… */
    static final double HOT_SHARE = 0.9;
    /** … the newest this fraction of the live keys (the highest ids). */
    static final double HOT_KEYS = 0.1;

    /** Hot: the updates and deletes fall on every this-many-th id (1 % of the keys), and on the keys inserted since. */
    static final int HOT_EVERY = 100;

    private final SplittableRandom random;
    private final boolean skew;
    private final boolean hotSet;
    private final long initialRows;
    private final BitSet live = new BitSet();
    int liveCount;
    private long nextId;
    long updates;
    long inserts;
    long deletes;

    Workload(long rows, SplittableRandom random, String name) {
      this.random = random;
      this.skew = name.equals("skew");
      this.hotSet = name.equals("hot");
      this.initialRows = rows;
      live.set(1, Math.toIntExact(rows) + 1);
      this.liveCount = (int) rows;
      this.nextId = rows + 1;
    }

    /** 70 % updates, 20 % inserts, 10 % deletes, shuffled; every key at most once. */
    List<Object[]> batch(int b, int size) {
      int nUpdates = size * 7 / 10;
      int nInserts = size * 2 / 10;
      List<String> ops = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        ops.add(i < nUpdates ? "u" : i < nUpdates + nInserts ? "c" : "d");
      }
      Collections.shuffle(ops, new java.util.Random(random.nextLong()));
      Set<Long> used = new HashSet<>();
      List<Object[]> out = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        long ts = T0 + 1_000_000_000L * b + i; // after every row of the table, increasing within the batch
        switch (ops.get(i)) {
          case "u" -> {
            out.add(row(pick(used), "u", ts, random));
            updates++;
          }
          case "c" -> {
            long id = nextId++; // at the top of the key range
            used.add(id);
            live.set(Math.toIntExact(id));
            liveCount++;
            out.add(row(id, "c", ts, random));
            inserts++;
          }
          default -> {
            // A Postgres delete with the default replica identity: the key and nothing else.
            Object[] row = new Object[TABLE_COLUMNS.size()];
            long id = pick(used);
            live.clear(Math.toIntExact(id));
            liveCount--;
            row[0] = id;
            row[10] = "d";
            row[11] = ts;
            out.add(row);
            deletes++;
          }
        }
      }
      return out;
    }

    /** A live key not used yet in this batch: uniform, or for the skew mostly among the newest. */
    private long pick(Set<Long> used) {
      long top = nextId - 1;
      for (int attempt = 0; hotSet && attempt < 10_000; attempt++) {
        long hotKeys = initialRows / HOT_EVERY + (top - initialRows); // every hundredth id, then the inserted ones
        long n = random.nextLong(Math.max(1, hotKeys));
        long id = n < initialRows / HOT_EVERY ? (n + 1) * HOT_EVERY : initialRows + 1 + (n - initialRows / HOT_EVERY);
        if (id <= top && live.get(Math.toIntExact(id)) && used.add(id)) {
          return id;
        }
      } // a hot set this batch used up (a tiny table): any live key
      boolean hot = skew && random.nextDouble() < HOT_SHARE;
      // The newest 10 % of the live keys lie in about the top 10 % of the ids (few are deleted).
      long from = hot ? Math.max(1, top - (long) (liveCount * HOT_KEYS) + 1) : 1;
      while (true) {
        long id = from + random.nextLong(top - from + 1);
        if (live.get(Math.toIntExact(id)) && used.add(id)) {
          return id;
        }
      }
    }
  }

  // ------------------------------------------------------------------ lakesink

  /** Times the flush phases from inside the delivery, through its test hook. */
  private static final class Phases implements FlushHook {
    long beforeWrite;
    long beforeCommit;

    @Override
    public void at(String table, FlushStep step) {
      switch (step) {
        case BEFORE_WRITE -> beforeWrite = System.nanoTime();
        case BEFORE_COMMIT -> beforeCommit = System.nanoTime();
        default -> { }
      }
    }
  }

  private static void lakesink(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("dir"));
    int batches = Integer.parseInt(o.get("batches"));
    long scanLimitMb = Long.parseLong(o.get("scan-limit-mb"));
    Path resultFile = Path.of(o.get("result"));
    HeapWatch heap = new HeapWatch();

    TableStorage storage = new LocalStorage(lakesinkRoot(dir), "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(TABLE));
    Subscription subscription = new Subscription(TOPIC, TABLE, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, false);
    List<List<ChangeEvent>> changes = new ArrayList<>();
    long offset = 0;
    for (int b = 1; b <= batches; b++) {
      List<ChangeEvent> events = events(dir, b, offset);
      offset += events.size();
      changes.add(events);
    }

    Properties r = new Properties();
    r.setProperty("engine", "lakesink MergeDelivery");
    r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    r.setProperty("max_heap_mb", String.valueOf(Runtime.getRuntime().maxMemory() >> 20));
    r.setProperty("scan_limit_mb", String.valueOf(scanLimitMb));

    r.setProperty("default_limit", load(dir.resolve("limit.properties")).getProperty("outcome", "not tried"));
    System.out.println("Size limit raised for this benchmark: MergeSettings.DEFAULT.withScanLimitMb(" + scanLimitMb + ")");

    Phases phases = new Phases();
    MergeDelivery delivery = new MergeDelivery(subscription, table, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withHook(phases),
        MergeSettings.DEFAULT.withScanLimitMb(scanLimitMb));
    for (int b = 1; b <= batches; b++) {
      List<ChangeEvent> events = changes.get(b - 1);
      Map<String, TableFile> before = byPath(table.files());
      long filesReadBefore = delivery.filesRead();
      long bytesReadBefore = delivery.bytesOfFilesRead();
      heap.reset();
      long cpuBefore = processCpuNanos();
      long start = System.nanoTime();
      events.forEach(delivery::accept);
      delivery.flush();
      long end = System.nanoTime();
      long cpu = processCpuNanos() - cpuBefore;
      long peak = heap.peakBytes();
      long peakAfterGc = heap.peakAfterGcBytes();
      int gcs = heap.collections();
      Map<String, TableFile> after = byPath(table.files());

      long rowsRemoved = 0;
      long bytesRemoved = 0;
      long largestRemoved = 0;
      int filesRemoved = 0;
      for (TableFile f : before.values()) {
        if (!after.containsKey(f.path())) {
          rowsRemoved += f.rows();
          bytesRemoved += f.size();
          largestRemoved = Math.max(largestRemoved, f.size());
          filesRemoved++;
        }
      }
      long rowsAdded = 0;
      int filesAdded = 0;
      long rowsDeletedByVectors = 0;
      int filesWithNewVectors = 0;
      for (TableFile f : after.values()) {
        TableFile was = before.get(f.path());
        if (was == null) {
          rowsAdded += f.rows();
          filesAdded++;
        } else if (f.deletedRows() > was.deletedRows()) {
          // kept, not rewritten: its deletion vector now deletes more rows
          rowsDeletedByVectors += f.deletedRows() - was.deletedRows();
          filesWithNewVectors++;
        }
      }
      long tableRows = after.values().stream().mapToLong(TableFile::rows).sum();
      long retained = HeapWatch.retainedBytes();
      String k = "merge." + b + ".";
      r.setProperty(k + "seconds", String.valueOf((end - start) / 1e9));
      r.setProperty(k + "cpu_seconds", String.valueOf(cpu / 1e9));
      r.setProperty(k + "read_merge_write_seconds", String.valueOf((phases.beforeCommit - phases.beforeWrite) / 1e9));
      r.setProperty(k + "commit_seconds", String.valueOf((end - phases.beforeCommit) / 1e9));
      r.setProperty(k + "files_read", String.valueOf(delivery.filesRead() - filesReadBefore));
      r.setProperty(k + "bytes_read", String.valueOf(delivery.bytesOfFilesRead() - bytesReadBefore));
      r.setProperty(k + "rows_rewritten", String.valueOf(rowsRemoved));
      r.setProperty(k + "bytes_rewritten", String.valueOf(bytesRemoved));
      r.setProperty(k + "largest_rewritten_file_bytes", String.valueOf(largestRemoved));
      r.setProperty(k + "files_before", String.valueOf(before.size()));
      r.setProperty(k + "files_removed", String.valueOf(filesRemoved));
      r.setProperty(k + "files_added", String.valueOf(filesAdded));
      r.setProperty(k + "rows_written", String.valueOf(rowsAdded));
      r.setProperty(k + "rows_deleted_by_vectors", String.valueOf(rowsDeletedByVectors));
      r.setProperty(k + "files_with_new_vectors", String.valueOf(filesWithNewVectors));
      r.setProperty(k + "table_rows", String.valueOf(tableRows));
      r.setProperty(k + "peak_heap_mb", String.valueOf(peak >> 20));
      r.setProperty(k + "peak_heap_after_gc_mb", String.valueOf(peakAfterGc >> 20));
      r.setProperty(k + "gcs", String.valueOf(gcs));
      r.setProperty(k + "retained_mb", String.valueOf(retained >> 20));
      r.setProperty("merges_done", String.valueOf(b));
      r.setProperty("vmhwm_mb", String.valueOf(vmKb("VmHWM") / 1024));
      store(r, resultFile); // after every merge: an OutOfMemoryError later keeps what was measured
      System.out.printf(Locale.ROOT,
          "lakesink merge %d: %.2f s (CPU %.2f s; read+merge+write %.2f s, commit %.2f s), read %d files (%,d MB), rewrote %,d rows (%,d MB) in %d of %d files, wrote %,d rows"
              + " in %d files, table %,d rows; heap peak %,d MB, after GC %,d MB (%d GCs), retained after merge %,d MB%n",
          b, (end - start) / 1e9, cpu / 1e9, (phases.beforeCommit - phases.beforeWrite) / 1e9, (end - phases.beforeCommit) / 1e9,
          delivery.filesRead() - filesReadBefore, (delivery.bytesOfFilesRead() - bytesReadBefore) >> 20, rowsRemoved, bytesRemoved >> 20, filesRemoved, before.size(), rowsAdded, filesAdded, tableRows, peak >> 20, peakAfterGc >> 20,
          gcs, retained >> 20);
    }
    memoryFactor(table, r);
    store(r, resultFile);
    System.out.printf(Locale.ROOT, "lakesink JVM peak RSS %,d MB%n", vmKb("VmHWM") / 1024);
  }

  /**
   * The CPU time of the whole JVM (every thread, GC included): on a machine shared with other
   * builds a merge's wall time moves with the load, its CPU time much less, so two layouts or two
   * versions compare by it.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * The heap the rows of the table's largest file take when read as a clustering step reads them
   * (a merge streams its files), per byte of the file on disk: what {@code
   * MaintenanceSettings.MEMORY_FACTOR} models. Untimed, after the merges.
   */
  private static void memoryFactor(DeltaTable table, Properties r) {
    TableFile largest = table.files().stream().max(java.util.Comparator.comparingLong(TableFile::size)).orElseThrow();
    io.lakesink.delta.TableRewrite reader = io.lakesink.delta.TableRewrite.begin(table, Map.of());
    reader.readRows(largest); // warm up: classes and Kernel's first-read caches are not the rows' cost
    long before = HeapWatch.retainedBytes();
    List<Object[]> rows = reader.readRows(largest);
    long after = HeapWatch.retainedBytes();
    double factor = (double) (after - before) / largest.size();
    r.setProperty("factor_file_bytes", String.valueOf(largest.size()));
    r.setProperty("factor_file_rows", String.valueOf(rows.size()));
    r.setProperty("factor_heap_bytes", String.valueOf(after - before));
    r.setProperty("memory_factor", String.format(Locale.ROOT, "%.1f", factor));
    System.out.printf(Locale.ROOT, "Memory factor: the %,d rows of the largest file (%,d KB on disk) take %,d KB of heap as clustering reads them:"
        + " %.1f× the on-disk size%n", rows.size(), largest.size() >> 10, (after - before) >> 10, factor);
    java.lang.ref.Reference.reachabilityFence(rows);
  }

  // ------------------------------------------------------------------ optimize

  private static void optimize(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("dir"));
    long targetMb = Long.parseLong(o.get("target-file-mb"));
    TableStorage storage = new LocalStorage(dir, "");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(TABLE));
    MaintenanceSettings settings = MaintenanceSettings.DEFAULT.withTargetFileBytes(targetMb << 20);
    long start = System.nanoTime();
    OptimizeResult result = new TableMaintenance(TABLE, table, List.of("id"), settings, Clock.systemUTC(), System.out::println)
        .optimize(false);
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!result.committed()) {
      // The optimized cases would silently measure the table as written.
      throw new IllegalStateException("lakesink's optimize left the table as it was: " + result);
    }
    Properties r = new Properties();
    r.setProperty("how", "lakesink's optimize (TableMaintenance, clustered on id), target file size " + targetMb + " MB");
    r.setProperty("files_before", String.valueOf(result.before().files()));
    r.setProperty("files_after", String.valueOf(result.after().files()));
    r.setProperty("bytes_after", String.valueOf(result.after().bytes()));
    r.setProperty("seconds", String.valueOf(seconds));
    r.setProperty("operation", commitOperation(dir.resolve(TABLE), result.version().getAsLong()));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "Optimized %s: %d files -> %d files (clustered on id, about %d MB each), %s commit, in %.1f s%n",
        dir.resolve(TABLE), result.before().files(), result.after().files(), targetMb, r.getProperty("operation"), seconds);
  }

  /** The operation Delta's history shows for a version (its commitInfo), to prove it is an OPTIMIZE. */
  private static String commitOperation(Path table, long version) throws IOException {
    Path commit = table.resolve("_delta_log").resolve(String.format(Locale.ROOT, "%020d.json", version));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"operation\":\"([A-Z ]+)\"").matcher(Files.readString(commit));
    return m.find() ? m.group(1) : "?";
  }

  private static void limit(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("dir"));
    Path resultFile = dir.resolve("limit.properties");
    TableStorage storage = new LocalStorage(dir.resolve("limit-probe"), "");
    copyTree(new LocalStorage(lakesinkRoot(dir), "").tableLocation(TABLE), Path.of(java.net.URI.create(storage.tableLocation(TABLE))));
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(TABLE));
    Subscription subscription = new Subscription(TOPIC, TABLE, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, false);
    MergeDelivery delivery = new MergeDelivery(subscription, table, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
    events(dir, 1, 0).forEach(delivery::accept);
    Properties r = new Properties();
    // Written first: if the merge runs out of heap, bench/run reports that it was let through.
    r.setProperty("outcome", "accepted, then the JVM exited (see the log)");
    store(r, resultFile);
    long start = System.nanoTime();
    try {
      delivery.flush();
      r.setProperty("outcome", String.format(Locale.ROOT, "accepted (merged in %.1f s)", (System.nanoTime() - start) / 1e9));
    } catch (TableFailureException e) {
      r.setProperty("outcome", "refused: " + e.getMessage().replaceAll("\\s+", " "));
    }
    store(r, resultFile);
    System.out.println("Default limit (" + MergeSettings.DEFAULT_SCAN_LIMIT_MB + " MiB): " + r.getProperty("outcome"));
  }

  /** A batch table read back as change events, as the Kafka decoders would hand them over. */
  private static List<ChangeEvent> events(Path dir, int b, long firstOffset) {
    TableStorage batches = new LocalStorage(dir.resolve("batches"), "");
    DeltaTable t = new DeltaTable(KernelEngine.create(batches), batches.tableLocation(batchName(b)));
    RowSchema schema = new RowSchema(SOURCE_COLUMNS, true);
    List<ChangeEvent> events = new ArrayList<>();
    long offset = firstOffset;
    for (Map<String, Object> row : DeltaTableReader.readAll(t)) {
      Object[] values = new Object[SOURCE_COLUMNS.size()];
      for (int c = 0; c < values.length; c++) {
        values[c] = row.get(SOURCE_COLUMNS.get(c).name());
      }
      events.add(new ChangeEvent(new SourcePosition(TOPIC, 0, offset++), Operation.fromCode((String) row.get("__op")),
          (Long) row.get("__ts_ms"), schema, values, List.of("id"), 400));
    }
    return events;
  }

  private static Map<String, TableFile> byPath(List<TableFile> files) {
    Map<String, TableFile> m = new HashMap<>();
    files.forEach(f -> m.put(f.path(), f));
    return m;
  }

  /** Copies a local table directory (log and data files; paths in the log are relative). */
  private static void copyTree(String location, Path target) throws IOException {
    Path source = Path.of(java.net.URI.create(location));
    try (Stream<Path> all = Files.walk(source)) {
      for (Path p : all.toList()) {
        Path to = target.resolve(source.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  // ------------------------------------------------------------------ report

  /** The cases bench/run merge runs, in report order: workload, then the table's layout. */
  static final List<String> CASES = List.of("random-as-written", "random-optimized", "skew-as-written", "skew-optimized",
      "hot-as-written", "hot-optimized");
  /** Targets of issue 25: random keys at least this many times faster than delta-spark… */
  static final double RANDOM_TARGET_SPEEDUP = 3.0;
  /** … skewed keys and the hot set at least this many times. */
  static final double SKEW_TARGET_SPEEDUP = 10.0;

  private static void report(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("results"));
    Properties prep = load(dir.resolve("prepare.properties"));
    long rows = Long.parseLong(prep.getProperty("rows", "0"));
    System.out.println();
    System.out.printf(Locale.ROOT, "MERGE: %s batches of %,d changes (70 %% updates, 20 %% inserts, 10 %% deletes) into a %,d-row table,"
            + " per workload and table layout%n",
        prep.getProperty("batches"), Long.parseLong(prep.getProperty("batch_size", "0")), rows);
    System.out.printf(Locale.ROOT, "Starting table: %s files, %,d MB on disk (%.0f B/row), 12 columns (10 source columns keyed on id,"
            + " plus lakesink's __op and __ts_ms), written by lakesink (Delta Kernel) in id order, 100,000 rows per commit;"
            + " each engine merges its own copy.%n",
        prep.getProperty("files"), Long.parseLong(prep.getProperty("table_bytes", "0")) >> 20,
        Double.parseDouble(prep.getProperty("table_bytes", "0")) / Math.max(1, rows));
    System.out.println(Boolean.parseBoolean(prep.getProperty("deletion_vectors", "false"))
        ? "Deletion vectors: on (delta.enableDeletionVectors=true on the starting table, so on both engines' copies: merges delete"
            + " replaced rows by position instead of rewriting files; DELETION_VECTORS=false for copy-on-write)."
        : "Deletion vectors: off on both engines' copies (copy-on-write, DELETION_VECTORS=false).");
    Properties opt = load(dir.resolve("optimize.properties"));
    if (!opt.isEmpty()) {
      System.out.println("Optimized layout: " + opt.getProperty("how", "?") + "; " + opt.getProperty("files_before", "?") + " files → "
          + opt.getProperty("files_after", "?") + " files in " + fmt(number(opt, "seconds"), "%.1f") + " s (not timed in the merges).");
    }
    List<String[]> summary = new ArrayList<>();
    for (String c : CASES) {
      Path caseDir = dir.resolve(c);
      if (Files.isDirectory(caseDir)) {
        summary.add(printCase(c, caseDir));
      }
    }
    System.out.println();
    System.out.println("Side by side (medians over the merges of each case; speedup = delta-spark time / lakesink time; targets:"
        + " random ≥ " + RANDOM_TARGET_SPEEDUP + "×, skew and hot ≥ " + SKEW_TARGET_SPEEDUP + "× delta-spark)");
    System.out.println(String.format(Locale.ROOT, "%-18s | %9s %9s %8s | %9s %9s | %9s %9s | %12s %12s | %9s %9s | %11s %11s | %s",
        "case", "ls s", "spark s", "speedup", "ls files", "sp files", "ls MB rd", "sp MB rd", "ls rows rewr", "sp rows rewr",
        "ls MB rewr", "sp MB rewr", "ls heap MB", "sp heap MB", "target"));
    summary.forEach(line -> System.out.println(String.join("", line)));
    System.out.println();
    System.out.println("files / MB rd = files a merge read and their size on disk (lakesink reads only their key and ordering"
        + " columns; delta-spark: numTargetFilesAfterSkipping, numTargetBytesAfterSkipping). Peak RSS per JVM in each case's lines.");
    System.out.println("rows/MB rewr. = rows and bytes of the files each merge removed (lakesink: from the table's files before/after;"
        + " delta-spark: numTargetRowsCopied + Updated + Deleted, numTargetBytesRemoved). heap = the most heap in use during a merge"
        + " (garbage included); after GC = the most still in use after a collection during the merge (upper bound of the live data);"
        + " kept = heap in use after a full GC once the merge is done (untimed).");
    System.out.println("lakesink time = accept + flush (read candidate files, merge, write Parquet, commit); delta-spark time = the"
        + " merge(...).execute() call on a local relation of the same changes (session start and reading the batch excluded).");
    String failed = load(dir.resolve("attempts.properties")).getProperty("failed");
    if (failed != null && !failed.isBlank()) {
      System.out.println();
      System.out.println("Cases that did not complete: " + failed);
    }
  }

  /** One case's per-merge figures; returns its line of the side-by-side summary. */
  private static String[] printCase(String name, Path caseDir) throws IOException {
    Properties work = load(caseDir.resolve("workload.properties"));
    Properties ls = load(caseDir.resolve("lakesink.properties"));
    Properties sp = load(caseDir.resolve("spark.properties"));
    int batches = Integer.parseInt(ls.getProperty("merges_done", sp.getProperty("merges_done", "0")));
    System.out.println();
    System.out.printf(Locale.ROOT, "=== %s: %s updates, %s inserts, %s deletes in all%n", name, work.getProperty("updates"),
        work.getProperty("inserts"), work.getProperty("deletes"));
    System.out.println(String.format(Locale.ROOT, "%-6s | %10s %10s %7s | %13s %13s | %10s %10s | %11s %11s | %15s %15s | %14s %14s | %12s %12s",
        "merge", "lakesink s", "spark s", "speedup", "ls rows rewr.", "sp rows rewr.", "ls MB rewr", "sp MB rewr", "ls files -/+",
        "sp files -/+", "ls heap peak MB", "sp heap peak MB", "ls after GC MB", "sp after GC MB", "ls kept MB", "sp kept MB"));
    List<Double> lsTimes = new ArrayList<>();
    List<Double> spTimes = new ArrayList<>();
    List<Double> lsRows = new ArrayList<>();
    List<Double> spRows = new ArrayList<>();
    List<Double> lsBytes = new ArrayList<>();
    List<Double> spBytes = new ArrayList<>();
    List<Double> lsHeap = new ArrayList<>();
    List<Double> spHeap = new ArrayList<>();
    List<Double> lsFiles = new ArrayList<>();
    List<Double> spFiles = new ArrayList<>();
    List<Double> lsRead = new ArrayList<>();
    List<Double> spRead = new ArrayList<>();
    for (int b = 1; b <= batches; b++) {
      String k = "merge." + b + ".";
      Double l = number(ls, k + "seconds");
      Double s = number(sp, k + "seconds");
      collect(lsTimes, l);
      collect(spTimes, s);
      collect(lsRows, number(ls, k + "rows_rewritten"));
      collect(spRows, number(sp, k + "rows_rewritten"));
      collect(lsBytes, number(ls, k + "bytes_rewritten"));
      collect(spBytes, number(sp, k + "bytes_rewritten"));
      collect(lsHeap, number(ls, k + "peak_heap_mb"));
      collect(spHeap, number(sp, k + "peak_heap_mb"));
      collect(lsFiles, number(ls, k + "files_read"));
      collect(spFiles, number(sp, k + "files_read"));
      collect(lsRead, number(ls, k + "bytes_read"));
      collect(spRead, number(sp, k + "bytes_read"));
      System.out.println(String.format(Locale.ROOT, "%-6d | %10s %10s %7s | %13s %13s | %10s %10s | %11s %11s | %15s %15s | %14s %14s | %12s %12s",
          b, fmt(l, "%.2f"), fmt(s, "%.2f"), l == null || s == null ? "-" : String.format(Locale.ROOT, "%.2f×", s / l),
          count(ls, k + "rows_rewritten"), count(sp, k + "rows_rewritten"), megabytes(ls, k + "bytes_rewritten"),
          megabytes(sp, k + "bytes_rewritten"),
          ls.getProperty(k + "files_removed", "-") + "/" + ls.getProperty(k + "files_added", "-"),
          sp.getProperty(k + "files_removed", "-") + "/" + sp.getProperty(k + "files_added", "-"),
          count(ls, k + "peak_heap_mb"), count(sp, k + "peak_heap_mb"),
          count(ls, k + "peak_heap_after_gc_mb"), count(sp, k + "peak_heap_after_gc_mb"),
          count(ls, k + "retained_mb"), count(sp, k + "retained_mb")));
    }
    for (int b = 1; b <= batches; b++) {
      String k = "merge." + b + ".";
      if (ls.getProperty(k + "seconds") != null) {
        System.out.printf(Locale.ROOT, "  lakesink merge %d: CPU %s s (all threads); read+merge+write %.2f s, commit %.2f s; %s of %s files rewritten; %s rows deleted"
                + " by deletion vectors in %s files; wrote %,d rows in %s files; table %,d rows; %s GCs%n",
            b, fmt(number(ls, k + "cpu_seconds"), "%.2f"), number(ls, k + "read_merge_write_seconds"), number(ls, k + "commit_seconds"), ls.getProperty(k + "files_removed"),
            ls.getProperty(k + "files_before"), ls.getProperty(k + "rows_deleted_by_vectors", "-"),
            ls.getProperty(k + "files_with_new_vectors", "-"), Long.parseLong(ls.getProperty(k + "rows_written")),
            ls.getProperty(k + "files_added"), Long.parseLong(ls.getProperty(k + "table_rows")), ls.getProperty(k + "gcs"));
      }
      if (sp.getProperty(k + "seconds") != null) {
        System.out.printf(Locale.ROOT, "  delta-spark merge %d: executionTimeMs %s, scanTimeMs %s, rewriteTimeMs %s; updated %s, inserted %s,"
                + " deleted %s, copied %s rows; deletion vectors added %s, updated %s, removed %s; table %s rows%n",
            b, sp.getProperty(k + "executionTimeMs"), sp.getProperty(k + "scanTimeMs"), sp.getProperty(k + "rewriteTimeMs"),
            sp.getProperty(k + "numTargetRowsUpdated"), sp.getProperty(k + "numTargetRowsInserted"),
            sp.getProperty(k + "numTargetRowsDeleted"), sp.getProperty(k + "numTargetRowsCopied"),
            sp.getProperty(k + "numTargetDeletionVectorsAdded", "-"), sp.getProperty(k + "numTargetDeletionVectorsUpdated", "-"),
            sp.getProperty(k + "numTargetDeletionVectorsRemoved", "-"), sp.getProperty(k + "table_rows"));
      }
    }
    System.out.println("  lakesink JVM: " + ls.getProperty("jvm_args", "?") + "; peak RSS " + ls.getProperty("vmhwm_mb", "?")
        + " MB; size limit raised to " + ls.getProperty("scan_limit_mb", "?") + " MiB (the default "
        + MergeSettings.DEFAULT_SCAN_LIMIT_MB + " MiB on this table: " + ls.getProperty("default_limit", "not tried") + ")");
    if (ls.getProperty("memory_factor") != null) {
      System.out.printf(Locale.ROOT, "  memory factor: the %,d rows of the largest file (%,d KB on disk) take %,d KB of heap as clustering reads"
              + " them: %s× (clustering steps assume %d×)%n",
          Long.parseLong(ls.getProperty("factor_file_rows")), Long.parseLong(ls.getProperty("factor_file_bytes")) >> 10,
          Long.parseLong(ls.getProperty("factor_heap_bytes")) >> 10, ls.getProperty("memory_factor"), io.lakesink.maintenance.MaintenanceSettings.MEMORY_FACTOR);
    }
    if (!sp.isEmpty()) {
      String sparkArgs = sp.getProperty("jvm_args", "?").replaceAll("\\s*--add-opens=\\S+", "") + " (and Spark's --add-opens)";
      System.out.println("  delta-spark JVM: " + sparkArgs + "; peak RSS " + sp.getProperty("vmhwm_mb", "?")
          + " MB; session start " + fmt(number(sp, "session_seconds"), "%.1f") + " s (not counted); " + sp.getProperty("spark_conf", ""));
      System.out.println("  cross-check (delta-spark reads both final tables): " + sp.getProperty("cross_check", "not run")
          + "; expected " + work.getProperty("final_rows_expected") + " rows");
    } else {
      System.out.println("  delta-spark: no results (see the log above).");
    }

    Double l = lsTimes.isEmpty() ? null : median(lsTimes);
    Double s = spTimes.isEmpty() ? null : median(spTimes);
    String target = "";
    if (l != null && s != null) {
      double wanted = name.startsWith("random") ? RANDOM_TARGET_SPEEDUP : SKEW_TARGET_SPEEDUP;
      target = String.format(Locale.ROOT, "≥ %.0f×: %s", wanted, s / l >= wanted ? "met" : "NOT met");
    }
    return new String[] {String.format(Locale.ROOT, "%-18s | %9s %9s %8s | %9s %9s | %9s %9s | %12s %12s | %9s %9s | %11s %11s | %s",
        name, fmt(l, "%.2f"), fmt(s, "%.2f"), l == null || s == null ? "-" : String.format(Locale.ROOT, "%.2f×", s / l),
        fmt(lsFiles.isEmpty() ? null : median(lsFiles), "%,.0f"), fmt(spFiles.isEmpty() ? null : median(spFiles), "%,.0f"),
        fmt(lsRead.isEmpty() ? null : median(lsRead) / 1048576, "%.1f"), fmt(spRead.isEmpty() ? null : median(spRead) / 1048576, "%.1f"),
        fmt(lsRows.isEmpty() ? null : median(lsRows), "%,.0f"), fmt(spRows.isEmpty() ? null : median(spRows), "%,.0f"),
        fmt(lsBytes.isEmpty() ? null : median(lsBytes) / 1048576, "%.1f"), fmt(spBytes.isEmpty() ? null : median(spBytes) / 1048576, "%.1f"),
        fmt(lsHeap.isEmpty() ? null : median(lsHeap), "%,.0f"), fmt(spHeap.isEmpty() ? null : median(spHeap), "%,.0f"), target)
        .stripTrailing()};
  }

  private static void collect(List<Double> into, Double v) {
    if (v != null && v >= 0) {
      into.add(v);
    }
  }

  private static String megabytes(Properties p, String key) {
    Double v = number(p, key);
    return v == null || v < 0 ? "-" : String.format(Locale.ROOT, "%.1f", v / 1048576);
  }

  private static Double number(Properties p, String key) {
    String v = p.getProperty(key);
    return v == null ? null : Double.parseDouble(v);
  }

  private static String fmt(Double v, String format) {
    return v == null ? "-" : String.format(Locale.ROOT, format, v);
  }

  private static String count(Properties p, String key) {
    String v = p.getProperty(key);
    return v == null ? "-" : String.format(Locale.ROOT, "%,d", Long.parseLong(v));
  }

  private static double median(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    return v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
  }
}
