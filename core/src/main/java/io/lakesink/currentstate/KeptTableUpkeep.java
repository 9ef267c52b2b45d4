package io.lakesink.currentstate;

import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.IdleDaemonPool;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.error.TableFailureException;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.maintenance.MaintenanceRunner;
import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.TableQuarantine;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything keeping a current-state table from its changelog takes, beside the table itself
 * ({@link CurrentStateTable}): the thread that follows the changelog's commits, the table's
 * catalog entry, its optimize and vacuum, its quarantine record, and which of the changelog's
 * partitions this worker writes. The changelog's delivery tells it what happened (a commit, the
 * worker's loop, partitions assigned or revoked, a stop) and shows its {@link #status()}; it
 * knows nothing else of the changelog.
 */
public final class KeptTableUpkeep {
  private static final Logger log = LoggerFactory.getLogger(KeptTableUpkeep.class);
  /** How often a kept table that is behind (a failed follow, a catch-up at start) is tried from the worker's loop. */
  static final long FOLLOW_RETRY_MILLIS = 10_000;
  /** What an early follow that ended without the changelog's commit leaves in its place, for the writer. */
  private static final CurrentStateTable.Landed GAVE_UP = new CurrentStateTable.Landed(Long.MIN_VALUE, List.of());
  /** How often a quarantined kept table looks for an operator's release (as a worker does for its tables). */
  static final long RELEASE_CHECK_MILLIS = 10_000;
  /** How long a stop waits for the kept table's follows before abandoning one (the next start catches up). */
  static final Duration FOLLOW_SETTLE = Duration.ofSeconds(30);

  private final CurrentStateTable kept;
  private final Clock clock;
  /** Runs the kept table's follows on a thread of its own, woken by the changelog's commits. */
  private final CurrentStateFollower follower;
  private final KeptTableRegistration registration;
  /** The kept table's optimize and vacuum, as a MERGE table's: clustered on the key, a step and a follow take turns. */
  private final MaintenanceRunner maintenance;
  /** The kept table's refusals, recorded as a quarantine record of {@code <table>} (not of the changelog). */
  private final TableQuarantine quarantine;
  /** The changelog's partitions this worker writes: without any, another worker keeps the table. */
  private final Set<SourcePartition> owned = new HashSet<>();
  private long commitsSeen;
  private long nextFollow;
  /** Whether the kept table's current refusal is recorded; then an operator's release lets it follow again. */
  private boolean recorded;
  private long nextReleaseCheck;
  /**
   * Where the changelog's writer hands the outcome of the commit being written to the early follow
   * of its rows; null when none runs. Set and cleared by the changelog's writer (one flush at a
   * time), volatile as writer threads take turns.
   */
  private volatile CompletableFuture<CurrentStateTable.Landed> landing;

  /** @param subscription the changelog's subscription (its key, its quarantine settings) */
  public KeptTableUpkeep(CurrentStateTable kept, Subscription subscription, DeliveryContext context) {
    this.kept = kept;
    this.clock = context.clock();
    // A follow's changes count in the worker's buffer budget while it runs: its end may let reading go on.
    this.follower = new CurrentStateFollower(kept,
        context.writers().progress().signalling(IdleDaemonPool.create("lakesink-follow-" + kept.name() + "-", 1)));
    this.registration = new KeptTableRegistration(kept, context.catalog(), context.catalogExecutor(), clock);
    this.maintenance = new MaintenanceRunner(kept.name(), kept.table(), subscription.primaryKey(), true, follower,
        context.maintenance(), clock);
    this.quarantine = new TableQuarantine(kept.name(), subscription, context.quarantine(), clock);
    if (quarantine.initialState() instanceof DeliveryState.Quarantined q) {
      // Refused before a restart: stays stopped until released (bin/lakesink quarantine release), not looked at again.
      kept.stop(new TableFailureException(q.record().reason(), null, null));
      recorded = true;
    }
  }

