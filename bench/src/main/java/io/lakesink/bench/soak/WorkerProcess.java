package io.lakesink.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One worker slot: a {@code lakesink run --config FILE} process, killed, stopped and restarted by
 * the driver. Every incarnation appends to the slot's log, after a marker line naming its pid.
 */
final class WorkerProcess {
  private static final long WAIT_SECONDS = 120;

  final int slot;
  final Path log;
  private final List<String> command;
  private Process process;
  private int starts;
  private boolean paused;
  private boolean expectedExit;

  WorkerProcess(int slot, Path config, Path log, SoakSettings settings) {
    this.slot = slot;
    this.log = log;
    this.command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(settings.workerJvmOptions());
    command.addAll(List.of("-cp", settings.workerClasspath(), "io.lakesink.app.Main", "run", "--config", config.toString()));
  }

  void start() {
    starts++;
    expectedExit = false;
    paused = false;
    try {
      Files.writeString(log, "=== soak: worker " + slot + " start " + starts + " at " + Instant.now() + "\n",
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
      Files.writeString(log, "=== soak: worker " + slot + " start " + starts + " is pid " + process.pid() + "\n",
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start worker " + slot + ": " + command, e);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  boolean paused() {
    return paused;
  }

  /** A worker that ended without the driver ending it; null while it runs or when the driver ended it. */
  Integer unexpectedExitCode() {
    return process != null && !process.isAlive() && !expectedExit ? process.exitValue() : null;
  }

  /** SIGKILL ({@code kill -9}): no shutdown hook, no flush, no leave-group. */
  void kill() {
    expectedExit = true;
    note("SIGKILL pid " + process.pid());
    process.destroyForcibly();
    await();
    paused = false;
  }

  /** SIGSTOP: the JVM freezes mid-whatever, heartbeats included, until {@link #resume}. */
  void pause() {
    note("SIGSTOP pid " + process.pid());
    signal("STOP");
    paused = true;
  }

  void resume() {
    if (paused) {
      signal("CONT");
      note("SIGCONT pid " + process.pid());
      paused = false;
    }
  }

  /** SIGTERM, as an orchestrator stops a replica: the worker's shutdown hook stops it cleanly. */
  void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    resume();
    expectedExit = true;
    process.destroy();
    try {
      if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        await();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Last resort, for the driver's own exit. */
  void destroy() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private void await() {
    try {
      if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Worker " + slot + " (pid " + process.pid() + ") did not end within " + WAIT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
      if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A line in the worker's log, so its events can be read against the driver's actions. */
  private void note(String what) {
    try {
      Files.writeString(log, "=== soak: " + Instant.now() + " " + what + "\n", StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
