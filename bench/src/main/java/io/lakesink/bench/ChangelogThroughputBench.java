package io.lakesink.bench;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.FlushWriters;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.SourcePosition;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * End-to-end changelog throughput: Kafka → committed Delta on local disk, with the real worker
 * ({@code lakesink run --stop-at-end}). Driven by {@code bench/run}, one JVM per step so each
 * worker's peak RSS is its own:
 *
 * <ul>
 *   <li>{@code broker}: a local Kafka broker (own JVM); produces N events to one topic per case,
 *       {@code bench.p<case>} ({@code 1}, {@code 4}, {@code 8} partitions; {@code 4h}: one hot
 *       partition and three quiet ones, see {@link #topic(String)}) — not timed — then waits.
 *   <li>{@code run}: the worker over one topic into a fresh directory, timed from building the
 *       worker to its exit (consumer group join, fetch, decode, Parquet, Delta commits); flush
 *       phases timed through the worker's {@link FlushHook}; peak RSS from {@code VmHWM}.
 *   <li>{@code verify}: another JVM reads the table back with Kernel and checks that every
 *       (partition, offset) of the topic is there exactly once.
 *   <li>{@code profile}: where the time goes outside flushes — raw Kafka fetch, then fetch +
 *       decode with lakesink's decoder.
 *   <li>{@code floor}: the same events from memory, decoded into columns and written as Parquet
 *       by one thread, no Kafka, no Delta ({@link ParquetFloorBench}).
 *   <li>{@code report}: the table of figures, next to the floor and to Spark Structured
 *       Streaming on the same topics ({@code SparkStreamingBench}, its own JVM and classpath).
 * </ul>
 */
public final class ChangelogThroughputBench {
  static final String TABLE = "bench_orders";

  private ChangelogThroughputBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
      return;
    }
    Map<String, String> o = options(Arrays.copyOfRange(args, 1, args.length));
    switch (args[0]) {
      case "broker" -> broker(o);
      case "run" -> run(o);
      case "verify" -> verify(o);
      case "profile" -> profile(o);
      case "floor" -> ParquetFloorBench.run(Long.parseLong(o.get("events")), Integer.parseInt(o.getOrDefault("flush-rows", "200000")),
          Path.of(o.get("data")), Path.of(o.get("result")));
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run):
          broker  --ready-file F --events N --partitions 1,4 [--keys K]
          run     --bootstrap B --partitions P --events N --data DIR --result FILE [--flush-rows R] [--flush-bytes B] [--kept true]
          verify  --data DIR --partitions P --events N --result FILE [--keys K --kept true]
          profile --bootstrap B --partitions P --events N --result FILE
          floor   --events N --data DIR --result FILE [--flush-rows R]
          report  --results DIR
        """);
    System.exit(1);
  }

  static String topic(int partitions) {
    return topic(String.valueOf(partitions));
  }

  /**
   * A case is a partition count, with {@code h} after it when partition 0 is hot
   * ({@link BenchEvents#HOT_PERCENT} % of the events) and the others quiet: {@code 1}, {@code 8}, {@code 4h}.
   */
  static String topic(String benchCase) {
    return "bench.p" + benchCase;
  }

  static int partitionCount(String benchCase) {
    return Integer.parseInt(benchCase.endsWith("h") ? benchCase.substring(0, benchCase.length() - 1) : benchCase);
  }

  static boolean hot(String benchCase) {
    return benchCase.endsWith("h");
  }

  /** How a case is named in the report. */
  static String describe(String benchCase) {
    int n = partitionCount(benchCase);
    return hot(benchCase) ? "1 hot + " + (n - 1) + " quiet partitions" : n + " partition(s)";
  }

  // ------------------------------------------------------------------ broker

  private static void broker(Map<String, String> o) throws Exception {
    long events = Long.parseLong(o.get("events"));
    long keys = Long.parseLong(o.getOrDefault("keys", "0"));
    LocalKafkaBroker broker = LocalKafkaBroker.start();
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "bench-broker-stop"));
    String bootstrap = broker.bootstrapServers();
    for (String p : o.get("partitions").split(",")) {
      String benchCase = p.trim();
      int partitions = partitionCount(benchCase);
      broker.createTopic(topic(benchCase), partitions);
      long start = System.nanoTime();
      long bytes = BenchEvents.produce(bootstrap, topic(benchCase), partitions, hot(benchCase), keys, events);
      System.out.printf(Locale.ROOT, "Produced %,d events (%,d MB)%s to %s in %.1f s%n",
          events, bytes >> 20, keys > 0 ? String.format(Locale.ROOT, " on %,d keys", keys) : "", topic(benchCase),
          (System.nanoTime() - start) / 1e9);
    }
    Path ready = Path.of(o.get("ready-file"));
    Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
    Files.writeString(tmp, bootstrap);
    Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("Broker ready at " + bootstrap);
    Thread.currentThread().join(); // until killed; the shutdown hook stops the broker and deletes its data
  }

  // ------------------------------------------------------------------ run

  /** Times the flush phases from inside the worker, through its test hook. */
  static final class PhaseTimer implements FlushHook {
    long writeNanos;
    long commitNanos;
    long commits;
    long firstFlushStart = -1;
    /** When the last flush's commit ended (System.nanoTime): the changelog is done then. */
    long lastCommitEnd = -1;
    /** Each flush's write and commit time, in order: the storage benchmark reports their spread. */
    final List<Long> writeEach = new ArrayList<>();
    final List<Long> commitEach = new ArrayList<>();
    private long mark;

    @Override
    public void at(String table, FlushStep step) {
      long now = System.nanoTime();
      switch (step) {
        case BEFORE_WRITE -> {
          mark = now;
          if (firstFlushStart < 0) {
            firstFlushStart = now;
          }
        }
        case BEFORE_COMMIT -> {
          writeNanos += now - mark;
          writeEach.add(now - mark);
          mark = now;
        }
        case AFTER_COMMIT -> {
          commitNanos += now - mark;
          commitEach.add(now - mark);
          commits++;
          lastCommitEnd = now;
        }
      }
    }
  }

  static String config(String bootstrap, String topic, Path data, long flushRows, String flushBytes) {
    return config(bootstrap, topic, localStorage(data), flushRows, flushBytes);
  }

  /** The {@code storage:} section's body for a local directory. */
  static String localStorage(Path data) {
    return "  type: local\n  path: " + data + "\n";
  }

  /** A worker configuration; {@code storage} is the body of the {@code storage:} section, indented by two. */
  static String config(String bootstrap, String topic, String storage, long flushRows, String flushBytes) {
    return config(bootstrap, topic, storage, flushRows, flushBytes, "");
  }

  /**
   * @param kafkaProperties extra consumer properties as {@code k=v,k=v} ({@code KAFKA_PROPERTIES} of
   *     bench/run), to compare fetch settings; empty for none
   */
  static String config(String bootstrap, String topic, String storage, long flushRows, String flushBytes, String kafkaProperties) {
    return config(bootstrap, topic, storage, flushRows, flushBytes, kafkaProperties, false);
  }

  /** @param kept whether lakesink keeps the current state as a Delta table ({@code current_state: {object: table}}) */
  static String config(
      String bootstrap, String topic, String storage, long flushRows, String flushBytes, String kafkaProperties, boolean kept) {
    StringBuilder properties = new StringBuilder();
    for (String kv : kafkaProperties.split(",")) {
      if (!kv.isBlank()) {
        properties.append(properties.length() == 0 ? "  properties:\n" : "").append("    ")
            .append(kv.substring(0, kv.indexOf('=')).trim()).append(": \"").append(kv.substring(kv.indexOf('=') + 1).trim()).append("\"\n");
      }
    }
    return """
        kafka:
          bootstrap_servers: %s
          group_id: lakesink-bench-%s
        %s
        storage:
        %s
        delivery:
          flush_rows: %d
          flush_bytes: %s
          flush_interval: 10m
        subscriptions:
          - topic: %s
            table: %s
            primary_key: [id]
        %s""".formatted(bootstrap, UUID.randomUUID(), properties.toString().stripTrailing(), storage.stripTrailing(), flushRows, flushBytes,
        topic, TABLE, kept ? "    current_state: {object: table}\n" : "");
  }

  private static void run(Map<String, String> o) throws IOException {
    String benchCase = o.get("partitions");
    int partitions = partitionCount(benchCase);
    long events = Long.parseLong(o.get("events"));
    long flushRows = Long.parseLong(o.getOrDefault("flush-rows", "200000"));
    String flushBytes = o.getOrDefault("flush-bytes", "1GB");
    Path data = Path.of(o.get("data"));
    boolean kept = Boolean.parseBoolean(o.getOrDefault("kept", "false"));
    WorkerConfig config =
        ConfigLoader.fromSystemEnvironment().parse(config(o.get("bootstrap"), topic(benchCase), localStorage(data), flushRows, flushBytes,
            o.getOrDefault("kafka-properties", ""), kept), "bench");
    Properties r;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      r = runWorker(config, storage, partitions, events, new PhaseTimer());
      if (kept) {
        KeptTableFigures.afterRun(storage, config.subscriptions().get(0), r);
      }
    }
    r.setProperty("case", benchCase);
    r.setProperty("kept", String.valueOf(kept));
    r.setProperty("keys", o.getOrDefault("keys", "0"));
    r.setProperty("kafka_properties", o.getOrDefault("kafka-properties", ""));
    r.setProperty("table_mb", String.valueOf(directoryBytes(data) >> 20));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "%s%s: %,d events in %.2f s = %,.0f events/s (changelog done after %.2f s), peak RSS %,d MB, %d commits%n",
        describe(benchCase), kept ? ", kept table on" : "", events, d(r, "seconds"), d(r, "events_per_second"),
        d(r, "changelog_done_seconds"), Long.parseLong(r.getProperty("vmhwm_mb")), Long.parseLong(r.getProperty("commits")));
    if (kept) {
      System.out.printf(Locale.ROOT, "  kept table: %s follows, %d versions behind at exit, caught up after %.2f s%n",
          r.getProperty("kept_follow_commits"), Long.parseLong(r.getProperty("kept_lag_versions_at_exit")), d(r, "kept_caught_up_seconds"));
    }
    if (!Boolean.parseBoolean(r.getProperty("healthy"))) {
      System.exit(2);
    }
  }

  /**
   * Runs the worker over the topic until its end and returns the figures: wall time from building
   * the worker to its exit, CPU, GC, flush phases (through {@code phases}), peak RSS so far.
   */
  static Properties runWorker(WorkerConfig config, TableStorage storage, int partitions, long events, PhaseTimer phases) {
    long rssBefore = vmKb("VmRSS");
    long cpuBefore = processCpuNanos();
    long gcBefore = gcMillis();
    long mainCpuBefore = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    Map<Long, Long> writersBefore = writerThreadCpuNanos();
    Map<Long, Long> decodersBefore = threadCpuNanos(DECODER_PREFIX);
    Map<String, Long> groupsBefore = threadCpuByGroup();
    Map<String, Double> jvmBefore = JvmThreadCpu.now();
    HeapWatch heap = new HeapWatch();
    heap.reset();

    long start = System.nanoTime();
    WorkerResult result;
    Duration buffersFull;
    try (KafkaWorker worker = Pipeline.worker(config, storage, phases, Clock.systemUTC())) {
      result = worker.run(true);
      buffersFull = worker.status().buffersFull();
    }
    long elapsed = System.nanoTime() - start;
    long mainCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - mainCpuBefore;
    long writersCpu = 0;
    for (Map.Entry<Long, Long> w : writerThreadCpuNanos().entrySet()) {
      writersCpu += w.getValue() - writersBefore.getOrDefault(w.getKey(), 0L);
    }
    long decodersCpu = 0;
    for (Map.Entry<Long, Long> w : threadCpuNanos(DECODER_PREFIX).entrySet()) {
      decodersCpu += w.getValue() - decodersBefore.getOrDefault(w.getKey(), 0L);
    }
    Map<String, Long> groups = threadCpuByGroup();

    Properties r = new Properties();
    r.setProperty("partitions", String.valueOf(partitions));
    r.setProperty("events", String.valueOf(events));
    r.setProperty("flush_rows", String.valueOf(config.delivery().rows()));
    r.setProperty("flush_bytes", (config.delivery().bytes() >> 20) + "MB");
    r.setProperty("healthy", String.valueOf(result.allDelivering()));
    r.setProperty("seconds", String.valueOf(elapsed / 1e9));
    // JVM start to the worker's exit: the figure Spark's process time compares with.
    r.setProperty("process_seconds", String.valueOf(ManagementFactory.getRuntimeMXBean().getUptime() / 1e3));
    r.setProperty("events_per_second", String.valueOf(events / (elapsed / 1e9)));
    // How long reading waited for delivery.max_buffer_bytes (the writers, and kept tables' follows).
    r.setProperty("buffers_full_seconds", String.valueOf(buffersFull.toNanos() / 1e9));
    r.setProperty("vmhwm_mb", String.valueOf(vmKb("VmHWM") / 1024));
    r.setProperty("rss_at_start_mb", String.valueOf(rssBefore / 1024));
    r.setProperty("max_heap_mb", String.valueOf(Runtime.getRuntime().maxMemory() >> 20));
    // The most heap in use at any point, garbage included (just before a collection), and the
    // most still in use just after one: what a smaller -Xmx would have had to hold.
    r.setProperty("peak_heap_mb", String.valueOf(heap.peakBytes() >> 20));
    r.setProperty("peak_heap_after_gc_mb", String.valueOf(heap.peakAfterGcBytes() >> 20));
    r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    r.setProperty("cpu_seconds", String.valueOf((processCpuNanos() - cpuBefore) / 1e9));
    // Since JVM start, as Spark's figure in the side-by-side table (its session start included).
    r.setProperty("process_cpu_seconds", String.valueOf(processCpuNanos() / 1e9));
    r.setProperty("main_thread_cpu_seconds", String.valueOf(mainCpu / 1e9));
    // The flushes run on writer threads beside the poll thread: their CPU is the worker's too.
    r.setProperty("writer_threads_cpu_seconds", String.valueOf(writersCpu / 1e9));
    r.setProperty("decoder_threads_cpu_seconds", String.valueOf(decodersCpu / 1e9));
    groups.forEach((g, nanos) -> {
      long during = nanos - groupsBefore.getOrDefault(g, 0L);
      if (during >= 10_000_000) { // 10 ms: leave out the idle ones
        r.setProperty("thread_cpu." + g, String.valueOf(during / 1e9));
      }
    });
    // The JVM's own threads (JIT compilers, collector), which ThreadMXBean does not list: most of
    // what the process spends beside the worker's threads.
    JvmThreadCpu.now().forEach((g, seconds) -> r.setProperty("jvm_cpu." + g, String.valueOf(seconds - jvmBefore.getOrDefault(g, 0.0))));
    r.setProperty("gc_seconds", String.valueOf((gcMillis() - gcBefore) / 1e3));
    r.setProperty("commits", String.valueOf(phases.commits));
    r.setProperty("write_seconds", String.valueOf(phases.writeNanos / 1e9));
    r.setProperty("commit_seconds", String.valueOf(phases.commitNanos / 1e9));
    // The changelog's last commit: its events/s with and without a kept table compare on this.
    r.setProperty("changelog_done_seconds", String.valueOf(phases.lastCommitEnd < 0 ? 0 : (phases.lastCommitEnd - start) / 1e9));
    r.setProperty("until_first_flush_seconds", String.valueOf(phases.firstFlushStart < 0 ? 0 : (phases.firstFlushStart - start) / 1e9));
    if (!result.allDelivering()) {
      System.err.println("Worker ended with failed tables: " + result.states());
    }
    return r;
  }

  // ------------------------------------------------------------------ verify

  private static void verify(Map<String, String> o) throws IOException {
    String benchCase = o.get("partitions");
    int partitions = partitionCount(benchCase);
    long events = Long.parseLong(o.get("events"));
    Path data = Path.of(o.get("data"));
    Path resultFile = Path.of(o.get("result"));
    Properties r = load(resultFile);
    boolean kept = Boolean.parseBoolean(o.getOrDefault("kept", "false"));
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse(
        config("unused:9092", topic(benchCase), localStorage(data), 1, "1GB", "", kept), "bench");
    boolean ok;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      ok = verifyTable(storage, config.subscriptions().get(0), partitions, events, r);
      if (kept) {
        ok &= KeptTableFigures.verify(storage, config.subscriptions().get(0), benchCase, events,
            Long.parseLong(o.getOrDefault("keys", "0")), r);
      }
    }
    store(r, resultFile);
    if (!ok) {
      System.exit(3);
    }
  }

  /**
   * Reads the table back with Kernel and checks that every (partition, offset) of the topic is
   * there exactly once; adds rows, duplicates, gaps and verified to {@code r}.
   */
  static boolean verifyTable(TableStorage storage, Subscription s, int partitions, long events, Properties r) {
    long start = System.nanoTime();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(Pipeline.table(storage, KernelEngine.create(storage), s));
    Map<Integer, BitSet> seen = new HashMap<>();
    long duplicates = 0;
    for (Map<String, Object> row : rows) {
      int p = (Integer) row.get("__partition");
      int offset = Math.toIntExact((Long) row.get("__offset"));
      BitSet bits = seen.computeIfAbsent(p, x -> new BitSet());
      if (bits.get(offset)) {
        duplicates++;
      }
      bits.set(offset);
    }
    // Every offset 0..n-1 of each partition present: exactly the topic, nothing missing.
    long distinct = 0;
    long gaps = 0;
    for (BitSet bits : seen.values()) {
      distinct += bits.cardinality();
      gaps += bits.length() - bits.cardinality();
    }
    boolean ok = rows.size() == events && duplicates == 0 && distinct == events && gaps == 0 && seen.size() == partitions;
    r.setProperty("rows", String.valueOf(rows.size()));
    r.setProperty("duplicates", String.valueOf(duplicates));
    r.setProperty("gaps", String.valueOf(gaps));
    r.setProperty("verified", String.valueOf(ok));
    System.out.printf(Locale.ROOT, "Verified %s: %,d rows, %,d distinct positions, %d duplicates, %d gaps, %d partitions (read in %.1f s)%n",
        ok ? "OK" : "FAILED", rows.size(), distinct, duplicates, gaps, seen.size(), (System.nanoTime() - start) / 1e9);
    return ok;
  }

  // ------------------------------------------------------------------ profile

  /** Raw fetch, then fetch + decode, over the whole topic; no Delta involved. */
  private static void profile(Map<String, String> o) throws IOException {
    int partitions = partitionCount(o.get("partitions"));
    long events = Long.parseLong(o.get("events"));
    String topic = topic(o.get("partitions"));
    Properties r = new Properties();
    long[] fetch = consume(o.get("bootstrap"), topic, partitions, false);
    long[] decode = consume(o.get("bootstrap"), topic, partitions, true);
    r.setProperty("fetch_seconds", String.valueOf(fetch[0] / 1e9));
    r.setProperty("fetch_and_decode_seconds", String.valueOf(decode[0] / 1e9));
    r.setProperty("decode_only_seconds", String.valueOf(decode[2] / 1e9));
    r.setProperty("records", String.valueOf(fetch[1]));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "%s: fetch %,.0f rec/s; fetch+decode %,.0f rec/s; decode alone %.2f s (%,.0f rec/s)%n",
        topic, events / (fetch[0] / 1e9), events / (decode[0] / 1e9), decode[2] / 1e9, events / (decode[2] / 1e9));
  }

  /** @return {elapsed nanos, records, nanos spent in decode} */
  private static long[] consume(String bootstrap, String topic, int partitions, boolean decode) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    // The worker's own consumer settings (KafkaWorker).
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();
    long records = 0;
    long decodeNanos = 0;
    long sink = 0;
    long start = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(topic, i));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      long total = end.values().stream().mapToLong(Long::longValue).sum();
      while (records < total) {
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
          records++;
          if (decode) {
            long t = System.nanoTime();
            try {
              var e = decoder.decode(new SourcePosition(rec.topic(), rec.partition(), rec.offset()), rec.key(), rec.value());
              sink += e == null ? 0 : e.values().length;
            } catch (Exception ex) {
              throw new IllegalStateException(ex);
            }
            decodeNanos += System.nanoTime() - t;
          } else {
            sink += rec.value() == null ? 0 : rec.value().length;
          }
        }
      }
    }
    if (sink == 42) {
      System.out.print(""); // keep the work observable
    }
    return new long[] {System.nanoTime() - start, records, decodeNanos};
  }

  // ------------------------------------------------------------------ report

  private static void report(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("results"));
    List<Properties> runs = new ArrayList<>();
    for (Path f : results(dir, "run-.*\\.properties")) {
      runs.add(load(f));
    }
    System.out.println();
    System.out.println("Changelog throughput, Kafka → committed Delta on local disk (lakesink run --stop-at-end)");
    System.out.println();
    String header = String.format(Locale.ROOT, "%-10s %10s %9s %11s %13s %9s %13s %8s %8s %9s %9s %8s %10s %13s %12s %8s %9s %9s %8s",
        "case", "events", "wall s", "events/s", "peak RSS MB", "max heap", "peak heap MB", "commits", "write s", "commit s", "other s", "CPU s", "main CPU s", "decoder CPU s", "writer CPU s", "GC s", "table MB", "verified", "");
    System.out.println(header.stripTrailing());
    runs.sort(java.util.Comparator.comparingInt((Properties r) -> Integer.parseInt(r.getProperty("partitions")))
        .thenComparing(r -> r.getProperty("case", "")));
    Map<String, List<Properties>> byPartitions = new java.util.LinkedHashMap<>(); // by case: "4" and "4h" apart
    runs.forEach(r -> byPartitions.computeIfAbsent(r.getProperty("case", r.getProperty("partitions")), x -> new ArrayList<>()).add(r));
    byPartitions.forEach((partitions, group) -> {
      for (Properties r : group) {
        double seconds = d(r, "seconds");
        double write = d(r, "write_seconds");
        double commit = d(r, "commit_seconds");
        System.out.println(String.format(Locale.ROOT, "%-10s %,10d %9.2f %,11.0f %,13d %9s %,13d %8s %8.2f %9.2f %9.2f %8.2f %10.2f %13.2f %12.2f %8.2f %,9d %9s",
            partitions, Long.parseLong(r.getProperty("events")), seconds, d(r, "events_per_second"),
            Long.parseLong(r.getProperty("vmhwm_mb")), r.getProperty("max_heap_mb") + "M", Long.parseLong(r.getProperty("peak_heap_mb", "0")),
            r.getProperty("commits"),
            write, commit, seconds - write - commit, d(r, "cpu_seconds"), d(r, "main_thread_cpu_seconds"),
            d(r, "decoder_threads_cpu_seconds"), d(r, "writer_threads_cpu_seconds"), d(r, "gc_seconds"),
            Long.parseLong(r.getProperty("table_mb", "0")),
            r.getProperty("verified", "not run") + (r.getProperty("rows") == null ? "" : " (" + r.getProperty("rows") + ")")));
      }
      if (group.size() > 1) {
        System.out.println(String.format(Locale.ROOT, "%-10s %10s %9.2f %,11.0f %,13.0f %9s %,13.0f %8s %8.2f %9.2f %9s %8.2f %10.2f %13.2f %12.2f %8.2f",
            partitions + " median", "", median(group, "seconds"), median(group, "events_per_second"), median(group, "vmhwm_mb"), "",
            median(group, "peak_heap_mb"), "",
            median(group, "write_seconds"), median(group, "commit_seconds"), "", median(group, "cpu_seconds"),
            median(group, "main_thread_cpu_seconds"), median(group, "decoder_threads_cpu_seconds"),
            median(group, "writer_threads_cpu_seconds"), median(group, "gc_seconds")));
      }
    });
    System.out.println();
    System.out.println("CPU seconds per thread group during the run (ThreadMXBean, live threads at the end; then the JVM's own"
        + " threads from /proc: jit = C1/C2 compilers, gc = collector threads, vm = the VM thread; first run of each case):");
    byPartitions.forEach((benchCase, group) -> {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-28s", describe(benchCase) + ":"));
      for (String prefix : List.of("thread_cpu.", "jvm_cpu.")) {
        group.get(0).stringPropertyNames().stream().filter(k -> k.startsWith(prefix)).sorted()
            .forEach(k -> line.append(String.format(Locale.ROOT, " %s %.2f;", k.substring(prefix.length()), d(group.get(0), k))));
      }
      System.out.println(line);
    });
    if (!runs.isEmpty()) {
      Properties first = runs.get(0);
      System.out.println();
      System.out.println("Worker JVM: " + first.getProperty("jvm_args") + "; flush_rows " + first.getProperty("flush_rows")
          + ", flush_bytes " + first.getProperty("flush_bytes") + ", flush_interval 10m");
      System.out.println("write s = flush step BEFORE_WRITE→BEFORE_COMMIT (changelog rows + Parquet files), on a writer thread;");
      System.out.println("commit s = Delta commit + post-commit hooks, until the poll thread collected the outcome (AFTER_COMMIT);");
      System.out.println("other s = the rest of the wall time: JVM-side startup, consumer group join, fetch, decode, buffering.");
      System.out.println("CPU s = whole worker process; main CPU s = the poll thread (polls, applies decoded events, buffers, group");
      System.out.println("commits); decoder CPU s = the decoder threads (a poll's records, decoded on every core);");
      System.out.println("writer CPU s = the writer threads (rows, Parquet, Delta commits), which run beside them.");
      System.out.println("peak heap MB = the most heap in use during the run, garbage included (just before a collection).");
    }
    SideBySide.print(dir, byPartitions);
    KeptTableFigures.report(dir);
    AbFigures.report(dir);
    List<Path> profiles = results(dir, "profile-.*\\.properties");
    if (!profiles.isEmpty()) {
      System.out.println();
      System.out.println("Profile outside the worker (same topic, same consumer settings, no Delta):");
      for (Path f : profiles) {
        Properties r = load(f);
        double n = d(r, "records");
        System.out.println(String.format(Locale.ROOT,
            "  %-22s fetch only %6.2f s (%,9.0f rec/s) | fetch + decode %6.2f s (%,9.0f rec/s), of which decode %6.2f s (%,9.0f rec/s)",
            f.getFileName().toString().replace("profile-", "").replace(".properties", ""),
            d(r, "fetch_seconds"), n / d(r, "fetch_seconds"), d(r, "fetch_and_decode_seconds"), n / d(r, "fetch_and_decode_seconds"),
            d(r, "decode_only_seconds"), n / d(r, "decode_only_seconds")));
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  static double median(List<Properties> runs, String key) {
    double[] v = runs.stream().mapToDouble(r -> d(r, key)).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static double d(Properties r, String key) {
    return Double.parseDouble(r.getProperty(key, "0"));
  }

  /** A line of /proc/self/status in kB (VmHWM: peak resident set; VmRSS: current). */
  static long vmKb(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /**
   * CPU time per live writer thread ({@link FlushWriters#THREAD_PREFIX}), by thread id. Read right
   * after the run: a writer thread ends only after 30 s without work.
   */
  static Map<Long, Long> writerThreadCpuNanos() {
    return threadCpuNanos(FlushWriters.THREAD_PREFIX);
  }

  /** Decoder threads (KafkaWorker's DecodePool) are named so. */
  static final String DECODER_PREFIX = "lakesink-decoder-";

  /** CPU time per live thread whose name starts with {@code prefix}, by thread id. */
  static Map<Long, Long> threadCpuNanos(String prefix) {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new java.util.HashMap<>();
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().startsWith(prefix)) {
        long nanos = threads.getThreadCpuTime(t.getThreadId());
        if (nanos >= 0) {
          cpu.put(t.getThreadId(), nanos);
        }
      }
    }
    return cpu;
  }

  /**
   * CPU time of every live thread, by thread group: its name without a trailing number or Kafka's
   * " | client" suffix ("lakesink-writer-", "kafka-coordinator-heartbeat-thread"). Threads that
   * ended during the run are missing; the JVM's own (GC, JIT) are not Java threads.
   */
  static Map<String, Long> threadCpuByGroup() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> cpu = new java.util.TreeMap<>();
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      long nanos = t == null ? -1 : threads.getThreadCpuTime(t.getThreadId());
      if (nanos > 0) {
        String group = t.getThreadName().replaceAll(" \\|.*$", "").replaceAll("[0-9]+$", "").replaceAll("[.=\\s]", "_");
        cpu.merge(group, nanos, Long::sum);
      }
    }
    return cpu;
  }

  static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
  }

  static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

  static long directoryBytes(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(Files::isRegularFile).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    }
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + Arrays.toString(args));
      }
      m.put(args[i].substring(2), args[++i]);
    }
    return m;
  }

  /** The files of {@code dir} whose names match {@code regex}, sorted by name. */
  static List<Path> results(Path dir, String regex) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().matches(regex)).sorted().toList();
    }
  }

  static Properties load(Path f) throws IOException {
    Properties p = new Properties();
    if (Files.exists(f)) {
      try (Reader in = Files.newBufferedReader(f)) {
        p.load(in);
      }
    }
    return p;
  }

  static void store(Properties p, Path f) throws IOException {
    try (Writer out = Files.newBufferedWriter(f)) {
      p.store(out, null);
    }
  }
}
