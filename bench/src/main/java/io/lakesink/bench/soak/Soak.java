package io.lakesink.bench.soak;

import io.lakesink.app.LocalKafkaBroker;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The kill -9 soak (bench/soak): a Kafka broker in this JVM, worker processes in one consumer
 * group, and for each storage one {@link SoakRun}. Settings from the environment (see {@link
 * SoakSettings#fromEnvironment}); exits 1 on any violation.
 */
public final class Soak {
  private Soak() {}

  public static void main(String[] args) throws Exception {
    // Before the first logger: the driver's own lakesink lines (table reads) are noise here.
    System.setProperty("LAKESINK_LOG_LEVEL", "WARN");
    Map<String, String> env = System.getenv();
    Path workDir = env.containsKey("SOAK_DIR") ? Path.of(env.get("SOAK_DIR")) : Files.createTempDirectory("lakesink-soak");
    SoakSettings settings = SoakSettings.fromEnvironment(env, workDir);
    List<SoakReport> reports = run(settings, System.out);
    boolean passed = reports.stream().allMatch(SoakReport::passed);
    System.out.printf("%nsoak %s: seed %d, %s%n", passed ? "PASSED" : "FAILED", settings.seed(),
        reports.stream().map(r -> r.storage() + " " + (r.passed() ? "passed" : "FAILED")).toList());
    System.exit(passed ? 0 : 1);
  }

  /** Runs the soak on each storage of {@code settings}, one after the other. */
  public static List<SoakReport> run(SoakSettings settings, PrintStream out) throws Exception {
    out.printf("soak: seed %d (SEED=%d replays the change stream and the random choices; the moments depend on the machine), %d kills and %d stops per storage on %s,"
            + " %d workers, %d partitions; work directory %s%n",
        settings.seed(), settings.seed(), settings.kills(), settings.stops(), settings.storages(), settings.workers(),
        settings.partitions(), settings.workDir());
    List<SoakReport> reports = new ArrayList<>();
    try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
      for (String kind : settings.storages()) {
        Path dir = settings.workDir().resolve(kind);
        try (SoakStorage storage = SoakStorage.open(kind, dir)) {
          SoakReport report = new SoakRun(settings, broker, storage, dir, out).run();
          out.print(report.text());
          reports.add(report);
        }
      }
    }
    return reports;
  }
}
