package io.lakesink.bench;

import static io.lakesink.bench.ChangelogThroughputBench.d;
import static io.lakesink.bench.ChangelogThroughputBench.load;
import static io.lakesink.bench.ChangelogThroughputBench.store;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import io.lakesink.app.Pipeline;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What Azure storage costs the changelog worker: the same topic delivered by the real worker
 * ({@code lakesink run --stop-at-end}) into a local directory and into Azurite, one fresh worker
 * JVM per storage, so each peak RSS is its own. Driven by {@code bench/run storage}, which starts
 * the Kafka broker (through {@link ChangelogThroughputBench}) and Azurite.
 *
 * <ul>
 *   <li>{@code container}: creates the blob container (lakesink never creates one).
 *   <li>{@code run}: the worker over {@code bench.p1} into one storage, timed as in
 *       {@link ChangelogThroughputBench}; each flush's write (Parquet files, which on Azure means
 *       uploads) and commit (Delta log put-if-absent, checkpoint) timed apart. Then, in the same
 *       JVM and after the peak RSS is taken, a commit probe: single-row appends to a side table,
 *       the per-commit price a table with little traffic pays at every flush interval.
 *   <li>{@code verify}: reads the table back from that storage, every offset exactly once.
 *   <li>{@code report}: both storages side by side, and the ratio.
 * </ul>
 */
public final class StorageCostBench {
  /** Where the tables go inside the container, as a user would configure it. */
  static final String PREFIX = "lakesink";
  static final String PROBE_TABLE = "bench_commit_probe";