  /**
   * The changelog committed {@code version}. The follow runs on its own thread: this only wakes it,
   * so the changelog's commit path never waits for the kept table. A failed follow is the kept
   * table's own (its status says so); the changelog's commit stands.
   */
  public void changelogCommitted(long version) {
    kept.changelogCommitted(version);
    follower.wake();
  }

  /**
   * As {@link #changelogCommitted(long)}, with the commit's data files and the rows it wrote into
   * them (aligned with {@code columns}, never changed afterwards): the follow applies a commit of
   * one file from these rows instead of reading the file back. Only while the follower is idle:
   * the follow this wakes takes them at once. While a follow runs (or waits) they are not kept,
   * because holding a flush's rows for the length of a follow, beside the next flush's buffers,
   * would raise the heap a worker needs; the follow after it reads the file.
   */
  public void changelogCommitted(long version, List<TableFile> dataFiles, List<Column> columns, List<Object[]> rows) {
    CompletableFuture<CurrentStateTable.Landed> early = landing;
    if (early != null) {
      landing = null;
      kept.changelogCommitted(version); // before the early follow may commit: it is behind until then
      if (early.complete(new CurrentStateTable.Landed(version, dataFiles))) {
        return; // taken: it commits, or asks for an ordinary follow, which reads the file
      }
      // It gave up before the commit landed: the commit is followed as any other.
    }
    if (follower.busy() || kept.refusal().isPresent()) {
      kept.changelogCommitted(version);
    } else {
      kept.changelogCommitted(version, dataFiles.stream().map(TableFile::path).toList(), columns, rows);
    }
    follower.wake();
  }

  /**
   * The changelog is about to write {@code rows} (aligned with {@code columns}) as the commit after
   * {@code baseVersion}: when the follower is idle and the table current, its follow of them starts
   * now, beside the write, and commits once the changelog's commit lands ({@link
   * CurrentStateTable#followEarly}). The writer then tells how the commit ended: {@link
   * #changelogCommitted(long, List, List, List)} or {@link #changelogWriteFailed()}.
   */
  public void changelogWriting(long baseVersion, List<Column> columns, List<Object[]> rows) {
    if (baseVersion < 0 || kept.refusal().isPresent() || kept.progress().lagVersions() > 0) {
      return;
    }
    CompletableFuture<CurrentStateTable.Landed> landed = new CompletableFuture<>();
    landing = landed;
    // Handed in a holder the follow empties: the rows it does not keep are not held until its commit.
    AtomicReference<List<Object[]>> handed = new AtomicReference<>(rows);
    boolean started = follower.startNow(() -> {
      try {
        return kept.followEarly(baseVersion, columns, handed, landed);
      } finally {
        landed.complete(GAVE_UP); // unless the commit's outcome came first: then the writer leaves the commit to it
      }
    });
    if (!started) {
      landing = null;
    }
  }

  /** The write announced by {@link #changelogWriting} did not commit: its early follow gives up. */
  public void changelogWriteFailed() {
    CompletableFuture<CurrentStateTable.Landed> early = landing;
    if (early != null) {
      landing = null;
      early.complete(CurrentStateTable.Landed.FAILED);
    }
  }

  /**
   * The worker's loop, while the changelog is {@code delivering}: records a refusal, registers the
   * table, runs its maintenance, and catches it up when it is behind without a commit to follow (at
   * start after a crash between the two commits, after a failed follow, after a release).
   */
  public void maintain(boolean delivering) {
    recordRefusal();
    boolean maintained = delivering && kept.refusal().isEmpty() && !follower.paused();
    if (maintained) {
      registration.poll();
      for (long c = kept.commits(); commitsSeen < c; commitsSeen++) {
        maintenance.committed();
      }
      // A step waits for a follow's commit before the next one while the follower has work.
      maintenance.poll(follower.behind());
    }
    if (!maintained || !maintenance.pending()) {
      follower.noStepWaiting();
    }
    if (!delivering || clock.millis() < nextFollow) {
      return;
    }
    nextFollow = clock.millis() + FOLLOW_RETRY_MILLIS;
    CurrentStateTable.Progress p = kept.progress();
    if (p.changelogVersion() < 0 || !"current".equals(p.state())) {
      follower.wake();
    }
  }

