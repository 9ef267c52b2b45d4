package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.load;
import static io.lakesink.bench.ChangelogThroughputBench.store;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateTable;
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
import io.lakesink.maintenance.MaintenancePolicy;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.CurrentStateView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Reading a changelog table of many small commits against the same table after lakesink's
 * optimize, timed with delta-spark ({@code SparkChangelogReadBench}, its own JVM). Driven by
 * {@code bench/run read}:
 *
 * <ul>
 *   <li>{@code prepare}: {@link ChangelogDelivery} writes {@code --commits} flushes of
 *       {@code --rows} changes each (no Kafka: events in, flush, as {@link MergeBench} drives
 *       its delivery) into {@code DIR/small}, one flush every 10 s of a simulated clock, as a
 *       worker with {@code flush_interval: 10s} and a low rate writes them (5,000 commits span
 *       about 14 h: two ingest dates). Changes on {@code --keys} keys: a create for a key not
 *       live, else 90 % updates and 10 % deletes. Then a copy in {@code DIR/optimized}, optimized
 *       by {@link TableMaintenance} with the default settings (128 MiB files within each date),
 *       and, per table, the current-state query lakesink generates for the view
 *       ({@link CurrentStateView#query}, key {@code id}) over {@code delta.`path`}, into
 *       {@code --results}. Not timed by Spark.
 *   <li>{@code report}: both tables' figures side by side, from the results directory.
 * </ul>
 */
public final class ChangelogReadBench {
  static final String TOPIC = "bench.read";
  static final List<Column> SOURCE_COLUMNS = List.of(
      new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING), new Column("balance", ColumnType.BIGINT));
  /**
   * The tables under --dir, in the order the report shows them: the changelog as written and
   * optimized, the kept table as the worker left it ({@code kept-asis}: its follows and its
   * maintenance) and after one more optimize ({@code kept}).
   */
  static final List<String> TABLES = List.of("small", "optimized", "kept-asis", "kept");
  /** The simulated flush interval: one commit every this many milliseconds. */
  static final long FLUSH_INTERVAL_MS = 10_000;
  /** Where the simulated clock starts: 5,000 flushes 10 s apart then cross one midnight. */
  static final Instant START = Instant.parse("2026-11-28T12:00:00Z");

  private ChangelogReadBench() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      usage();
      return;
    }
    Map<String, String> o = ChangelogThroughputBench.options(Arrays.copyOfRange(args, 1, args.length));
    switch (args[0]) {
      case "prepare" -> prepare(o);
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run read):
          prepare --dir D --results R --commits N --rows N --keys N [--seed S] [--writer-off true|false]
          report  --results R
        """);
    System.exit(1);
  }

  /** A clock the benchmark moves: each flush's ingest date and time are those of a real worker's. */
  static final class SteppedClock extends Clock {
    private Instant now = START;

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("the benchmark's clock stays in UTC");
    }
  }

  private static void prepare(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("dir"));
    Path results = Path.of(o.get("results"));
    int commits = Integer.parseInt(o.get("commits"));
    int rows = Integer.parseInt(o.get("rows"));
    int keys = Integer.parseInt(o.get("keys"));
    long seed = Long.parseLong(o.getOrDefault("seed", "17"));
    // false: skip the second pass (the same changes without the kept table), whose only product is
    // the writer's on/off figure; the tables read are the same either way.
    boolean writerOff = Boolean.parseBoolean(o.getOrDefault("writer-off", "true"));
    boolean keptMaintenance = Boolean.parseBoolean(o.getOrDefault("kept-maintenance", "true"));
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable small = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("small"));

    // The changelog with the current-state table on (current_state.object: table): the delivery
    // wakes its follower after every commit, which follows on its own thread as in the worker.
    // Then the same changes into a changelog without the table, in the same JVM: the writer's
    // events/s with the table on and off.
    SteppedClock clock = new SteppedClock();
    // Untimed: a tenth of the commits into a scratch changelog first, so that neither timed pass
    // pays for the JIT warming up.
    Subscription scratch = new Subscription(TOPIC, "warmup", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, false);
    write(new ChangelogDelivery(scratch, new DeltaTable(KernelEngine.create(storage), storage.tableLocation("warmup")),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock)), clock, Math.max(1, commits / 10), rows,
        keys, seed + 1);
    Subscription subscription = new Subscription(TOPIC, "small", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, false);
    DeltaTable keptTable = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("kept"));
    CurrentStateTable kept = new CurrentStateTable("small", new DeltaTable(KernelEngine.create(storage), small.location()),
        keptTable, List.of("id"), CurrentStateTable.Hook.NONE, clock);
    // The kept table's maintenance runs as the worker's does (a follow and an optimize step take
    // turns), on a thread of the benchmark's own so that it can be awaited before the tables are
    // copied. Only the trigger that matters here is left on: an optimize once the table's deletion
    // vectors delete more rows than it holds live (without it a long run's follows read ever more
    // deleted rows: the 10-million run slowed to a step a minute). The changelog stays as written
    // (the worker would also optimize it every 100 commits): "small" is the view's worst case.
    ThreadPoolExecutor maintenanceThread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(clock);
    if (keptMaintenance) {
      context = context.withMaintenance(new MaintenancePolicy(true,
          MaintenanceSettings.DEFAULT.withTriggers(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE), maintenanceThread));
    }
    ChangelogDelivery delivery = new ChangelogDelivery(subscription, small, null, context, kept);
    long followCpuBefore = followCpuNanos();
    Written on = write(delivery, clock, commits, rows, keys, seed);
    long waited = System.nanoTime();
    awaitKept(delivery, kept, maintenanceThread);
    maintenanceThread.shutdown();
    double catchUpSeconds = seconds(waited);
    double followCpuSeconds = (followCpuNanos() - followCpuBefore) / 1e9;
    System.out.printf(Locale.ROOT, "with the kept table: %,d commits of %d changes in %.1f s (%,.0f changes/s), %d follows (%.1f s"
            + " of the follower's CPU), caught up %.1f s after the last commit%n",
        commits, rows, on.seconds(), on.changes() / on.seconds(), kept.commits(), followCpuSeconds, catchUpSeconds);
    Properties p = new Properties();
    if (writerOff) {
      DeltaTable plain = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("plain"));
      SteppedClock plainClock = new SteppedClock();
      Written off = write(new ChangelogDelivery(subscription, plain,
          DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)).withClock(plainClock)), plainClock, commits, rows, keys,
          seed);
      System.out.printf(Locale.ROOT, "without it: %.1f s (%,.0f changes/s): the writer at %.2fx its speed with the table on%n",
          off.seconds(), off.changes() / off.seconds(), off.seconds() / on.seconds());
      p.setProperty("write_seconds", String.valueOf(off.seconds()));
    }
    long offset = on.changes();
    long creates = on.creates();
    long updates = on.updates();
    long deletes = on.deletes();
    small.refresh();
    List<TableFile> smallFiles = small.files();
    System.out.printf(Locale.ROOT, "ChangelogDelivery wrote %,d commits of %d changes (%,d files)%n", commits, rows, smallFiles.size());

    copy(dir.resolve("small"), dir.resolve("optimized"));
    DeltaTable optimized = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("optimized"));
    long started = System.nanoTime();
    OptimizeResult optimize = new TableMaintenance("optimized", optimized, List.of(), MaintenanceSettings.DEFAULT, Clock.systemUTC(),
        line -> {}).optimize(false);
    double optimizeSeconds = seconds(started);
    if (!optimize.committed()) {
      throw new IllegalStateException("lakesink's optimize left the copy as it was: " + optimize);
    }
    System.out.printf(Locale.ROOT, "%s in %.1f s%n", optimize, optimizeSeconds);

    p.setProperty("commits", String.valueOf(commits));
    p.setProperty("rows_per_commit", String.valueOf(rows));
    p.setProperty("keys", String.valueOf(keys));
    p.setProperty("changes", String.valueOf(offset));
    p.setProperty("creates", String.valueOf(creates));
    p.setProperty("updates", String.valueOf(updates));
    p.setProperty("deletes", String.valueOf(deletes));
    p.setProperty("live_keys", String.valueOf(on.live()));
    p.setProperty("optimize_seconds", String.valueOf(optimizeSeconds));
    p.setProperty("optimize", optimize.toString());
    p.setProperty("write_on_seconds", String.valueOf(on.seconds()));
    p.setProperty("follows", String.valueOf(kept.commits()));
    p.setProperty("follow_cpu_seconds", String.valueOf(followCpuSeconds));
    p.setProperty("catch_up_seconds", String.valueOf(catchUpSeconds));
    // The kept table as the worker left it (deletion vectors, the files each follow wrote, and what
    // its maintenance optimized meanwhile): a copy, read like the others. The follower and the
    // maintenance are idle (awaited above).
    keptTable.refresh();
    describe(p, "kept-asis", keptTable.files(), keptTable.version(), dir.resolve("kept"));
    copy(dir.resolve("kept"), dir.resolve("kept-asis"));
    // The worker's maintenance optimizes the kept table as it does a MERGE table (clustered on the
    // key; every 100 commits, or once its deletion vectors delete more rows than it holds live,
    // which a long catch-up like this one reaches within a few commits): done here once more, at
    // the end, untimed, whatever the last trigger left; kept-asis is the table before it.
    OptimizeResult keptOptimize = new TableMaintenance("kept", keptTable.another(), List.of("id"), MaintenanceSettings.DEFAULT,
        Clock.systemUTC(), line -> {}).optimize(false);
    System.out.printf(Locale.ROOT, "kept table: %s%n", keptOptimize);
    keptTable.refresh();
    describe(p, "kept", keptTable.files(), keptTable.version(), dir.resolve("kept"));
    // The kept table is the current state: read as it is, the view's columns (metadata hidden, as above).
    for (String name : List.of("kept-asis", "kept")) {
      Files.writeString(results.resolve("current-state-" + name + ".sql"),
          "SELECT `id`, `name`, `balance` FROM delta.`" + dir.resolve(name).toAbsolutePath() + "`\n");
    }
    for (DeltaTable t : List.of(small, optimized)) {
      t.refresh();
      String name = t == small ? "small" : "optimized";
      describe(p, name, t.files(), t.version(), dir.resolve(name));
      // The query of the view lakesink creates over this changelog, over the table's path.
      Files.writeString(results.resolve("current-state-" + name + ".sql"),
          CurrentStateView.query("delta.`" + dir.resolve(name).toAbsolutePath() + "`", List.of("id"), false) + "\n");
    }
    store(p, results.resolve("prepare.properties"));
  }

  /** A table's layout, as the report shows it: files, bytes, dates, deletion vectors, log files. */
  private static void describe(Properties p, String name, List<TableFile> files, long version, Path table) throws IOException {
    p.setProperty(name + ".files", String.valueOf(files.size()));
    p.setProperty(name + ".bytes", String.valueOf(files.stream().mapToLong(TableFile::size).sum()));
    p.setProperty(name + ".dates", String.valueOf(files.stream().map(TableFile::partitionValues).distinct().count()));
    p.setProperty(name + ".deletion_vectors", String.valueOf(files.stream().filter(TableFile::hasDeletionVector).count()));
    p.setProperty(name + ".deleted_rows", String.valueOf(files.stream().mapToLong(TableFile::deletedRows).sum()));
    p.setProperty(name + ".version", String.valueOf(version));
    p.setProperty(name + ".log_files", String.valueOf(logFiles(table)));
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      p.setProperty(name + ".checkpoints", String.valueOf(log.filter(f -> f.getFileName().toString().contains(".checkpoint")).count()));
    }
  }

  /** What one pass wrote, and how long its writer took (generating the changes included, as in both passes). */
  /**
   * Waits until the kept table reflects the changelog's last commit and its maintenance is idle,
   * polling the maintenance as the worker's loop does (every second): idle twice in a row, so a
   * step that a follow's commit let go is not missed.
   */
  private static void awaitKept(ChangelogDelivery delivery, CurrentStateTable kept, ThreadPoolExecutor maintenance) {
    long deadline = System.nanoTime() + java.time.Duration.ofHours(2).toNanos();
    int idle = 0;
    while (idle < 2) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the kept table did not catch up: " + kept.progress());
      }
      delivery.maintain();
      boolean followerIdle = delivery.keptFollower().orElseThrow().awaitIdle(java.time.Duration.ofSeconds(1));
      boolean quiet = followerIdle && kept.progress().lagVersions() == 0 && maintenance.getActiveCount() == 0
          && maintenance.getQueue().isEmpty();
      idle = quiet ? idle + 1 : 0;
      if (quiet) {
        sleepQuietly(1000); // the worker's loop polls about once a second; nothing here waits on a result
      }
    }
    if (kept.refusal().isPresent() || !"current".equals(kept.progress().state())) {
      throw new IllegalStateException("the kept table is not current: " + kept.progress());
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  record Written(double seconds, long changes, long creates, long updates, long deletes, int live) {}

  /**
   * {@code commits} flushes of {@code rows} changes on {@code keys} keys (the same changes for the
   * same seed): a create for a key not live, else 90 % updates and 10 % deletes.
   */
  private static Written write(ChangelogDelivery delivery, SteppedClock clock, int commits, int rows, int keys, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    RowSchema schema = new RowSchema(SOURCE_COLUMNS, true);
    BitSet live = new BitSet(keys);
    long offset = 0;
    long creates = 0;
    long updates = 0;
    long deletes = 0;
    long started = System.nanoTime();
    for (int c = 0; c < commits; c++) {
      Instant at = START.plusMillis(c * FLUSH_INTERVAL_MS);
      clock.set(at);
      for (int r = 0; r < rows; r++, offset++) {
        long id = random.nextInt(keys);
        Operation op;
        if (!live.get((int) id)) {
          op = Operation.CREATE;
          live.set((int) id);
          creates++;
        } else if (random.nextInt(10) == 0) {
          op = Operation.DELETE;
          live.clear((int) id);
          deletes++;
        } else {
          op = Operation.UPDATE;
          updates++;
        }
        Object[] values = {id, "name-" + id, (long) random.nextInt(1_000_000)};
        delivery.accept(new ChangeEvent(new SourcePosition(TOPIC, 0, offset), op, at.toEpochMilli() + r, schema, values,
            List.of("id"), 120));
      }
      delivery.flush();
      delivery.maintain(); // as the worker's loop does after a flush: the kept table's maintenance, if on
      if ((c + 1) % 1000 == 0) {
        System.out.printf(Locale.ROOT, "wrote %,d of %,d commits%n", c + 1, commits);
      }
    }
    return new Written(seconds(started), offset, creates, updates, deletes, live.cardinality());
  }

  /**
   * CPU time of the kept table's follows so far: the follower's thread and its merges' helper
   * lanes (no other merge runs here); live threads only (they end after 30 s idle, not within a pass).
   */
  private static long followCpuNanos() {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long total = 0;
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && (t.getThreadName().startsWith("lakesink-follow-") || t.getThreadName().startsWith("lakesink-merge-lane"))) {
        total += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
      }
    }
    return total;
  }

  private static long logFiles(Path table) throws IOException {
    try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
      return files.count();
    }
  }

  private static void report(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("results"));
    Properties p = load(dir.resolve("prepare.properties"));
    Properties s = load(dir.resolve("spark.properties"));
    System.out.println();
    System.out.printf(Locale.ROOT, "Changelog read: %s commits of %s changes (%s keys: %s creates, %s updates, %s deletes;"
            + " %s keys live at the end), written by lakesink's ChangelogDelivery in %s s (without the kept table), one flush per 10 s of simulated time;"
            + " optimized copy by lakesink's optimize (128 MiB target, within each date) in %s s: %s%n",
        p.getProperty("commits"), p.getProperty("rows_per_commit"), p.getProperty("keys"), p.getProperty("creates"),
        p.getProperty("updates"), p.getProperty("deletes"), p.getProperty("live_keys"), fmt(p, "write_seconds"),
        fmt(p, "optimize_seconds"), p.getProperty("optimize"));
    System.out.println("Timed with " + s.getProperty("spark_conf", "delta-spark (no result: see the log)") + ", one JVM, both tables;"
        + " cold = the first query on the table in the session (Delta's snapshot not cached: log replay and file listing included),"
        + " warm = median of " + s.getProperty("repeat", "?") + " more (warmed up first, untimed: "
        + s.getProperty("warmup", "every query on every table") + "). current state = the view's query (the rank time, MAX(__ts_ms)"
        + " OVER (PARTITION BY id, __partition ORDER BY __offset), then QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY"
        + " rank time DESC, __partition DESC, __offset DESC) = 1, deletes hidden), rows collected to the driver.");
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "%-10s | %6s %8s %5s %5s %9s %8s %5s | %7s | %9s %9s %8s | %9s %9s %8s %9s",
        "table", "files", "MB", "dates", "DVs", "deleted", "log files", "ckpts", "log s", "count s", "warm s", "rows", "state s",
        "warm s", "rows", "noop s"));
    for (String t : TABLES) {
      System.out.println(String.format(Locale.ROOT, "%-10s | %6s %8.1f %5s %5s %9s %8s %5s | %7s | %9s %9s %8s | %9s %9s %8s %9s", t,
          p.getProperty(t + ".files"), Double.parseDouble(p.getProperty(t + ".bytes", "0")) / (1 << 20), p.getProperty(t + ".dates"),
          p.getProperty(t + ".deletion_vectors", "-"), p.getProperty(t + ".deleted_rows", "-"), p.getProperty(t + ".log_files"),
          p.getProperty(t + ".checkpoints", "-"),
          fmt(s, t + ".snapshot.cold_seconds"), fmt(s, t + ".count.cold_seconds"), fmt(s, t + ".count.warm_seconds"),
          s.getProperty(t + ".count.rows", "-"), fmt(s, t + ".state.cold_seconds"), fmt(s, t + ".state.warm_seconds"),
          s.getProperty(t + ".state.rows", "-"), fmt(s, t + ".state.noop_warm_seconds")));
    }
    System.out.println("DVs = files with a deletion vector, deleted = the rows they delete (a reader reads and drops them);"
        + " log s = Delta's snapshot load alone (DeltaLog.forTable after clearing its cache: log replay and listing);"
        + " noop s = the current-state query run once more, its rows counted where they are made (none to the driver):"
        + " the rest of warm is collecting the rows.");
    System.out.println();
    System.out.printf(Locale.ROOT, "small / optimized: count(*) %s cold, %s warm; current state %s cold, %s warm%n",
        ratio(s, "count.cold_seconds"), ratio(s, "count.warm_seconds"), ratio(s, "state.cold_seconds"), ratio(s, "state.warm_seconds"));
    for (String kept : List.of("kept-asis", "kept")) {
      System.out.printf(Locale.ROOT, "view over small / %s: current state %s cold, %s warm (noop %s); view over optimized / %s:"
              + " %s cold, %s warm (noop %s)%n", kept, ratio(s, "small", kept, "state.cold_seconds"),
          ratio(s, "small", kept, "state.warm_seconds"), ratio(s, "small", kept, "state.noop_warm_seconds"), kept,
          ratio(s, "optimized", kept, "state.cold_seconds"), ratio(s, "optimized", kept, "state.warm_seconds"),
          ratio(s, "optimized", kept, "state.noop_warm_seconds"));
    }
    double on = Double.parseDouble(p.getProperty("write_on_seconds"));
    double changes = Double.parseDouble(p.getProperty("changes"));
    String follows = String.format(Locale.ROOT, "%s follows on the follower's thread, %s s of its CPU, caught up %s s after the last"
        + " commit", p.getProperty("follows"), fmt(p, "follow_cpu_seconds"), fmt(p, "catch_up_seconds"));
    if (p.getProperty("write_seconds") == null) {
      System.out.printf(Locale.ROOT, "Writer (ChangelogDelivery): %,.0f changes/s with the kept table on (%.1f s; %s); the pass"
          + " without it skipped (WRITER_OFF=0)%n", changes / on, on, follows);
    } else {
      double off = Double.parseDouble(p.getProperty("write_seconds"));
      System.out.printf(Locale.ROOT, "Writer (ChangelogDelivery, same JVM, same changes): %,.0f changes/s with the kept table on"
              + " (%.1f s; %s), %,.0f changes/s without it (%.1f s): %.2fx with the table on%n",
          changes / on, on, follows, changes / off, off, off / on);
    }
    System.out.println("Cross-check: " + s.getProperty("cross_check", "not done (the Spark JVM did not finish)"));
    System.out.println("Queries run: " + dir.resolve("current-state-small.sql") + ", current-state-optimized.sql,"
        + " current-state-kept-asis.sql and current-state-kept.sql");
  }

  private static String ratio(Properties s, String key) {
    return ratio(s, "small", "optimized", key);
  }

  private static String ratio(Properties s, String numerator, String denominator, String key) {
    String a = s.getProperty(numerator + "." + key);
    String b = s.getProperty(denominator + "." + key);
    if (a == null || b == null) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.1fx", Double.parseDouble(a) / Double.parseDouble(b));
  }

  private static String fmt(Properties p, String key) {
    String v = p.getProperty(key);
    return v == null ? "-" : String.format(Locale.ROOT, "%.2f", Double.parseDouble(v));
  }

  private static void copy(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
