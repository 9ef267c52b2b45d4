package io.lakesink.changelog;

import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateFollower;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.currentstate.KeptTableRegistration;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.IdleDaemonPool;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableStatus;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.maintenance.MaintenanceRunner;
import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.TableQuarantine;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changelog delivery: every change appended to {@code <table>_APPEND}, one Delta commit per
 * flush carrying the next offset of every partition it covers. Files are only ever added.
 */
public final class ChangelogDelivery extends BufferedDelivery {
  private static final Logger log = LoggerFactory.getLogger(ChangelogDelivery.class);
  /** How often a kept table that is behind (a failed follow, a catch-up at start) is tried from the worker's loop. */
  static final long FOLLOW_RETRY_MILLIS = 10_000;
  /** How often a quarantined kept table looks for an operator's release (as a worker does for its tables). */
  static final long RELEASE_CHECK_MILLIS = 10_000;

  /** How long a stop waits for the kept table's follows before abandoning one (the next start catches up). */
  static final Duration FOLLOW_SETTLE = Duration.ofSeconds(30);

  private final CurrentStateTable kept;
  /** Runs the kept table's follows on a thread of its own, woken by this changelog's commits. */
  private final CurrentStateFollower follower;
  private final KeptTableRegistration registration;
  /** The kept table's optimize and vacuum, as a MERGE table's: clustered on the key, a step and a follow take turns. */
  private final MaintenanceRunner keptMaintenance;
  /** The changelog's partitions this worker writes: without any, another worker keeps the table. */
  private final Set<SourcePartition> owned = new HashSet<>();
  private long keptCommitsSeen;
  private long nextFollow;
  /** The kept table's refusals, recorded as a quarantine record of {@code <table>} (not of the changelog). */
  private final TableQuarantine keptQuarantine;
  /** Whether the kept table's current refusal is recorded; then an operator's release lets it follow again. */
  private boolean keptRecorded;
  private long nextReleaseCheck;
  /** A kept table refused before it could be kept (no key): its quarantine record, for the status. */
  private QuarantineRecord refusedKept;
  /** What a changelog table is created with (also by the MERGE → changelog migration's copy). */
  public static final Map<String, String> TABLE_PROPERTIES = Map.of(
      // Changelog files are only ever added; Delta readers and writers enforce it too.
      "delta.appendOnly", "true",
      "delta.checkpointInterval", "10");

  /**
   * @param sibling the table the subscription writes in merge mode, whose offsets a switch to
   *     changelog continues from; may be null
   */
  public ChangelogDelivery(Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context) {
    this(subscription, table, sibling, context, null);
  }

  /**
   * @param kept the current-state table kept from this changelog, brought up to date after each
   *     commit; null without one
   */
  public ChangelogDelivery(
      Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context, CurrentStateTable kept) {
    super(subscription, table, sibling, context);
    this.kept = kept;
    this.follower = kept == null ? null
        : new CurrentStateFollower(kept, IdleDaemonPool.create("lakesink-follow-" + kept.name() + "-", 1));
    this.registration = kept == null ? null
        : new KeptTableRegistration(kept, context.catalog(), context.catalogExecutor(), context.clock());
    this.keptMaintenance = kept == null ? null
        : new MaintenanceRunner(kept.name(), kept.table(), subscription.primaryKey(), true, follower, context.maintenance(),
            context.clock());
    this.keptQuarantine = kept == null ? null : new TableQuarantine(kept.name(), subscription, context.quarantine(), context.clock());
    if (kept != null && keptQuarantine.initialState() instanceof DeliveryState.Quarantined q) {
      // Refused before a restart: stays stopped until released (bin/lakesink quarantine release), not looked at again.
      kept.stop(new TableFailureException(q.record().reason(), null, null));
      keptRecorded = true;
    }
  }

  /**
   * A changelog whose kept table is refused before it can exist (no key to keep it by): delivered
   * as usual, with the refusal recorded as the kept table's quarantine record and shown in its
   * {@code current_state_table} status.
   */
  public static ChangelogDelivery refusingKeptTable(Subscription subscription, DeltaTable table, DeltaTable sibling,
      DeliveryContext context, String keptName, TableFailureException why) {
    ChangelogDelivery delivery = new ChangelogDelivery(subscription, table, sibling, context, null);
    delivery.refusedKept = new TableQuarantine(keptName, subscription, context.quarantine(), context.clock()).quarantine(why)
        instanceof DeliveryState.Quarantined q ? q.record() : null;
    return delivery;
  }

  public ChangelogDelivery(Subscription subscription, DeltaTable table, DeliveryContext context) {
    this(subscription, table, null, context);
  }

