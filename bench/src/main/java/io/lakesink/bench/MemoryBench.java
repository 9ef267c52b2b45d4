package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.d;
import static io.lakesink.bench.ChangelogThroughputBench.gcMillis;
import static io.lakesink.bench.ChangelogThroughputBench.load;
import static io.lakesink.bench.ChangelogThroughputBench.options;
import static io.lakesink.bench.ChangelogThroughputBench.processCpuNanos;
import static io.lakesink.bench.ChangelogThroughputBench.store;
import static io.lakesink.bench.ChangelogThroughputBench.vmKb;

import io.lakesink.app.LocalKafkaBroker;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Memory: many subscriptions streaming at once into one worker with a small heap. Driven by
 * {@code bench/run memory}, one JVM per step:
 *
 * <ul>
 *   <li>{@code broker}: a local Kafka broker; creates {@code mem.t0 … mem.t<S-1>} and produces
 *       N events to each, in three table shapes ({@link ShapedEvents}: small, 10 columns, 40
 *       columns of multi-KB rows) — not timed — then waits.
 *   <li>{@code run}: the real worker ({@code lakesink run --stop-at-end}) over all topics with
 *       the default delivery settings, one subscription entry per topic or (with {@code --pattern
 *       true}) one {@code topic_pattern} entry for them all; peak heap ({@link HeapWatch}), peak RSS, GC and wall time.
 *       {@code bench/run} starts it with {@code -XX:+ExitOnOutOfMemoryError}, so running out of
 *       heap ends the run with exit code 3 instead of a worker limping on.
 *   <li>{@code verify}: every table holds every (partition, offset) of its topic exactly once.
 *   <li>{@code report}: the figures.
 * </ul>
 */
