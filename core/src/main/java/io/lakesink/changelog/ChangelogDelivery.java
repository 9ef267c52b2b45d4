package io.lakesink.changelog;

import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateFollower;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.currentstate.KeptTableUpkeep;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableStatus;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.quarantine.QuarantineRecord;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Changelog delivery: every change appended to {@code <table>_APPEND}, one Delta commit per
 * flush carrying the next offset of every partition it covers. Files are only ever added.
 */
public final class ChangelogDelivery extends BufferedDelivery {
  /** What keeping the current-state table takes (follows, maintenance, catalog entry, quarantine); null without one. */
  private final KeptTableUpkeep kept;
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
    this.kept = kept == null ? null : new KeptTableUpkeep(kept, subscription, context);
  }

  /**
   * A changelog whose kept table is refused before it can exist (no key to keep it by): delivered
   * as usual, with the refusal recorded as the kept table's quarantine record and shown in its
   * {@code current_state_table} status.
   */
  public static ChangelogDelivery refusingKeptTable(Subscription subscription, DeltaTable table, DeltaTable sibling,
      DeliveryContext context, String keptName, TableFailureException why) {
    ChangelogDelivery delivery = new ChangelogDelivery(subscription, table, sibling, context, null);
    delivery.refusedKept = KeptTableUpkeep.refuse(keptName, subscription, context, why);
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
    if (kept != null) {
      // The kept table's follow of these rows runs beside their write, and commits after it.
      kept.changelogWriting(table.version(), request.columns(), request.rows());
    }
    DeltaTable.PreparedAppend prepared;
    long version;
    try {
      prepared = table.prepareAppend(request);
      beforeCommit();
      version = table.commit(prepared);
    } catch (RuntimeException | Error e) {
      if (kept != null) {
        kept.changelogWriteFailed();
      }
      throw e;
    }
    if (kept != null) {
      // The rows just written go to the kept table's follow in memory: it need not read them back.
      kept.changelogCommitted(version, prepared.addedFiles(), request.columns(), request.rows());
    }
    return version;
  }

  /**
   * Also keeps the kept table: its maintenance and registration, and a catch-up when it is behind
   * without a commit to follow (at start after a crash between the two commits, after a failed
   * follow, after an operator released it).
   */
  @Override
  public void maintain() {
    super.maintain();
    if (kept != null) {
      kept.maintain(state().delivering());
    }
  }

  /** What the kept table's follow holds while it runs: the worker's buffers leave room for it. */
  @Override
  public long heldHeapBytes() {
    return kept == null ? 0 : kept.table().heldHeapBytes();
  }

  /** The partitions read from now on are this worker's: so is keeping the table. */
  @Override
  public Map<SourcePartition, Long> storedOffsets(Collection<SourcePartition> partitions) {
    Map<SourcePartition, Long> stored = super.storedOffsets(partitions);
    if (kept != null) {
      kept.assigned(partitions);
    }
    return stored;
  }

  /** Partitions revoked or lost: without any, another worker keeps the table. */
  @Override
  public void discard(Collection<SourcePartition> partitions) {
    super.discard(partitions);
    if (kept != null) {
      kept.revoked(partitions);
    }
  }

  /** At stop, after the changelog's own settling: the kept table's follows, with what is left of the timeout. */
  @Override
  public void settle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    super.settle(timeout);
    if (kept != null) {
      kept.settle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
  }

  @Override
  public TableStatus status() {
    TableStatus status = super.status();
    if (kept != null) {
      return status.withCurrentStateTable(kept.status());
    }
    return refusedKept == null ? status : status.withCurrentStateTable(KeptTableUpkeep.refusedStatus(refusedKept));
  }

  /** The current-state table kept from this changelog, if any. */
  public Optional<CurrentStateTable> keptTable() {
    return Optional.ofNullable(kept).map(KeptTableUpkeep::table);
  }

  /** The follower of the kept table, if any (tests wait on it; the worker stops it through {@link #settle}). */
  public Optional<CurrentStateFollower> keptFollower() {
    return Optional.ofNullable(kept).map(KeptTableUpkeep::follower);
  }

  @Override
  protected Map<String, String> tableProperties() {
    return TABLE_PROPERTIES;
  }
}