  /** A changelog write reads nothing buffering changes: it runs on a writer thread. */
  @Override
  protected boolean writesBesidePolling() {
    return true;
  }

  @Override
  protected long write(List<ChangeEvent> events, CommitOffsets offsets) {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    List<Column> existing = table.columns().orElse(List.of());
    ChangelogRows rows = new ChangelogRows(tableName(), existing, events);
    AppendRequest request = rows.request(events, today, offsets, tableProperties());
    DeltaTable.PreparedAppend prepared = table.prepareAppend(request);
    beforeCommit();
    long version = table.commit(prepared);
    if (follower != null) {
      // The follow runs on its own thread: this commit path only wakes it. A failure is the kept
      // table's own (its status says so); the changelog's commit stands.
      kept.changelogCommitted(version);
      follower.wake();
    }
    return version;
  }

  /**
   * Also catches the kept table up when it is behind without a commit to follow: at start (a
   * crash between the two commits), after a failed follow, after an operator released it.
   */
  @Override
  public void maintain() {
    super.maintain();
    if (kept == null) {
      return;
    }
    recordKeptRefusal();
    boolean maintained = state().delivering() && kept.refusal().isEmpty() && !follower.paused();
    if (maintained) {
      registration.poll();
      for (long c = kept.commits(); keptCommitsSeen < c; keptCommitsSeen++) {
        keptMaintenance.committed();
      }
      // A step waits for a follow's commit before the next one while the follower has work.
      keptMaintenance.poll(follower.behind());
    }
    if (!maintained || !keptMaintenance.pending()) {
      follower.noStepWaiting();
    }
    if (!state().delivering() || clock.millis() < nextFollow) {
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
  private void recordKeptRefusal() {
    Optional<TableFailureException> refusal = kept.refusal();
    if (refusal.isEmpty()) {
      return;
    }
    if (!keptRecorded) {
      keptQuarantine.quarantine(refusal.get());
      keptRecorded = true;
      nextReleaseCheck = clock.millis() + RELEASE_CHECK_MILLIS;
    } else if (clock.millis() >= nextReleaseCheck) {
      nextReleaseCheck = clock.millis() + RELEASE_CHECK_MILLIS;
      if (keptQuarantine.released()) {
        keptRecorded = false;
        kept.release();
        nextFollow = 0;
        log.info("The current-state table {} was released from quarantine by an operator: it follows the changelog again",
            kept.name());
      }
    }
  }

  /** The partitions read from now on are this worker's: so is keeping the table. */
  @Override
  public Map<SourcePartition, Long> storedOffsets(Collection<SourcePartition> partitions) {
    Map<SourcePartition, Long> stored = super.storedOffsets(partitions);
    if (follower != null && owned.addAll(partitions)) {
      follower.resume();
    }
    return stored;
  }

  /**
   * Partitions revoked or lost: once this worker writes none of the changelog's, its follower
   * stops starting follows (the worker that writes them keeps the table; two would only race).
   */
  @Override
  public void discard(Collection<SourcePartition> partitions) {
    super.discard(partitions);
    if (follower != null && owned.removeAll(partitions) && owned.isEmpty()) {
      follower.pause();
    }
  }

  /**
   * At stop: the follows asked for so far finish within the timeout, then no more start; a refusal
   * in the last follow is recorded, and the kept table's catalog entry brought up to its last commits.
   */
  @Override
  public void settle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    super.settle(timeout);
    if (follower != null) {
      follower.stop(timeout.compareTo(FOLLOW_SETTLE) < 0 ? timeout : FOLLOW_SETTLE);
    }
    if (kept != null) {
      recordKeptRefusal();
    }
    if (registration != null) {
      registration.settle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
  }

  @Override
  public TableStatus status() {
    TableStatus status = super.status();
    if (kept == null) {
      if (refusedKept == null) {
        return status;
      }
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("table", refusedKept.table());
      fields.put("state", "stopped");
      fields.put("reason", refusedKept.reason());
      return status.withCurrentStateTable(fields);
    }
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
    return status.withCurrentStateTable(fields);
  }

  /** The current-state table kept from this changelog, if any. */
  public Optional<CurrentStateTable> keptTable() {
    return Optional.ofNullable(kept);
  }

  /** The follower of the kept table, if any (tests wait on it; the worker stops it through {@link #settle}). */
  public Optional<CurrentStateFollower> keptFollower() {
    return Optional.ofNullable(follower);
  }

  @Override
  protected Map<String, String> tableProperties() {
    return TABLE_PROPERTIES;
  }
}
