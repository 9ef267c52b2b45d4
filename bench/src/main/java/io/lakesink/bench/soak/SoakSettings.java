package io.lakesink.bench.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What one soak does: how many kill points and pauses, on which storage, with how many workers
 * and partitions, fed how fast. {@link #fromEnvironment} gives the full run by default.
 *
 * @param seed the change stream's and the chaos schedule's random seed (printed, for a replay)
 * @param kills SIGKILLs of a worker, per storage
 * @param stops SIGSTOPs of a worker for {@code pause}, per storage
 * @param storages {@code local} and/or {@code azure}, run one after the other
 * @param maxKillDelay the random moment: a uniform delay up to this after the workers made progress
 * @param pause how long a SIGSTOPped worker stays stopped; longer than {@link #MAX_POLL_INTERVAL}
 * @param stallTimeout no delivery progress for this long is a violation (the soak stops there)
 * @param workerJvmOptions options of each worker JVM (heap, GC)
 * @param workerClasspath the classpath the workers run on (the application's)
 */
public record SoakSettings(
    long seed,
    int kills,
    int stops,
    List<String> storages,
    int partitions,
    int workers,
    int eventsPerSecond,
    Duration maxKillDelay,
    Duration pause,
    Duration stallTimeout,
    Duration catchUpTimeout,
    List<String> workerJvmOptions,
    String workerClasspath,
    Path workDir) {

  /** The workers' {@code max.poll.interval.ms}: low, so a stopped worker is evicted quickly. */
  public static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(10);
  /** The workers' {@code session.timeout.ms}: the broker's minimum, so a killed worker's partitions move quickly. */
  public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);

  public SoakSettings {
    storages = List.copyOf(storages);
    workerJvmOptions = List.copyOf(workerJvmOptions);
    if (pause.compareTo(MAX_POLL_INTERVAL) <= 0) {
      throw new IllegalArgumentException("PAUSE_MS must exceed max.poll.interval.ms (" + MAX_POLL_INTERVAL.toMillis() + ")");
    }
    for (String s : storages) {
      if (!s.equals("local") && !s.equals("azure")) {
        throw new IllegalArgumentException("STORAGE must be local, azure or both, not '" + s + "'");
      }
    }
  }

  /**
   * From environment variables: KILLS (200), STOPS (KILLS / 25, at least 1), STORAGE
   * (local|azure|both, default both), PARTITIONS (6), WORKERS (3), SEED (random), RATE (events/s,
   * 100), KILL_DELAY_MAX_MS (6000), PAUSE_MS (14000), STALL_TIMEOUT_S (300), CATCH_UP_TIMEOUT_S
   * (900), WORKER_OPTS, WORKER_CLASSPATH (this JVM's); the work directory is the caller's.
   */
  public static SoakSettings fromEnvironment(Map<String, String> env, Path workDir) {
    int kills = integer(env, "KILLS", 200);
    String storage = env.getOrDefault("STORAGE", "both");
    return new SoakSettings(
        env.containsKey("SEED") ? Long.parseLong(env.get("SEED")) : System.nanoTime(),
        kills,
        integer(env, "STOPS", Math.max(1, kills / 25)),
        storage.equals("both") ? List.of("local", "azure") : List.of(storage),
        integer(env, "PARTITIONS", 6),
        integer(env, "WORKERS", 3),
        integer(env, "RATE", 100),
        Duration.ofMillis(integer(env, "KILL_DELAY_MAX_MS", 6000)),
        Duration.ofMillis(integer(env, "PAUSE_MS", 14000)),
        Duration.ofSeconds(integer(env, "STALL_TIMEOUT_S", 300)),
        Duration.ofSeconds(integer(env, "CATCH_UP_TIMEOUT_S", 900)),
        Arrays.asList(env.getOrDefault("WORKER_OPTS", DEFAULT_WORKER_OPTS).trim().split("\\s+")),
        env.getOrDefault("WORKER_CLASSPATH", System.getProperty("java.class.path")),
        workDir);
  }

  /**
   * Small heap, serial GC and the C1 compiler only: three workers, the broker and the driver
   * share two cores, and a worker restarted after a kill should be back within seconds.
   */
  static final String DEFAULT_WORKER_OPTS = "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  private static int integer(Map<String, String> env, String name, int fallback) {
    String v = env.get(name);
    try {
      return v == null || v.isBlank() ? fallback : Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, not '" + v + "'");
    }
  }
}