  /**
   * A refusal of the kept table (another owner's object at its path or name, another engine's
   * writes) becomes a durable quarantine record under the kept table's name, like a table's: it
   * survives restarts and is cleared by {@code bin/lakesink quarantine release}, after which the
   * table follows the changelog again. The changelog itself is not quarantined and keeps flowing.
   */
  private void recordRefusal() {
    Optional<TableFailureException> refusal = kept.refusal();
    if (refusal.isEmpty()) {
      return;
    }
    if (!recorded) {
      quarantine.quarantine(refusal.get());
      recorded = true;
      nextReleaseCheck = clock.millis() + RELEASE_CHECK_MILLIS;
    } else if (clock.millis() >= nextReleaseCheck) {
      nextReleaseCheck = clock.millis() + RELEASE_CHECK_MILLIS;
      if (quarantine.released()) {
        recorded = false;
        kept.release();
        nextFollow = 0;
        log.info("The current-state table {} was released from quarantine by an operator: it follows the changelog again",
            kept.name());
      }
    }
  }

  /** The changelog's partitions read from now on are this worker's: so is keeping the table. */
  public void assigned(Collection<SourcePartition> partitions) {
    if (owned.addAll(partitions)) {
      follower.resume();
    }
  }

  /**
   * Partitions revoked or lost: once this worker writes none of the changelog's, its follower
   * stops starting follows (the worker that writes them keeps the table; two would only race).
   */
  public void revoked(Collection<SourcePartition> partitions) {
    if (owned.removeAll(partitions) && owned.isEmpty()) {
      follower.pause();
      kept.forgetWritten(); // no follow takes them while paused: the next owner reads the files
    }
  }

  /**
   * At stop: the follows asked for so far finish within the timeout (at most {@link #FOLLOW_SETTLE}),
   * then no more start; a refusal in the last follow is recorded, and the catalog entry brought up
   * to the table's last commits within what is left of the timeout.
   */
  public void settle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    follower.stop(timeout.compareTo(FOLLOW_SETTLE) < 0 ? timeout : FOLLOW_SETTLE);
    recordRefusal();
    registration.settle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  /** The {@code current_state_table} fields of the changelog's status. */
  public Map<String, Object> status() {
    CurrentStateTable.Progress p = kept.progress();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", p.table());
    fields.put("state", p.state());
    fields.put("reason", p.reason());
    fields.put("changelog_version", p.changelogVersion() < 0 ? null : p.changelogVersion());
    fields.put("reflected_version", p.reflectedVersion() < 0 ? null : p.reflectedVersion());
    fields.put("lag_versions", p.lagVersions());
    fields.put("lag_seconds", p.lag().toMillis() / 1000.0);
    fields.put("registered", registration.registered());
    fields.put("registration_problem", registration.problem());
    return fields;
  }

  /**
   * Records the refusal of a kept table that cannot exist (no key to keep it by) as its durable
   * quarantine record; the changelog is delivered as usual.
   *
   * @return the record, for {@link #refusedStatus}; null if none could be recorded
   */
  public static QuarantineRecord refuse(String keptName, Subscription subscription, DeliveryContext context,
      TableFailureException why) {
    return new TableQuarantine(keptName, subscription, context.quarantine(), context.clock()).quarantine(why)
        instanceof DeliveryState.Quarantined q ? q.record() : null;
  }

  /** The {@code current_state_table} fields of a changelog whose kept table was refused before it could exist. */
  public static Map<String, Object> refusedStatus(QuarantineRecord refused) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", refused.table());
    fields.put("state", "stopped");
    fields.put("reason", refused.reason());
    return fields;
  }

  public CurrentStateTable table() {
    return kept;
  }

  public CurrentStateFollower follower() {
    return follower;
  }
}