  private StorageCostBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
      return;
    }
    Map<String, String> o = ChangelogThroughputBench.options(Arrays.copyOfRange(args, 1, args.length));
    switch (args[0]) {
      case "container" -> createContainer(o);
      case "run" -> run(o);
      case "verify" -> verify(o);
      case "report" -> report(o);
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println(
        """
        Usage (normally through bench/run storage):
          container --connection-string CS --container NAME
          run     --storage local|azure --bootstrap B --events N --result FILE [--flush-rows R] [--probe-commits K]
                  (local: --data DIR; azure: --connection-string CS --container NAME)
          verify  --storage local|azure --events N --result FILE (and --data or --connection-string/--container)
          report  --results DIR
        """);
    System.exit(1);
  }

  private static void createContainer(Map<String, String> o) {
    new BlobServiceClientBuilder().connectionString(o.get("connection-string")).buildClient()
        .createBlobContainerIfNotExists(o.get("container"));
  }

  /** The body of the worker's {@code storage:} section for the chosen storage. */
  private static String storage(Map<String, String> o) {
    return switch (o.get("storage")) {
      case "local" -> ChangelogThroughputBench.localStorage(Path.of(o.get("data")));
      case "azure" -> """
            type: azure
            container: %s
            prefix: %s
            connection_string: "%s"
            allow_insecure_http: true
          """.formatted(o.get("container"), PREFIX, o.get("connection-string")); // Azurite is plain http; an https string is unaffected
      default -> throw new IllegalArgumentException("--storage is local or azure, not " + o.get("storage"));
    };
  }

  private static WorkerConfig config(Map<String, String> o, String bootstrap, long flushRows) {
    String yaml = ChangelogThroughputBench.config(bootstrap, ChangelogThroughputBench.topic(1), storage(o), flushRows, "1GB");
    return ConfigLoader.fromSystemEnvironment().parse(yaml, "bench");
  }

  // ------------------------------------------------------------------ run

  private static void run(Map<String, String> o) throws IOException {
    long events = Long.parseLong(o.get("events"));
    long flushRows = Long.parseLong(o.getOrDefault("flush-rows", "200000"));
    int probeCommits = Integer.parseInt(o.getOrDefault("probe-commits", "20"));
    WorkerConfig config = config(o, o.get("bootstrap"), flushRows);
    ChangelogThroughputBench.PhaseTimer phases = new ChangelogThroughputBench.PhaseTimer();
    Properties r;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      System.out.println("Storage: " + storage.describe());
      String loadBefore = loadAverage();
      r = ChangelogThroughputBench.runWorker(config, storage, 1, events, phases);
      // The machine may be shared: the 1-minute load average before and after, next to the figures.
      r.setProperty("load", loadBefore + "→" + loadAverage());
      r.setProperty("storage", o.get("storage"));
      r.setProperty("write_ms_each", millisList(phases.writeEach));
      r.setProperty("commit_ms_each", millisList(phases.commitEach));
      r.setProperty("table_mb", String.valueOf(tableBytes(o, storage) >> 20));
      // After the worker's peak RSS is recorded: the probe must not count in it.
      probe(storage, probeCommits, r);
    }
    store(r, Path.of(o.get("result")));
    System.out.printf(Locale.ROOT, "%s: %,d events in %.2f s = %,.0f events/s, peak RSS %,d MB, %s commits (commit ms: %s)%n",
        o.get("storage"), events, d(r, "seconds"), d(r, "events_per_second"), Long.parseLong(r.getProperty("vmhwm_mb")),
        r.getProperty("commits"), r.getProperty("commit_ms_each"));
    if (!Boolean.parseBoolean(r.getProperty("healthy"))) {
      System.exit(2);
    }
  }

  /**
   * {@code commits} single-row appends to a side table, each written then committed: the fixed
   * cost of one flush (a tiny Parquet file, the log write, every 10th a checkpoint) on this
   * storage, which is what a quiet table pays every flush interval. The first append, which
   * creates the table, is not counted.
   */
  private static void probe(TableStorage storage, int commits, Properties r) {
    if (commits <= 0) {
      return;
    }
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(PROBE_TABLE));
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT));
    List<Long> write = new ArrayList<>();
    List<Long> commit = new ArrayList<>();
    for (int i = 0; i <= commits; i++) {
      AppendRequest request = new AppendRequest(
          columns, List.of(), Map.of(), List.<Object[]>of(new Object[] {(long) i}), new CommitOffsets(Map.of("bench-probe", (long) i + 1), Map.of()), Map.of());
      long t0 = System.nanoTime();
      DeltaTable.PreparedAppend prepared = table.prepareAppend(request);
      long t1 = System.nanoTime();
      table.commit(prepared);
      long t2 = System.nanoTime();
      if (i > 0) {
        write.add(t1 - t0);
        commit.add(t2 - t1);
      }
    }
    r.setProperty("probe_commits", String.valueOf(commits));
    r.setProperty("probe_write_ms_each", millisList(write));
    r.setProperty("probe_commit_ms_each", millisList(commit));
  }

  /** The table's bytes: the directory on disk, or the blobs under its prefix in the container. */
  private static long tableBytes(Map<String, String> o, TableStorage storage) throws IOException {
    if (o.get("storage").equals("local")) {
      Path dir = Path.of(o.get("data"));
      return Files.exists(dir) ? ChangelogThroughputBench.directoryBytes(dir) : 0;
    }
    BlobContainerClient container =
        new BlobServiceClientBuilder().connectionString(o.get("connection-string")).buildClient().getBlobContainerClient(o.get("container"));
    long bytes = 0;
    for (BlobItem blob : container.listBlobs(new com.azure.storage.blob.models.ListBlobsOptions().setPrefix(PREFIX + "/" + ChangelogThroughputBench.TABLE), null)) {
      bytes += blob.getProperties().getContentLength() == null ? 0 : blob.getProperties().getContentLength();
    }
    return bytes;
  }

  // ------------------------------------------------------------------ verify

  private static void verify(Map<String, String> o) throws IOException {
    long events = Long.parseLong(o.get("events"));
    Path resultFile = Path.of(o.get("result"));
    Properties r = load(resultFile);
    WorkerConfig config = config(o, "unused:9092", 1);
    boolean ok;
    try (TableStorage storage = Pipeline.storage(config.storage())) {
      ok = ChangelogThroughputBench.verifyTable(storage, config.subscriptions().get(0), 1, events, r);
    }
    store(r, resultFile);
    if (!ok) {
      System.exit(3);
    }
  }

  // ------------------------------------------------------------------ report

  private static void report(Map<String, String> o) throws IOException {
    Path dir = Path.of(o.get("results"));
    List<Properties> local = runs(dir, "local");
    List<Properties> azure = runs(dir, "azure");
    Properties azurite = load(dir.resolve("azurite.properties"));
    System.out.println();
    System.out.println("Storage cost: changelog worker (lakesink run --stop-at-end), Kafka → committed Delta, local disk vs Azurite");
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "%-8s %10s %8s %10s %12s %8s %10s %10s %24s %8s %9s %9s %12s",
        "storage", "events", "wall s", "events/s", "peak RSS MB", "commits", "write s", "commit s", "commit ms min/med/max",
        "CPU s", "table MB", "verified", "load 1m"));
    List<Properties> all = new ArrayList<>(local);
    all.addAll(azure);
    for (Properties r : all) {
      double[] commits = doubles(r.getProperty("commit_ms_each", ""));
      System.out.println(String.format(Locale.ROOT, "%-8s %,10d %8.2f %,10.0f %,12d %8s %10.2f %10.2f %24s %8.2f %,9d %9s %12s",
          r.getProperty("storage"), Long.parseLong(r.getProperty("events")), d(r, "seconds"), d(r, "events_per_second"),
          Long.parseLong(r.getProperty("vmhwm_mb")), r.getProperty("commits"), d(r, "write_seconds"), d(r, "commit_seconds"),
          spread(commits), d(r, "cpu_seconds"), Long.parseLong(r.getProperty("table_mb", "0")),
          r.getProperty("verified", "not run"), r.getProperty("load", "-")));
    }
    if (!local.isEmpty() && !azure.isEmpty()) {
      // Runs go local then Azure, pair by pair: comparing within a pair keeps a change of the
      // machine's load (other builds) between pairs out of the ratio.
      System.out.println();
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < Math.min(local.size(), azure.size()); i++) {
        Properties l = local.get(i);
        Properties a = azure.get(i);
        double ratio = d(a, "events_per_second") / d(l, "events_per_second");
        ratios.add(ratio);
        System.out.println(String.format(Locale.ROOT,
            "run %d, Azurite / local: throughput %.2f× (%,.0f vs %,.0f events/s), flush write time %.2f×, commit time %.2f×, peak RSS %.2f×",
            i + 1, ratio, d(a, "events_per_second"), d(l, "events_per_second"), d(a, "write_seconds") / d(l, "write_seconds"),
            d(a, "commit_seconds") / d(l, "commit_seconds"), d(a, "vmhwm_mb") / d(l, "vmhwm_mb")));
      }
      if (ratios.size() > 1) {
        double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        System.out.println(String.format(Locale.ROOT, "median of the paired throughput ratios: %.2f×", median));
      }
    }
    System.out.println();
    System.out.println("Commit probe (single-row appends to a side table after the run, same JVM; what one flush of a quiet table costs):");
    for (Properties r : all) {
      if (r.getProperty("probe_commit_ms_each") != null) {
        System.out.println(String.format(Locale.ROOT, "  %-6s %s commits: write (tiny Parquet) ms min/med/p90/max %s; commit ms min/med/p90/max %s",
            r.getProperty("storage"), r.getProperty("probe_commits"), spread4(doubles(r.getProperty("probe_write_ms_each"))),
            spread4(doubles(r.getProperty("probe_commit_ms_each")))));
      }
    }
    if (!all.isEmpty()) {
      Properties first = all.get(0);
      System.out.println();
      System.out.println("Worker JVM: " + first.getProperty("jvm_args") + "; flush_rows " + first.getProperty("flush_rows")
          + ", flush_bytes " + first.getProperty("flush_bytes") + ", flush_interval 10m; 1 partition, fresh JVM and consumer group per storage.");
    }
    System.out.println("write s = BEFORE_WRITE→BEFORE_COMMIT of every flush (changelog rows + Parquet files; on Azure the uploads);");
    System.out.println("commit s = Delta commit (log entry put-if-absent) + post-commit hooks (checkpoint, checksum).");
    System.out.println();
    System.out.println("Caveat: Azurite is Microsoft's Azure Storage emulator, a single-threaded Node.js process on this same 2-core");
    System.out.println("machine, storing blobs on local disk, reached over loopback HTTP (no TLS). It measures what lakesink's Azure path");
    System.out.println("costs on the client (Blob SDK, request signing, uploads, put-if-absent commits) and its request pattern, not");
    System.out.println("Azure's latency or throughput: real Azure adds network round trips (milliseconds to tens of milliseconds per");
    System.out.println("request) but serves requests in parallel, while Azurite handles one at a time and takes its CPU from the worker's two cores.");
    if (!azurite.isEmpty()) {
      System.out.println(String.format(Locale.ROOT, "Azurite process during the Azure run(s): %.1f CPU s; peak RSS %s MB (VmHWM of the node process).",
          d(azurite, "cpu_seconds"), azurite.getProperty("vmhwm_mb", "?")));
    }
  }

  private static List<Properties> runs(Path dir, String storage) throws IOException {
    List<Properties> out = new ArrayList<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().matches("run-" + storage + "-.*\\.properties")).sorted().toList()) {
        out.add(load(f));
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ helpers

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "?";
    }
  }

  private static String millisList(List<Long> nanos) {
    StringBuilder s = new StringBuilder();
    for (long n : nanos) {
      s.append(s.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, "%.1f", n / 1e6));
    }
    return s.toString();
  }

  private static double[] doubles(String list) {
    return list == null || list.isBlank()
        ? new double[0]
        : Arrays.stream(list.split(",")).mapToDouble(Double::parseDouble).sorted().toArray();
  }

  private static String spread(double[] sorted) {
    if (sorted.length == 0) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.0f/%.0f/%.0f", sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
  }

  private static String spread4(double[] sorted) {
    if (sorted.length == 0) {
      return "-";
    }
    int p90 = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.9) - 1);
    return String.format(Locale.ROOT, "%.1f/%.1f/%.1f/%.1f", sorted[0], sorted[sorted.length / 2], sorted[p90], sorted[sorted.length - 1]);
  }
}
