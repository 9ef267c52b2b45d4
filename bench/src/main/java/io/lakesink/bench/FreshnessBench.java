package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.d;
import static io.lakesink.bench.ChangelogThroughputBench.gcMillis;
import static io.lakesink.bench.ChangelogThroughputBench.load;
import static io.lakesink.bench.ChangelogThroughputBench.options;
import static io.lakesink.bench.ChangelogThroughputBench.processCpuNanos;
import static io.lakesink.bench.ChangelogThroughputBench.store;
import static io.lakesink.bench.ChangelogThroughputBench.vmKb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.kafka.WorkerStatus;
import io.lakesink.storage.TableStorage;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Freshness: how long after it is produced an event is in a Delta commit, with a steady producer
 * and {@code flush_interval: 1s}. Driven by {@code bench/run freshness}, one JVM per role:
 *
 * <ul>
 *   <li>{@code broker}: a local Kafka broker with an empty topic.
 *   <li>{@code worker}: the real worker ({@code lakesink run}, not stopping at the end) on the
 *       topic; says when its partitions are assigned (so no event waits for the group join),
 *       and stops once the table holds every produced event.
 *   <li>{@code produce}: a producer holding a steady rate for a duration; each event carries its
 *       produce time (wall clock, ms) as {@code source.ts_ms}, which lands in {@code __ts_ms}.
 *   <li>{@code analyze}: maps every row to the Delta version that added it (the add actions of
 *       each commit file in {@code _delta_log}) and takes that commit's time: when the commit file
 *       appeared (its modification time: readers can see the event from then) and Kernel's
 *       {@code commitInfo.timestamp}. Latency = commit time − produce time, per event; also
 *       checks that every (partition, offset) is there exactly once.
 * </ul>
 */
public final class FreshnessBench {
  static final String TOPIC = "bench.fresh";
  static final String TABLE = "bench_fresh";
  private static final ObjectMapper JSON = new ObjectMapper();

