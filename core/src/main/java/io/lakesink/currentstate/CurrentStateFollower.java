package io.lakesink.currentstate;

import io.lakesink.maintenance.StepGate;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a kept current-state table's follows on a thread of their own, off the changelog's commit
 * path: a changelog commit only {@link #wake}s it. Follows <em>coalesce</em>: a wake while a
 * follow runs leaves one follow pending, started right after, and that one applies everything the
 * changelog committed since the version the table reflects, in one merge. So N changelog commits
 * during one follow cost one more follow, and the table is at most one follow behind: the changes
 * committed while a follow runs are applied by the next one.
 *
 * <p>It is also the {@link StepGate} of the kept table's optimize: a step and a follow both commit
 * to the table, and one planned before the other's commit would lose to it, so they take turns. A
 * step waits for the follow that runs; a follow does not start while a step runs; and a step that
 * asked while a follow ran gets the next turn (no follow starts after that one until the step
 * held and released the gate), so neither can keep the other out for longer than one piece of
 * work. Between two steps a follow gets its turn: the maintenance runner waits for a commit of the
 * table before the next step while the follower is {@link #behind}.
 *
 * <p>A changelog commit's follow usually starts before the commit, beside the write of its rows
 * ({@link #startNow}, {@link CurrentStateTable#followEarly}): it needs the follower idle, and it
 * commits once the changelog's commit has landed; when it cannot apply the commit, an ordinary
 * follow starts right after it.
 *
 * <p>{@link #stop} ends it for good (the worker stops: the next start catches up from the
 * table's log); {@link #pause} while this worker writes none of the changelog's partitions (a
 * rebalance moved them away: the new owner's worker keeps the table), {@link #resume} when it
 * writes some again.
 */
public final class CurrentStateFollower implements StepGate {
  private static final Logger log = LoggerFactory.getLogger(CurrentStateFollower.class);

  private final CurrentStateTable table;
  private final Executor executor;
  /** A follow asked for and not started yet. */
  private boolean pending;
  private boolean running;
  /** An optimize step of the table runs. */
  private boolean held;
  /** An optimize step asked while a follow ran: it goes first. */
  private boolean stepWaiting;
  private boolean paused;
  private boolean stopped;

  /** @param executor runs the follows; one at a time is started */
  public CurrentStateFollower(CurrentStateTable table, Executor executor) {
    this.table = table;
    this.executor = executor;
  }

  public CurrentStateTable table() {
    return table;
  }

  /** The changelog committed (or the table is behind): follow, now or right after the follow that runs. */
  public synchronized void wake() {
    pending = true;
    startIfDue();
  }

  private void startIfDue() {
    if (!pending || running || held || stepWaiting || paused || stopped) {
      return;
    }
    pending = false;
    running = true;
    try {
      executor.execute(() -> run(() -> {
        table.follow(); // records its own failures; the next wake tries again
        return true;
      }));
    } catch (RuntimeException e) {
      running = false;
      pending = true; // tried again at the next wake
      log.warn("Cannot start a follow of the current-state table {}: {}", table.name(), e.toString());
    }
  }

  /**
   * Starts {@code follow} now as the table's next follow, if the follower is idle: no follow runs
   * or waits, no optimize step of the table holds it or waits for it, not paused or stopped. When
   * {@code follow} returns false (it could not apply what it was given), an ordinary follow is
   * asked for and starts right after it.
   *
   * @return whether it started
   */
  public synchronized boolean startNow(BooleanSupplier follow) {
    if (busy() || paused) {
      return false;
    }
    running = true;
    try {
      executor.execute(() -> run(follow));
      return true;
    } catch (RuntimeException e) {
      running = false;
      return false;
    }
  }

  private void run(BooleanSupplier follow) {
    boolean done = false;
    try {
      done = follow.getAsBoolean();
    } finally {
      synchronized (this) {
        pending |= !done;
        running = false;
        notifyAll();
        startIfDue();
      }
    }
  }

  /**
   * Whether a wake now would not start a follow at once: one runs or waits (for the one that runs,
   * or for an optimize step of the table), or the follower stopped. A changelog commit hands its
   * rows over only while this is false ({@link KeptTableUpkeep#changelogCommitted(long, java.util.List,
   * java.util.List, java.util.List)}): they are taken by the follow it starts right away, not held
   * while one runs.
   */
  public synchronized boolean busy() {
    return running || pending || held || stepWaiting || stopped;
  }

  /** Whether a follow runs or is pending, or the table was behind its changelog when last looked at. */
  public synchronized boolean behind() {
    return pending || running || table.progress().lagVersions() > 0;
  }

  @Override
  public synchronized boolean tryHold() {
    if (running) {
      stepWaiting = true; // the follow that runs is the last before the step
      return false;
    }
    held = true;
    stepWaiting = false;
    return true;
  }

  @Override
  public synchronized void release() {
    held = false;
    startIfDue();
  }

  /**
   * The maintenance runner no longer wants a step (its optimization ended, or it is not polled
   * any more): a step that asked earlier no longer keeps follows waiting.
   */
  public synchronized void noStepWaiting() {
    stepWaiting = false;
    startIfDue();
  }

  /** This worker writes none of the changelog's partitions any more: no follow starts (one running ends as it will). */
  public synchronized void pause() {
    paused = true;
  }

  /** This worker writes the changelog again. */
  public synchronized void resume() {
    paused = false;
    startIfDue();
  }

  public synchronized boolean paused() {
    return paused;
  }

  /**
   * Lets the follows asked for so far finish, up to {@code timeout}, then starts no more. No
   * optimize step of the table starts any more (the worker's loop has ended), so a follow waiting
   * for a step's turn starts now, and one held by a step that runs starts when the step ends: a
   * worker stopping at the end of its input leaves the table current. A follow still running after
   * the timeout is abandoned: it ends on its own thread, and its commit, if it lands, is fenced like
   * any other; the next start of the worker catches the table up from its log.
   *
   * @return whether no follow was running or pending when it stopped
   */
  public synchronized boolean stop(Duration timeout) {
    stepWaiting = false;
    startIfDue();
    boolean idle = awaitUntil(() -> !running && !(pending && !paused), timeout);
    stopped = true;
    if (!idle) {
      log.info("A follow of the current-state table {} is still running at stop; the next start catches the table up",
          table.name());
    }
    return idle;
  }

  /**
   * Waits until no follow runs and none can start now: nothing pending, or a pending one held back
   * (by an optimize step that runs or goes first, a pause, a stop), up to {@code timeout}.
   *
   * @return whether that happened in time
   */
  public synchronized boolean awaitIdle(Duration timeout) {
    return awaitUntil(() -> !running && !(pending && !held && !stepWaiting && !paused && !stopped), timeout);
  }

  /** Waits, holding this object's monitor between checks, until {@code done}, up to {@code timeout}. */
  private boolean awaitUntil(java.util.function.BooleanSupplier done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