public final class MemoryBench {
  private MemoryBench() {}

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
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run memory):
          broker --ready-file F --subscriptions S --events N --partitions P
          run    --bootstrap B --subscriptions S --partitions P --events N --data DIR --result FILE [--pattern true]
          verify --subscriptions S --partitions P --events N --data DIR --result FILE
          report --result FILE
        """);
    System.exit(1);
  }

  static String topic(int t) {
    return "mem.t" + t;
  }

  // ------------------------------------------------------------------ broker

  private static void broker(Map<String, String> o) throws Exception {
    int subscriptions = Integer.parseInt(o.get("subscriptions"));
    int partitions = Integer.parseInt(o.get("partitions"));
    long events = Long.parseLong(o.get("events"));
    LocalKafkaBroker broker = LocalKafkaBroker.start();
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "bench-broker-stop"));
    String bootstrap = broker.bootstrapServers();
    long start = System.nanoTime();
    long bytes = 0;
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(bootstrap))) {
      for (int t = 0; t < subscriptions; t++) {
        broker.createTopic(topic(t), partitions);
        ShapedEvents shape = ShapedEvents.forTable(t);
        SplittableRandom random = new SplittableRandom(t);
        for (long i = 0; i < events; i++) {
          byte[] value = shape.envelope(i, BenchEvents.T0 + i, random);
          producer.send(new ProducerRecord<>(topic(t), (int) (i % partitions), ShapedEvents.key(i), value), (m, e) -> {
            if (e != null) {
              failed.compareAndSet(null, e);
            }
          });
          bytes += value.length;
        }
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw new IllegalStateException("producing the benchmark's events failed", failed.get());
    }
    System.out.printf(Locale.ROOT, "Produced %,d events to each of %d topics (%,d MB in all) in %.1f s%n",
        events, subscriptions, bytes >> 20, (System.nanoTime() - start) / 1e9);
    Path ready = Path.of(o.get("ready-file"));
    Path tmp = ready.resolveSibling(ready.getFileName() + ".tmp");
    Files.writeString(tmp, bootstrap);
    Files.move(tmp, ready, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("Broker ready at " + bootstrap);
    Thread.currentThread().join(); // until killed; the shutdown hook stops the broker and deletes its data
  }

  static Properties producerProperties(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L << 20);
    return p;
  }

  // ------------------------------------------------------------------ run

  /** All subscriptions in one worker, with the default delivery settings (flush_interval, flush_rows, …). */
  static String config(String bootstrap, Path data, int subscriptions) {
    StringBuilder subs = new StringBuilder();
    for (int t = 0; t < subscriptions; t++) {
      subs.append("  - {topic: ").append(topic(t)).append(", table: mem_t").append(t).append(", primary_key: [id]}\n");
    }
    return config(bootstrap, data, subs.toString());
  }

  /**
   * The same tables from one pattern entry (as a source database's tables arrive): each topic
   * {@code mem.t<n>} becomes table {@code mem_t<n>}, the name an entry of its own gives it, so
   * {@code verify} reads them alike.
   */
  static String patternConfig(String bootstrap, Path data) {
    return config(bootstrap, data, "  - {topic_pattern: 'mem\\.t[0-9]+', table: 'mem_${table}', primary_key: [id]}\n");
  }

  private static String config(String bootstrap, Path data, String subs) {
    return """
        kafka:
          bootstrap_servers: %s
          group_id: lakesink-bench-memory-%s
        storage:
          type: local
          path: %s
        subscriptions:
        %s""".formatted(bootstrap, UUID.randomUUID(), data, subs.stripTrailing());
  }

  private static void run(Map<String, String> o) throws IOException {
    int subscriptions = Integer.parseInt(o.get("subscriptions"));
    long events = Long.parseLong(o.get("events"));
    Path data = Path.of(o.get("data"));
    boolean pattern = Boolean.parseBoolean(o.getOrDefault("pattern", "false"));
    String yaml = pattern ? patternConfig(o.get("bootstrap"), data) : config(o.get("bootstrap"), data, subscriptions);
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse(yaml, "bench");
    HeapWatch heap = new HeapWatch();
    heap.reset();
    long cpuBefore = processCpuNanos();
    long gcBefore = gcMillis();
    long start = System.nanoTime();
    WorkerResult result;
    try (TableStorage storage = Pipeline.storage(config.storage());
        KafkaWorker worker = Pipeline.worker(config, storage, FlushHook.NONE, Clock.systemUTC())) {
      result = worker.run(true);
    }
    long elapsed = System.nanoTime() - start;
    long total = events * subscriptions;
    Properties r = new Properties();
    r.setProperty("subscriptions", String.valueOf(subscriptions));
    r.setProperty("pattern", String.valueOf(pattern));
    r.setProperty("partitions", o.get("partitions"));
    r.setProperty("events_per_topic", String.valueOf(events));
    r.setProperty("events", String.valueOf(total));
    r.setProperty("healthy", String.valueOf(result.allDelivering()));
    r.setProperty("seconds", String.valueOf(elapsed / 1e9));
    r.setProperty("events_per_second", String.valueOf(total / (elapsed / 1e9)));
    r.setProperty("max_heap_mb", String.valueOf(Runtime.getRuntime().maxMemory() >> 20));
    r.setProperty("max_buffer_mb", String.valueOf(config.maxBufferBytes() >> 20));
    r.setProperty("peak_heap_mb", String.valueOf(heap.peakBytes() >> 20));
    r.setProperty("peak_heap_after_gc_mb", String.valueOf(heap.peakAfterGcBytes() >> 20));
    r.setProperty("collections", String.valueOf(heap.collections()));
    r.setProperty("vmhwm_mb", String.valueOf(vmKb("VmHWM") / 1024));
    r.setProperty("cpu_seconds", String.valueOf((processCpuNanos() - cpuBefore) / 1e9));
    r.setProperty("gc_seconds", String.valueOf((gcMillis() - gcBefore) / 1e3));
    r.setProperty("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "%d " + (pattern ? "pattern topics" : "subscriptions") + ": %,d events in %.1f s, peak heap %,d MB of %,d MB, peak RSS %,d MB, GC %.1f s%n",
        subscriptions, total, d(r, "seconds"), heap.peakBytes() >> 20, Runtime.getRuntime().maxMemory() >> 20,
        vmKb("VmHWM") / 1024, d(r, "gc_seconds"));
    if (!result.allDelivering()) {
      System.err.println("Worker ended with failed tables: " + result.states());
      System.exit(2);
    }
  }

  // ------------------------------------------------------------------ verify

  private static void verify(Map<String, String> o) throws IOException {
    int subscriptions = Integer.parseInt(o.get("subscriptions"));
    int partitions = Integer.parseInt(o.get("partitions"));
    long events = Long.parseLong(o.get("events"));
    Path resultFile = Path.of(o.get("result"));
    Properties r = load(resultFile);
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().parse(config("unused:9092", Path.of(o.get("data")), subscriptions), "bench");
    int verified = 0;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      for (Subscription s : config.subscriptions()) {
        Properties table = new Properties();
        System.out.print(s.table() + ": ");
        if (ChangelogThroughputBench.verifyTable(storage, s, partitions, events, table)) {
          verified++;
        }
      }
    }
    r.setProperty("tables_verified", String.valueOf(verified));
    r.setProperty("verified", String.valueOf(verified == subscriptions));
    store(r, resultFile);
    if (verified != subscriptions) {
      System.err.printf(Locale.ROOT, "Only %d of %d tables hold their topic exactly once%n", verified, subscriptions);
      System.exit(3);
    }
  }

  // ------------------------------------------------------------------ report

  private static void report(Map<String, String> o) throws IOException {
    Properties r = load(Path.of(o.get("result")));
    System.out.println();
    boolean pattern = Boolean.parseBoolean(r.getProperty("pattern", "false"));
    System.out.printf(Locale.ROOT, "Memory: %s %s streaming at once, %,d events each (small / 10-column / 40-column"
        + " multi-KB rows in turn), %s partition(s) per topic; lakesink run --stop-at-end, default delivery settings%n",
        r.getProperty("subscriptions"), pattern ? "topics of one topic_pattern subscription" : "subscriptions",
        Long.parseLong(r.getProperty("events_per_topic")), r.getProperty("partitions"));
    System.out.println();
    System.out.printf(Locale.ROOT, "%-9s %9s %8s %10s %10s %14s %12s %8s %7s %7s %s%n",
        "max heap", "budget", "wall s", "events/s", "peak heap", "after-GC peak", "peak RSS", "CPU s", "GC s", "OOM", "verified");
    System.out.printf(Locale.ROOT, "%-9s %9s %8.1f %,10.0f %10s %14s %12s %8.1f %7.1f %7s %s%n",
        r.getProperty("max_heap_mb") + " MB", r.getProperty("max_buffer_mb") + " MB", d(r, "seconds"), d(r, "events_per_second"),
        r.getProperty("peak_heap_mb") + " MB", r.getProperty("peak_heap_after_gc_mb") + " MB", r.getProperty("vmhwm_mb") + " MB",
        d(r, "cpu_seconds"), d(r, "gc_seconds"), "none",
        r.getProperty("verified", "not run") + " (" + r.getProperty("tables_verified", "0") + " tables)");
    System.out.println();
    System.out.println("Worker JVM: " + r.getProperty("jvm_args"));
    System.out.println("budget = delivery.max_buffer_bytes (a quarter of the heap by default); peak heap = most heap in use"
        + " before any collection (garbage included); after-GC peak = most still in use after one, an upper bound of the live data (a young collection"
        + " leaves the old generation's garbage; jcmd <pid> GC.class_histogram during a run shows what is live).");
  }
}