  private FreshnessBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
      return;
    }
    Map<String, String> o = options(Arrays.copyOfRange(args, 1, args.length));
    switch (args[0]) {
      case "broker" -> broker(o);
      case "worker" -> worker(o);
      case "produce" -> produce(o);
      case "analyze" -> analyze(o);
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run freshness):
          broker  --ready-file F --partitions P
          worker  --bootstrap B --data DIR --flush-interval D --ready-file F --produced-file F --result FILE
          produce --bootstrap B --partitions P --rate R --seconds S --result FILE
          analyze --data DIR --partitions P --result FILE [--warmup-seconds 15]
          report  --results DIR
        """);
    System.exit(1);
  }

  // ------------------------------------------------------------------ broker

  private static void broker(Map<String, String> o) throws Exception {
    LocalKafkaBroker broker = LocalKafkaBroker.start();
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "bench-broker-stop"));
    broker.createTopic(TOPIC, Integer.parseInt(o.get("partitions")));
    writeAtomically(Path.of(o.get("ready-file")), broker.bootstrapServers());
    System.out.println("Broker ready at " + broker.bootstrapServers());
    Thread.currentThread().join(); // until killed
  }

  static void writeAtomically(Path file, String content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, content);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  // ------------------------------------------------------------------ worker

  static String config(String bootstrap, Path data, String flushInterval) {
    return """
        kafka:
          bootstrap_servers: %s
          group_id: lakesink-bench-fresh-%s
        storage:
          type: local
          path: %s
        delivery:
          flush_interval: %s
        subscriptions:
          - topic: %s
            table: %s
            primary_key: [id]
        """.formatted(bootstrap, UUID.randomUUID(), data, flushInterval, TOPIC, TABLE);
  }

  private static void worker(Map<String, String> o) throws Exception {
    Path data = Path.of(o.get("data"));
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse(config(o.get("bootstrap"), data, o.get("flush-interval")), "bench");
    HeapWatch heap = new HeapWatch();
    heap.reset();
    long cpuBefore = processCpuNanos();
    long gcBefore = gcMillis();
    AtomicReference<WorkerResult> result = new AtomicReference<>();
    AtomicReference<Throwable> crashed = new AtomicReference<>();
    try (TableStorage storage = Pipeline.storage(config.storage());
        KafkaWorker worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      Thread thread = new Thread(() -> {
        try {
          result.set(worker.run(false));
        } catch (Throwable t) {
          crashed.set(t);
        }
      }, "lakesink-worker");
      thread.start();
      // Ready once every partition is assigned: events produced before would wait for the group join.
      waitFor("the topic's partitions to be assigned", Duration.ofMinutes(2), thread,
          () -> worker.status().subscriptions().stream().mapToInt(s -> s.lag().size()).sum() > 0);
      writeAtomically(Path.of(o.get("ready-file")), "ready");
      System.out.println("Worker assigned " + assigned(worker.status()) + "; waiting for the producer");
      Path produced = Path.of(o.get("produced-file"));
      waitFor("the producer to finish", Duration.ofHours(2), thread, () -> Files.exists(produced));
      long events = Long.parseLong(Files.readString(produced).trim());
      Path log = logDirectory(data);
      CommittedRows committed = new CommittedRows(log);
      waitFor("the table to hold all " + events + " events", Duration.ofMinutes(10), thread, () -> committed.count() >= events);
      worker.stop();
      thread.join(TimeUnit.MINUTES.toMillis(5));
      if (crashed.get() != null) {
        throw new IllegalStateException("the worker failed", crashed.get());
      }
      Properties r = new Properties();
      r.setProperty("events", String.valueOf(events));
      r.setProperty("healthy", String.valueOf(result.get() != null && result.get().allDelivering()));
      r.setProperty("flush_interval", o.get("flush-interval"));
      r.setProperty("max_heap_mb", String.valueOf(Runtime.getRuntime().maxMemory() >> 20));
      r.setProperty("peak_heap_mb", String.valueOf(heap.peakBytes() >> 20));
      r.setProperty("vmhwm_mb", String.valueOf(vmKb("VmHWM") / 1024));
      r.setProperty("cpu_seconds", String.valueOf((processCpuNanos() - cpuBefore) / 1e9));
      r.setProperty("gc_seconds", String.valueOf((gcMillis() - gcBefore) / 1e3));
      r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
      store(r, Path.of(o.get("result")));
      if (result.get() == null || !result.get().allDelivering()) {
        System.err.println("Worker ended with failed tables: " + (result.get() == null ? "none returned" : result.get().states()));
        System.exit(2);
      }
    }
  }

  private static String assigned(WorkerStatus status) {
    return status.subscriptions().stream().map(s -> s.lag().keySet().toString()).toList().toString();
  }

  interface Condition {
    boolean met() throws IOException;
  }

  /** Polls {@code condition} (cheap, every 100 ms) until met; fails if the worker thread ends first or time runs out. */
  private static void waitFor(String what, Duration timeout, Thread worker, Condition condition) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.met()) {
      if (!worker.isAlive()) {
        throw new IllegalStateException("the worker ended while waiting for " + what);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  /** The table's {@code _delta_log} directory (local storage). */
  static Path logDirectory(Path data) {
    try (TableStorage storage = Pipeline.storage(ConfigLoader.fromSystemEnvironment()
        .parse(config("unused:9092", data, "1s"), "bench").storage())) {
      return Path.of(URI.create(storage.tableLocation(tableName()))).resolve("_delta_log");
    }
  }

  /** The Delta table's name: the subscription's changelog table. */
  private static String tableName() {
    return ConfigLoader.fromSystemEnvironment().parse(config("unused:9092", Path.of("/unused"), "1s"), "bench")
        .subscriptions().get(0).targetTable();
  }

  /** Rows added so far, from the {@code numRecords} of each new commit's add actions. */
  static final class CommittedRows {
    private final Path log;
    private long nextVersion;
    private long rows;

    CommittedRows(Path log) {
      this.log = log;
    }

    long count() throws IOException {
      while (true) {
        Path commit = log.resolve(String.format(Locale.ROOT, "%020d.json", nextVersion));
        if (!Files.exists(commit)) {
          return rows;
        }
        for (JsonNode action : actions(commit)) {
          JsonNode stats = action.path("add").path("stats");
          if (stats.isTextual()) {
            rows += JSON.readTree(stats.asText()).path("numRecords").asLong();
          }
        }
        nextVersion++;
      }
    }
  }

  static java.util.List<JsonNode> actions(Path commit) throws IOException {
    java.util.List<JsonNode> actions = new java.util.ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(commit)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!line.isBlank()) {
          actions.add(JSON.readTree(line));
        }
      }
    }
    return actions;
  }

  // ------------------------------------------------------------------ produce

  /**
   * Sends {@code rate} events a second for {@code seconds}, on a schedule: event i is due at
   * start + i / rate, and whatever is due is sent at once (so a stall is caught up, not lost,
   * and shows in the achieved rate and the worst lag behind the schedule).
   */
  private static void produce(Map<String, String> o) throws Exception {
    int partitions = Integer.parseInt(o.get("partitions"));
    long rate = Long.parseLong(o.get("rate"));
    long seconds = Long.parseLong(o.get("seconds"));
    long events = rate * seconds;
    Properties p = MemoryBench.producerProperties(o.get("bootstrap"));
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5); // the freshness clock starts at send(): do not hold batches back
    AtomicReference<Exception> failed = new AtomicReference<>();
    AtomicLong acked = new AtomicLong();
    SplittableRandom random = new SplittableRandom(7);
    long worstBehindNanos = 0;
    long start;
    long lastSend;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      start = System.nanoTime();
      long i = 0;
      while (i < events) {
        long now = System.nanoTime();
        long due = Math.min(events, (now - start) * rate / 1_000_000_000L + 1);
        if (i >= due) {
          LockSupport.parkNanos(Math.max(50_000, start + i * 1_000_000_000L / rate - now)); // ahead of the schedule
          continue;
        }
        worstBehindNanos = Math.max(worstBehindNanos, now - (start + i * 1_000_000_000L / rate));
        for (; i < due; i++) {
          byte[] value = ShapedEvents.MEDIUM.envelope(i, System.currentTimeMillis(), random);
          producer.send(new ProducerRecord<>(TOPIC, (int) (i % partitions), ShapedEvents.key(i), value), (m, e) -> {
            if (e != null) {
              failed.compareAndSet(null, e);
            } else {
              acked.incrementAndGet();
            }
          });
        }
      }
      lastSend = System.nanoTime();
      producer.flush();
    }
    if (failed.get() != null) {
      throw new IllegalStateException("producing failed", failed.get());
    }
    double sendSeconds = (lastSend - start) / 1e9;
    Properties r = new Properties();
    r.setProperty("events", String.valueOf(events));
    r.setProperty("acked", String.valueOf(acked.get()));
    r.setProperty("target_rate", String.valueOf(rate));
    r.setProperty("seconds", String.valueOf(sendSeconds));
    r.setProperty("achieved_rate", String.valueOf(events / sendSeconds));
    r.setProperty("worst_behind_schedule_ms", String.valueOf(worstBehindNanos / 1_000_000));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "Produced %,d events in %.1f s: %,.0f events/s (target %,d), at worst %d ms behind the schedule%n",
        events, sendSeconds, events / sendSeconds, rate, worstBehindNanos / 1_000_000);
  }

  // ------------------------------------------------------------------ analyze

  /** A commit: when its file appeared and what Kernel wrote as its timestamp. */
  record Commit(long version, long fileMillis, long infoMillis) {}

  private static void analyze(Map<String, String> o) throws IOException {
    Path data = Path.of(o.get("data"));
    int partitions = Integer.parseInt(o.get("partitions"));
    Path resultFile = Path.of(o.get("result"));
    Properties r = load(resultFile);
    long events = Long.parseLong(r.getProperty("events"));
    Path log = logDirectory(data);

    // Data file name → the commit that added it.
    Map<String, Commit> addedBy = new HashMap<>();
    TreeMap<Long, Integer> rowsByVersion = new TreeMap<>();
    // Per commit: when, and the oldest and newest event it holds (commits.csv: is the worker keeping up?).
    TreeMap<Long, long[]> perCommit = new TreeMap<>();
    for (long v = 0; ; v++) {
      Path commitFile = log.resolve(String.format(Locale.ROOT, "%020d.json", v));
      if (!Files.exists(commitFile)) {
        break;
      }
      long info = -1;
      java.util.List<String> added = new java.util.ArrayList<>();
      for (JsonNode action : actions(commitFile)) {
        if (action.has("commitInfo")) {
          info = action.path("commitInfo").path("timestamp").asLong(-1);
        } else if (action.has("add")) {
          added.add(fileName(action.path("add").path("path").asText()));
        }
      }
      Commit c = new Commit(v, Files.getLastModifiedTime(commitFile).toMillis(), info);
      added.forEach(f -> addedBy.put(f, c));
    }

    long[] latencyFile = new long[Math.toIntExact(events)];
    long[] latencyInfo = new long[latencyFile.length];
    long[] producedAt = new long[latencyFile.length];
    int n = 0;
    long duplicates = 0;
    Map<Integer, BitSet> seen = new HashMap<>();
    try (TableStorage storage = Pipeline.storage(ConfigLoader.fromSystemEnvironment()
        .parse(config("unused:9092", data, "1s"), "bench").storage())) {
      DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(tableName()));
      for (TableFile file : table.files()) {
        Commit c = addedBy.get(fileName(file.path()));
        if (c == null) {
          throw new IllegalStateException("no commit in " + log + " adds " + file.path());
        }
        for (Map<String, Object> row : table.read(file)) {
          int partition = (Integer) row.get("__partition");
          int offset = Math.toIntExact((Long) row.get("__offset"));
          BitSet bits = seen.computeIfAbsent(partition, x -> new BitSet());
          if (bits.get(offset)) {
            duplicates++;
            continue;
          }
          bits.set(offset);
          long produced = (Long) row.get("__ts_ms");
          if (n < latencyFile.length) {
            latencyFile[n] = c.fileMillis() - produced;
            latencyInfo[n] = c.infoMillis() - produced;
            producedAt[n] = produced;
          }
          n++;
          rowsByVersion.merge(c.version(), 1, Integer::sum);
          long[] pc = perCommit.computeIfAbsent(c.version(), v -> new long[] {c.fileMillis(), Long.MAX_VALUE, Long.MIN_VALUE});
          pc[1] = Math.min(pc[1], produced);
          pc[2] = Math.max(pc[2], produced);
        }
      }
    }
    long gaps = seen.values().stream().mapToLong(b -> b.length() - b.cardinality()).sum();
    boolean ok = n == events && duplicates == 0 && gaps == 0 && seen.size() == partitions;
    int m = Math.min(n, latencyFile.length);
    // The same figures without the first seconds of production, when the worker JVM is still cold
    // (JIT, the table's first commits): the steady state apart from the start-up backlog.
    long warmupMillis = Long.parseLong(o.getOrDefault("warmup-seconds", "15")) * 1000;
    long firstProduced = Arrays.stream(producedAt, 0, m).min().orElse(0);
    long[] steady = new long[m];
    int k = 0;
    for (int i = 0; i < m; i++) {
      if (producedAt[i] >= firstProduced + warmupMillis) {
        steady[k++] = latencyFile[i];
      }
    }
    Arrays.sort(steady, 0, k);
    r.setProperty("warmup_seconds", String.valueOf(warmupMillis / 1000));
    r.setProperty("steady_events", String.valueOf(k));
    if (k > 0) {
      r.setProperty("steady_p50_ms", String.valueOf(percentile(steady, k, 0.50)));
      r.setProperty("steady_p99_ms", String.valueOf(percentile(steady, k, 0.99)));
      r.setProperty("steady_max_ms", String.valueOf(steady[k - 1]));
    }
    Arrays.sort(latencyFile, 0, Math.min(n, latencyFile.length));
    Arrays.sort(latencyInfo, 0, Math.min(n, latencyInfo.length));
    r.setProperty("rows", String.valueOf(n));
    r.setProperty("duplicates", String.valueOf(duplicates));
    r.setProperty("gaps", String.valueOf(gaps));
    r.setProperty("verified", String.valueOf(ok));
    r.setProperty("commits_with_rows", String.valueOf(rowsByVersion.size()));
    if (m > 0) {
      r.setProperty("p50_ms", String.valueOf(percentile(latencyFile, m, 0.50)));
      r.setProperty("p99_ms", String.valueOf(percentile(latencyFile, m, 0.99)));
      r.setProperty("max_ms", String.valueOf(latencyFile[m - 1]));
      r.setProperty("min_ms", String.valueOf(latencyFile[0]));
      r.setProperty("info_p50_ms", String.valueOf(percentile(latencyInfo, m, 0.50)));
      r.setProperty("info_p99_ms", String.valueOf(percentile(latencyInfo, m, 0.99)));
      r.setProperty("info_max_ms", String.valueOf(latencyInfo[m - 1]));
      r.setProperty("rows_per_commit_median", String.valueOf(
          rowsByVersion.values().stream().mapToInt(Integer::intValue).sorted().toArray()[rowsByVersion.size() / 2]));
    }
    store(r, resultFile);
    StringBuilder csv = new StringBuilder("version,commit_file_ms,rows,oldest_event_latency_ms,newest_event_latency_ms\n");
    perCommit.forEach((v, pc) -> csv.append(v).append(',').append(pc[0]).append(',').append(rowsByVersion.get(v)).append(',')
        .append(pc[0] - pc[1]).append(',').append(pc[0] - pc[2]).append('\n'));
    Files.writeString(resultFile.resolveSibling("commits.csv"), csv);
    System.out.printf(Locale.ROOT, "Verified %s: %,d rows, %d duplicates, %d gaps, %d partitions, %d commits%n",
        ok ? "OK" : "FAILED", n, duplicates, gaps, seen.size(), rowsByVersion.size());
    if (!ok) {
      System.exit(3);
    }
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Nearest-rank percentile of the first {@code n} sorted values. */
  static long percentile(long[] sorted, int n, double q) {
    return sorted[Math.max(0, (int) Math.ceil(q * n) - 1)];
  }

  // ------------------------------------------------------------------ report

  private static void report(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("results"));
    Properties w = load(dir.resolve("worker.properties"));
    Properties p = load(dir.resolve("producer.properties"));
    long flushMillis = parseDurationMillis(w.getProperty("flush_interval"));
    long p99 = Long.parseLong(w.getProperty("p99_ms", "-1"));
    boolean met = p99 >= 0 && p99 <= flushMillis + 1000;
    System.out.println();
    System.out.printf(Locale.ROOT, "Freshness: produce → Delta commit, %,.0f events/s for %.0f s (target %,d/s; at worst %s ms behind"
        + " the producer's schedule), flush_interval %s, %s partition(s), 10-column events%n",
        d(p, "achieved_rate"), d(p, "seconds"), Long.parseLong(p.getProperty("target_rate")), p.getProperty("worst_behind_schedule_ms"),
        w.getProperty("flush_interval"), o.getOrDefault("partitions", "?"));
    System.out.println();
    System.out.printf(Locale.ROOT, "%-36s %9s %9s %9s%n", "latency (ms)", "p50", "p99", "max");
    System.out.printf(Locale.ROOT, "%-36s %,9d %,9d %,9d%n", "to the commit file",
        Long.parseLong(w.getProperty("p50_ms", "-1")), p99, Long.parseLong(w.getProperty("max_ms", "-1")));
    System.out.printf(Locale.ROOT, "%-36s %,9d %,9d %,9d%n", "to commitInfo.timestamp",
        Long.parseLong(w.getProperty("info_p50_ms", "-1")), Long.parseLong(w.getProperty("info_p99_ms", "-1")),
        Long.parseLong(w.getProperty("info_max_ms", "-1")));
    System.out.printf(Locale.ROOT, "%-36s %,9d %,9d %,9d%n", "commit file, after the first " + w.getProperty("warmup_seconds") + " s",
        Long.parseLong(w.getProperty("steady_p50_ms", "-1")), Long.parseLong(w.getProperty("steady_p99_ms", "-1")),
        Long.parseLong(w.getProperty("steady_max_ms", "-1")));
    System.out.println();
    long steadyP99 = Long.parseLong(w.getProperty("steady_p99_ms", "-1"));
    System.out.printf(Locale.ROOT, "Target p99 ≤ flush_interval + 1 s = %,d ms: %s (all events); %s (events produced after the first %s s)%n",
        flushMillis + 1000, met ? "met" : "NOT met", steadyP99 >= 0 && steadyP99 <= flushMillis + 1000 ? "met" : "NOT met",
        w.getProperty("warmup_seconds"));
    System.out.printf(Locale.ROOT, "%s rows in %s commits (median %s rows per commit), verified exactly once: %s%n",
        w.getProperty("rows"), w.getProperty("commits_with_rows"), w.getProperty("rows_per_commit_median"), w.getProperty("verified"));
    System.out.printf(Locale.ROOT, "Worker: %s; peak heap %s MB of %s MB, peak RSS %s MB, CPU %.1f s, GC %.1f s%n",
        w.getProperty("jvm_args"), w.getProperty("peak_heap_mb"), w.getProperty("max_heap_mb"), w.getProperty("vmhwm_mb"),
        d(w, "cpu_seconds"), d(w, "gc_seconds"));
    System.out.println("Commit file = when the commit's _delta_log file appeared (readers see the event from then);"
        + " produce time = the wall clock at send(), carried in the event as source.ts_ms (__ts_ms).");
    System.out.println("Per commit (rows, latency of its oldest and newest event): commits.csv next to this report.");
  }

  /** The benchmark's own flush_interval values: a number with ms, s or m. */
  static long parseDurationMillis(String s) {
    String t = s.trim();
    if (t.endsWith("ms")) {
      return Long.parseLong(t.substring(0, t.length() - 2));
    }
    long n = Long.parseLong(t.substring(0, t.length() - 1));
    return switch (t.charAt(t.length() - 1)) {
      case 's' -> n * 1000;
      case 'm' -> n * 60_000;
      default -> throw new IllegalArgumentException("flush interval " + s + ": use ms, s or m");
    };
  }
}
