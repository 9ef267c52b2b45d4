package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.vmKb;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * MERGE at scale, lakesink alone (no Spark peer: that is {@code bench/run merge}), in one JVM
 * whose heap {@code bench/run scale} sets ({@code -Xmx512m} by default):
 *
 * <ol>
 *   <li>the snapshot load: {@code ROWS} Debezium {@code r} events, keys in a scrambled order (as
 *       an unordered snapshot or an incremental one delivers them), into an empty changelog
 *       table, then into an empty MERGE table with key filters, and (unless {@code
 *       NO_FILTER_LOAD=1}) without them: events/s each;
 *   <li>{@code MERGES} merges of {@code BATCH} changes (70 % updates, 20 % inserts, 10 % deletes)
 *       per case: keys uniformly random, skewed (90 % on the newest 10 %), a hot set (1 % of the
 *       keys); seconds per merge, files read and ruled out by key filters, peak heap ({@code
 *       KEY_FILTERS=false}: merges without key filters).
 * </ol>
 *
 * Rows have the benchmark's 10 columns. Prints its figures; nothing is compared with a target here.
 */
public final class MergeScaleBench {
  static final List<Column> COLUMNS = List.of(
      new Column("id", ColumnType.BIGINT), new Column("customer", ColumnType.STRING), new Column("status", ColumnType.STRING),
      new Column("amount", ColumnType.BIGINT), new Column("quantity", ColumnType.INT), new Column("region", ColumnType.STRING),
      new Column("note", ColumnType.STRING), new Column("score", ColumnType.BIGINT), new Column("flag", ColumnType.BOOLEAN),
      new Column("version", ColumnType.BIGINT));
  static final RowSchema SCHEMA = new RowSchema(COLUMNS, true);
  static final String[] STATUSES = {"new", "paid", "shipped", "delivered", "returned"};

  private MergeScaleBench() {}

  public static void main(String[] args) throws Exception {
    long rows = Long.parseLong(env("ROWS", "1000000"));
    int merges = Integer.parseInt(env("MERGES", "3"));
    int batch = Integer.parseInt(env("BATCH", "10000"));
    int flushRows = Integer.parseInt(env("SNAPSHOT_FLUSH_ROWS", "200000"));
    Path dir = Path.of(args.length > 0 ? args[0] : Files.createTempDirectory("lakesink-scale").toString());
    System.out.printf(Locale.ROOT, "MERGE at scale: %,d rows, %d merges of %,d changes per case, heap %d MB, in %s%n",
        rows, merges, batch, Runtime.getRuntime().maxMemory() >> 20, dir);
    HeapWatch heap = new HeapWatch();

    double changelog = load(dir, "changelog", rows, flushRows, null, heap);
    double filtered = load(dir, "merged", rows, flushRows, MergeSettings.DEFAULT, heap);
    if (!"1".equals(System.getenv("NO_FILTER_LOAD"))) {
      load(dir, "merged-unfiltered", rows, flushRows, MergeSettings.DEFAULT.withKeyFilters(false), heap);
    }
    System.out.printf(Locale.ROOT, "snapshot load: MERGE with key filters at %.2f× the changelog's events/s%n", filtered / changelog);

    long offset = rows; // the changes continue the snapshot's offsets: the log fences older ones
    for (String workload : List.of("random", "skewed", "hot")) {
      offset = merge(dir, workload, rows, merges, batch, heap, offset);
    }
    System.out.printf(Locale.ROOT, "peak RSS %,d MB%n", vmKb("VmHWM") / 1024);
  }

