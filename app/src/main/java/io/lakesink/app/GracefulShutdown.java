package io.lakesink.app;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * What {@code lakesink run} does on SIGTERM (and SIGINT): a JVM shutdown hook asks the worker to
 * stop, waits up to a bounded time for the run to flush, commit and leave the group, then halts
 * with the run's own exit code ({@code 0} when every table is delivering). Without the halt the
 * JVM would exit 143 after the hooks even when the shutdown was clean. A second signal halts at
 * once with {@link ExitCode#SHUTDOWN_INCOMPLETE}: the operator has decided not to wait, and
 * uncommitted events are simply read again at the next start.
 *
 * <p>The second signal needs {@code sun.misc.Signal}: once shutdown has begun the JVM's own
 * handler blocks on the shutdown lock, so a plain shutdown hook never sees it.
 */
final class GracefulShutdown implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GracefulShutdown.class);
  static final String TIMEOUT_PROPERTY = "lakesink.shutdown.timeout";
  static final String TIMEOUT_ENV = "LAKESINK_SHUTDOWN_TIMEOUT";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private final Duration timeout;
  private final IntConsumer exit;
  private final IntConsumer halt;
  private final CompletableFuture<Integer> finished = new CompletableFuture<>();
  private final AtomicInteger signals = new AtomicInteger();
  private volatile Runnable stop = () -> {};
  private volatile boolean stopping;
  private Thread hook;
  private final java.util.Map<Signal, sun.misc.SignalHandler> previous = new java.util.HashMap<>();

  /**
   * @param exit starts the JVM's shutdown (its hooks run)
   * @param halt ends the JVM at once
   */
  GracefulShutdown(Duration timeout, IntConsumer exit, IntConsumer halt) {
    this.timeout = timeout;
    this.exit = exit;
    this.halt = halt;
  }

  /** Installs the hook and the signal handlers for the life of one run. */
  static GracefulShutdown install(Duration timeout) {
    GracefulShutdown s = new GracefulShutdown(timeout,
        // From its own thread: System.exit blocks until the hooks are done, and the hook halts.
        code -> new Thread(() -> System.exit(code), "lakesink-exit").start(),
        code -> Runtime.getRuntime().halt(code));
    s.hook = new Thread(s::shutDown, "lakesink-shutdown");
    Runtime.getRuntime().addShutdownHook(s.hook);
    for (String name : new String[] {"TERM", "INT"}) {
      Signal signal = new Signal(name);
      s.previous.put(signal, Signal.handle(signal, sig -> s.onSignal()));
    }
    return s;
  }

  /** What stops the worker; set once it exists. */
  void onStop(Runnable stop) {
    this.stop = stop;
    if (stopping) {
      stop.run(); // the signal came while the worker was being built
    }
  }

  /** The run returned (worker closed, group left) with this exit code. */
  void finished(int exitCode) {
    finished.complete(exitCode);
  }

  /** A signal: the first starts the orderly shutdown, the next one halts. */
  void onSignal() {
    if (signals.incrementAndGet() == 1) {
      // Runs the shutdown hooks (ours among them); the exit status is the one ours halts with.
      exit.accept(ExitCode.SHUTDOWN_INCOMPLETE.code);
    } else {
      log.warn("Second stop signal: exiting without waiting for the final flush; uncommitted events are read again at the next start");
      halt.accept(ExitCode.SHUTDOWN_INCOMPLETE.code);
    }
  }

  /** The shutdown hook's body: stop, wait, halt with the run's exit code. */
  void shutDown() {
    log.info("Stopping: flushing every table, committing and leaving the consumer group (at most {})", timeout);
    stopping = true;
    stop.run();
    try {
      halt.accept(finished.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      log.warn("The final flush did not finish within {} ({} or -D{}): exiting without it; uncommitted events are read again at the next start",
          timeout, TIMEOUT_ENV, TIMEOUT_PROPERTY);
      halt.accept(ExitCode.SHUTDOWN_INCOMPLETE.code);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      halt.accept(ExitCode.SHUTDOWN_INCOMPLETE.code);
    } catch (ExecutionException e) {
      halt.accept(ExitCode.CRASHED.code);
    }
  }

  /** Removes the hook after a run that ended by itself; during shutdown the hook is running. */
  @Override
  public void close() {
    if (hook == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
      // The JVM's own handlers again: a later signal (the demo after its run) exits as usual.
      previous.forEach(Signal::handle);
    } catch (IllegalStateException alreadyShuttingDown) {
      // the hook is running and halts the JVM
    }
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m)?");

  /**
   * The shutdown timeout from {@code -Dlakesink.shutdown.timeout} or {@code
   * LAKESINK_SHUTDOWN_TIMEOUT} (seconds, or with a unit: {@code 500ms}, {@code 30s}, {@code 2m});
   * a configuration key will replace both.
   */
  static Duration timeout(String property, String environment) {
    String value = property != null ? property : environment;
    if (value == null || value.isBlank()) {
      return DEFAULT_TIMEOUT;
    }
    Matcher m = DURATION.matcher(value.trim());
    if (!m.matches()) {
      throw new io.lakesink.error.ConfigurationException(
          TIMEOUT_ENV + " is '" + value + "': give a duration such as 30s, 500ms or 2m.");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2) == null ? "s" : m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofSeconds(n);
    };
  }
}