  /** Loads the snapshot into a new table; returns events/s. */
  private static double load(Path dir, String table, long rows, int flushRows, MergeSettings merge, HeapWatch heap) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    DeltaTable t = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(merge == null ? table + "_APPEND" : table));
    DeliveryContext context = DeliveryContext.of(new FlushPolicy(Duration.ofHours(1), flushRows, Long.MAX_VALUE),
        new QuarantineStore(storage));
    BufferedDelivery d = merge == null
        ? new ChangelogDelivery(new Subscription("t", table, DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true), t, context)
        : new MergeDelivery(new Subscription("t", table, DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true), t, null, context,
            merge);
    heap.reset();
    long start = System.nanoTime();
    Scrambled keys = new Scrambled(rows);
    for (long i = 0; i < rows; i++) {
      d.accept(event(i, Operation.READ, keys.at(i), 1_000L, i));
      if ((i + 1) % flushRows == 0) {
        d.flush();
      }
    }
    d.flush();
    double seconds = (System.nanoTime() - start) / 1e9;
    t.refresh();
    String reads = d instanceof MergeDelivery m
        ? String.format(Locale.ROOT, "; files read %,d, ruled out by key filters %,d, keys known absent %,d",
            m.filesRead(), m.skippedByKeyFilters(), m.keysKnownAbsent()) : "";
    System.out.printf(Locale.ROOT, "load %-18s %,d events in %.1f s: %,.0f events/s, %d files, peak heap %d MB%s%n",
        table, rows, seconds, rows / seconds, t.files().size(), heap.peakBytes() >> 20, reads);
    return rows / seconds;
  }

  /** Runs one workload's merges from {@code offset}; returns the next offset. */
  private static long merge(Path dir, String workload, long rows, int merges, int batch, HeapWatch heap, long offset) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    DeltaTable t = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("merged"));
    MergeDelivery d = new MergeDelivery(new Subscription("t", "merged", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true),
        t, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)),
        MergeSettings.DEFAULT.withKeyFilters(!"false".equals(System.getenv("KEY_FILTERS"))));
    SplittableRandom random = new SplittableRandom(workload.hashCode());
    long nextKey = rows + 10_000_000L * (1 + (workload.hashCode() & 0xf));
    List<Double> times = new ArrayList<>();
    for (int m = 0; m < merges; m++) {
      for (int i = 0; i < batch; i++, offset++) {
        int kind = random.nextInt(10);
        long key = kind < 2 ? nextKey++ : existing(workload, rows, random);
        Operation op = kind < 2 ? Operation.CREATE : kind < 9 ? Operation.UPDATE : Operation.DELETE;
        d.accept(event(offset, op, key, 2_000_000L + offset, offset));
      }
      long readBefore = d.filesRead();
      long skippedBefore = d.skippedByKeyFilters();
      heap.reset();
      long start = System.nanoTime();
      d.flush();
      double seconds = (System.nanoTime() - start) / 1e9;
      times.add(seconds);
      t.refresh();
      List<TableFile> files = t.files();
      System.out.printf(Locale.ROOT, "merge %-7s %d: %.2f s, files read %d, ruled out by key filters %d, table %d files, peak heap %d MB%n",
          workload, m + 1, seconds, d.filesRead() - readBefore, d.skippedByKeyFilters() - skippedBefore, files.size(),
          heap.peakBytes() >> 20);
    }
    times.sort(null);
    System.out.printf(Locale.ROOT, "merge %-7s median %.2f s per merge of %,d changes%n", workload, times.get(times.size() / 2), batch);
    return offset;
  }

  /** A stored key: uniform, 90 % on the newest tenth, or on a hot 1 %. */
  private static long existing(String workload, long rows, SplittableRandom random) {
    return switch (workload) {
      case "skewed" -> random.nextInt(10) < 9 ? rows - 1 - random.nextLong(Math.max(1, rows / 10)) : random.nextLong(rows);
      case "hot" -> random.nextLong(Math.max(1, rows / 100)) * 100;
      default -> random.nextLong(rows);
    };
  }

  static ChangeEvent event(long offset, Operation op, long id, long ts, long seed) {
    Object[] v = new Object[COLUMNS.size()];
    v[0] = id;
    v[1] = "customer-" + (seed % 50_000);
    v[2] = STATUSES[(int) (seed % STATUSES.length)];
    v[3] = seed * 37 % 100_000;
    v[4] = (int) (seed % 20);
    v[5] = "region-" + (seed % 12);
    v[6] = seed % 3 == 0 ? null : "note " + (seed % 997);
    v[7] = seed * 7919 % 1_000_003;
    v[8] = seed % 2 == 0;
    v[9] = seed;
    return new ChangeEvent(new SourcePosition("t", 0, offset), op, ts, SCHEMA, v, List.of("id"), 120);
  }

  /** The keys 0 … n-1 in a scrambled order: an odd multiplier modulo a power of two, values past n skipped. */
  static final class Scrambled {
    private final long n;
    private final long mask;
    private long next;

    Scrambled(long n) {
      this.n = n;
      this.mask = Long.highestOneBit(Math.max(1, n - 1)) * 2 - 1;
    }

    /** The i-th key: called with i = 0, 1, 2, … in turn. */
    long at(long i) {
      long x;
      do {
        x = (next++ * 0x9E3779B97F4A7C15L + 12345) & mask;
      } while (x >= n);
      return x;
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
