package io.lakesink.delivery;

import io.lakesink.catalog.CatalogSync;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.maintenance.MaintenanceRunner;
import io.lakesink.mapping.ColumnMapping;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwnership;
import io.lakesink.quarantine.TableQuarantine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every delivery mode shares: the buffer, the source offsets it covers, the flush with its
 * retries ({@link FlushAttempts}), quarantine, catalog registration and status. A mode only says
 * how a batch of events is written ({@link #write}).
 *
 * <p>A flush takes the whole buffer as one batch ({@link FlushJob}) and writes it on a writer
 * thread ({@link FlushWriters}) while the poll thread keeps buffering what it reads next; at most
 * one batch per table is in flight, so a table's commits stay in offset order and each one's
 * ranges start where the previous one's ended. Only the poll thread changes this object's state:
 * it collects the outcome ({@link #finishedFlush}) and applies it. While a batch is in flight the
 * poll thread leaves the table alone (no maintenance, catalog reads or offset reads).
 *
 * <p>Exactly once rests on one rule: an event is written only if its offset is at or past what
 * the table's log stores for its partition. Batches are filtered against the log before every
 * retry, so an ambiguous commit that actually landed is never written twice.
 */
public abstract class BufferedDelivery implements TableDelivery {
  private static final Logger log = LoggerFactory.getLogger(BufferedDelivery.class);
  public static final int MAX_ATTEMPTS = 6;
  /** After storage refused our credentials or permissions, how long until the next try. */
  public static final Duration FAULT_RECHECK = Duration.ofSeconds(30);
  /** After a flush gave up on a transient failure, how long until the next try. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(2);
  /** The service name a table waiting on storage shows in {@code waiting_on}. */
  public static final String STORAGE = "storage";

  private final Subscription subscription;
  protected final DeltaTable table;
  /** The table the subscription's other mode writes: offsets continue across a mode switch. */
  private final DeltaTable sibling;
  private final FlushPolicy policy;
  private final FlushHook hook;
  protected final Clock clock;
  private final DeliveryMetrics metrics;
  private final ColumnMapping mapping;
  private final TableHealth health;
  private final CatalogSync catalog;
  private final MaintenanceRunner maintenance;
  private final TableOwnership ownership;
  private final FlushWriters writers;
  private final FlushAttempts attempts;

  private EventBuffer buffer = new EventBuffer();
  /** The batch being written, until the poll thread collected its outcome. */
  private FlushJob inFlight;
  /** Next offset per partition as last read from, or committed to, the log. */
  private final Map<SourcePartition, Long> stored = new HashMap<>();
  private final PartitionKeys storedKeys = new PartitionKeys(); // alreadyStored runs once per event
  private long lastVersion = -1;
  private Instant lastCommitAt;
  private long rowsDelivered;
  private long nextCatalogRetry;
  private boolean catalogPending;
  /** The record key's fields of the last committed event that had one: the view's key without a primary key. */
  private List<String> recordKey = List.of();
  /** While degraded, how often the catalog registration is looked at again. */
  static final Duration CATALOG_RECHECK = Duration.ofSeconds(10);
  /** After a flush gave up on a transient failure: not before this time again. */
  private long retryNotBefore;
  /** While flushes fail on storage and are retried: why, and since the first failure; null once one lands. */
  private ServiceWait storageWait;

  protected BufferedDelivery(Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context) {
    this.subscription = subscription;
    this.table = table;
    this.sibling = sibling;
    this.policy = context.policy();
    this.hook = context.hook();
    this.clock = context.clock();
    this.metrics = context.metrics();
    this.writers = context.writers();
    this.mapping = new ColumnMapping(subscription.targetTable(), subscription.columns());
    this.health = new TableHealth(subscription.targetTable(),
        new TableQuarantine(subscription.targetTable(), subscription, context.quarantine(), clock), metrics, clock);
    this.catalog = new CatalogSync(context.catalog(), subscription.targetTable(), clock, context.catalogExecutor());
    this.ownership = new TableOwnership(subscription.targetTable(), table, context.catalog().entryName(subscription.targetTable())
        .map(entry -> new OwnerIdentity(context.catalog().catalogName(), entry)).orElse(null));
    boolean merges = subscription.mode() == DeliveryMode.MERGE;
    this.maintenance = new MaintenanceRunner(subscription.targetTable(), table,
        merges ? subscription.primaryKey() : List.of(), merges, context.maintenance(), clock);
    this.attempts = new FlushAttempts(subscription.targetTable(), table, this::write, context);
  }

  @Override
  public void maintain() {
    catalog.outcome().ifPresent(this::apply);
    catalog.poll(); // commits held back by a catalog's follow interval
    if (inFlight != null) {
      return; // the writer thread has the table; maintenance and catalog reads wait for the outcome
    }
    if (health.delivering()) {
      // Optimize and vacuum when due, beside delivery. After an OPTIMIZE commit the next flush
      // plans on the new log, not on the files the rewrite replaced.
      maintenance.poll(!buffer.isEmpty()).ifPresent(step -> {
        metrics.optimized(tableName(), step);
        if (step.committed()) {
          table.refresh();
        }
      });
    }
    if ((catalogPending || health.degraded()) && clock.millis() >= nextCatalogRetry) {
      nextCatalogRetry = clock.millis() + CATALOG_RECHECK.toMillis();
      syncCatalog();
    }
  }

  /**
   * Brings the table's catalog registration up to date, in the background; a table that exists
   * from an earlier run is registered (or checked) at start. A registration problem degrades the
   * table but never stops its data.
   */
  public void syncCatalog() {
    if (!health.delivering() || !catalog.enabled()) {
      return;
    }
    if (inFlight != null) {
      catalogPending = true; // the schema is read once the batch in flight is collected
      return;
    }
    try {
      if (table.exists()) {
        boolean mayCreate = ownership.beforeRegistration();
        table.columns().ifPresent(columns -> catalog.tableChanged(
            new CatalogTable(tableName(), table.location(), columns, table.partitionColumns(), recordKey), mayCreate));
      }
      catalogPending = false;
    } catch (TableFailureException e) {
      fail(e);
    } catch (RuntimeException e) {
      // The table's schema cannot be read right now (storage outage): try again later.
      catalogPending = true;
      nextCatalogRetry = clock.millis() + CATALOG_RECHECK.toMillis();
      log.warn("Cannot read the schema of {} for its catalog registration yet: {}", tableName(), e.toString());
    }
  }

  @Override
  public void settle(Duration timeout) {
    catalog.await(timeout, this::apply);
  }

  private void apply(CatalogSync.Outcome outcome) {
    if (!health.delivering()) {
      return;
    }
    if (outcome instanceof CatalogSync.Outcome.Refused r) {
      fail(r.reason());
    } else if (outcome instanceof CatalogSync.Outcome.Problem p) {
      health.degrade(p.reason());
    } else {
      health.recover();
      try {
        ownership.registered();
      } catch (TableFailureException e) {
        fail(e);
      } catch (RuntimeException e) {
        // Storage unavailable: the entry exists; recorded at the next registration instead.
        log.warn("Cannot record in {} that its catalog entry is registered yet: {}", tableName(), e.toString());
      }
    }
  }

  @Override
  public Subscription subscription() {
    return subscription;
  }

  @Override
  public String tableName() {
    return subscription.targetTable();
  }

  @Override
  public Map<SourcePartition, Long> storedOffsets(Collection<SourcePartition> partitions) {
    if (inFlight != null) {
      // Its outcome decides what the log stores: the caller collects it first (and tries again).
      throw new RetryableException("A flush of " + tableName() + " is still in flight", null);
    }
    Map<SourcePartition, Long> result = offsetsIn(sibling == null ? List.of(table) : List.of(table, sibling), partitions);
    stored.putAll(result);
    return result;
  }

  /** The next offset per partition that these tables' logs store, the highest of them. */
  static Map<SourcePartition, Long> offsetsIn(List<DeltaTable> tables, Collection<SourcePartition> partitions) {
    Map<String, SourcePartition> byId = new HashMap<>();
    partitions.forEach(p -> byId.put(p.applicationId(), p));
    Map<SourcePartition, Long> result = new HashMap<>();
    for (DeltaTable t : tables) {
      t.refresh();
      t.transactionVersions(byId.keySet()).forEach((id, v) -> result.merge(byId.get(id), v, Math::max));
    }
    return result;
  }

  @Override
  public void accept(ChangeEvent source) {
    if (alreadyStored(source.position())) {
      // Re-read after a restart whose source position lagged the log: the table has it.
      return;
    }
    buffer.add(mapping.apply(source), clock.millis());
  }

  @Override
  public void skip(SourcePosition position) {
    if (!alreadyStored(position)) {
      buffer.skip(position, clock.millis());
    }
  }

  private boolean alreadyStored(SourcePosition p) {
    Long next = stored.get(storedKeys.of(p));
    return next != null && p.offset() < next;
  }

  /** Never while a batch is in flight: the buffer grows meanwhile, within the worker's budget. */
  @Override
  public boolean flushDue(long nowMillis) {
    return inFlight == null && health.delivering() && nowMillis >= retryNotBefore && !maintenance.holdsDelivery()
        && (policy.due(buffer.size(), buffer.bytes(), buffer.oldestMillis(), nowMillis)
            || !nothingToCommit() && policy.aged(buffer.oldestMillis(), nowMillis));
  }

  /**
   * Whether a commit now would store nothing: no events, and no positions alone either, or only
   * on a table not created yet (a table is created from an event's columns: its first event takes
   * them along). Positions alone (a tombstone read after its delete's batch was taken) are
   * committed on their own once as old as the flush interval, and at a revoke or a stop: at most
   * one small commit per interval, and the partition's stored offset (and the group's) reaches
   * its end instead of staying one short until the partition's next event.
   */
  private boolean nothingToCommit() {
    return buffer.isEmpty() && !(buffer.positionsOnly() && table.seenToExist());
  }

  /** The events buffered since the last flush started, oldest first. */
  protected final List<ChangeEvent> buffered() {
    return buffer.events();
  }

  /**
   * Whether this mode's {@link #write} may run on a writer thread while the poll thread keeps
   * buffering. A mode whose write reads or resets state that buffering also changes says no,
   * and its flushes run on the thread that starts them.
   */
  protected boolean writesBesidePolling() {
    return false;
  }

  @Override
  public boolean flushing() {
    return inFlight != null;
  }

  @Override
  public boolean heldByMaintenance() {
    return maintenance.holdsDelivery();
  }

  @Override
  public void startFlush(long deadlineMillis) {
    if (inFlight != null || !health.delivering() || nothingToCommit() || maintenance.holdsDelivery()) {
      // An optimize step holding the table is bounded: the buffer waits for it.
      return;
    }
    FlushJob job = take(policy.rows());
    if (writers.synchronous() || !writesBesidePolling()) {
      job.run(j -> attempts.run(j, deadlineMillis));
    } else {
      job.runOn(writers.executor(), j -> attempts.run(j, deadlineMillis));
    }
  }

  /**
   * Hands at most {@code maxEvents} of the buffer to a new job; the rest stays buffered. While a
   * batch is in flight the buffer may grow past {@code flush_rows}; capping the next batch keeps
   * a commit (and the memory its Parquet writing takes) as large as the user chose, not as large
   * as what piled up behind a slow commit.
   */
  private FlushJob take(long maxEvents) {
    FlushJob job;
    if (buffer.size() > maxEvents) {
      job = new FlushJob(buffer.takeFirst((int) maxEvents));
    } else {
      job = new FlushJob(buffer);
      buffer = new EventBuffer();
    }
    inFlight = job;
    return job;
  }

  @Override
  public Optional<Map<SourcePartition, Long>> finishedFlush() {
    if (inFlight == null || !inFlight.finished()) {
      return Optional.empty();
    }
    return Optional.of(finish());
  }

  @Override
  public Optional<Map<SourcePartition, Long>> awaitFlush(long deadlineMillis) {
    if (inFlight == null) {
      return Optional.empty();
    }
    long now = clock.millis();
    inFlight.await(deadlineMillis > now ? deadlineMillis - now : 0);
    return finishedFlush();
  }

  @Override
  public Map<SourcePartition, Long> flush(long deadlineMillis) {
    Map<SourcePartition, Long> committed = new HashMap<>();
    try {
      awaitFlush(deadlineMillis).ifPresent(committed::putAll);
    } catch (RetryableException e) {
      // Its events are back in the buffer: the flush below tries them again.
      log.debug("{}", e.getMessage());
    }
    if (inFlight != null) {
      throw new RetryableException("A flush of " + tableName() + " is still in flight; its events are retried"
          + " if it fails", null);
    }
    if (maintenance.holdsDelivery() && !nothingToCommit()) {
      // A final flush (rebalance, shutdown) waits for an optimize step, within its deadline.
      maintenance.awaitHold(deadlineMillis - clock.millis());
      table.refresh();
    }
    // In batches of flush_rows, as beside polling: the final flush after a backlog keeps each
    // commit as large as the user chose.
    while (health.delivering() && !nothingToCommit()) {
      FlushJob job = take(policy.rows());
      job.run(j -> attempts.run(j, deadlineMillis));
      committed.putAll(finish());
    }
    return Map.copyOf(committed);
  }

  /**
   * Applies the outcome of the batch in flight, on the poll thread: what it committed, or its
   * events back at the front of the buffer (in their order) with the failure handled as before.
   */
  private Map<SourcePartition, Long> finish() {
    FlushJob job = inFlight;
    inFlight = null;
    job.learned().forEach((p, next) -> stored.merge(p, next, Math::max));
    FlushOutcome outcome;
    try {
      outcome = job.outcome();
    } catch (RuntimeException e) {
      giveBack(job);
      throw e;
    }
    if (outcome instanceof FlushOutcome.Committed c) {
      Map<SourcePartition, Long> committed = job.kept(c.next());
      metrics.committed(tableName(), c.events(), c.bytes(), c.took());
      lastVersion = c.version();
      lastCommitAt = clock.instant();
      rowsDelivered += c.events();
      stored.putAll(committed);
      if (!c.recordKey().isEmpty()) {
        recordKey = c.recordKey();
      }
      maintenance.committed();
      if (subscription.mode() == DeliveryMode.MERGE) {
        table.lastCommit().ifPresent(stats -> maintenance.warnings().merged(c.events(), stats));
      }
      retryNotBefore = 0;
      storageWait = null;
      syncCatalog();
      return committed;
    }
    if (outcome instanceof FlushOutcome.Landed l) {
      retryNotBefore = 0;
      storageWait = null;
      return job.kept(l.next());
    }
    giveBack(job);
    if (outcome instanceof FlushOutcome.Failed f && health.delivering()) {
      if (f.error() instanceof RetryableException) {
        ServiceWait attempts = job.failing();
        Instant first = storageWait != null ? storageWait.since() : attempts != null ? attempts.since() : clock.instant();
        storageWait = new ServiceWait(f.error().getMessage(), first);
      }
      throw failed(f.error());
    }
    // Quarantined while the batch was in flight (a record that cannot be decoded): the table's
    // reason stays the first one, and its events are gone with the buffer.
    return Map.of();
  }

  private RuntimeException failed(RuntimeException error) {
    if (error instanceof TableFailureException e) {
      fail(e);
    } else if (error instanceof ConfigurationException) {
      // Credentials or permissions refused: the worker reports it and waits; the buffer is kept.
      retryNotBefore = clock.millis() + FAULT_RECHECK.toMillis();
    } else {
      retryNotBefore = clock.millis() + RETRY_AFTER.toMillis();
    }
    return error;
  }

  /** What is left of a batch that did not land goes back before what was read since. */
  private void giveBack(FlushJob job) {
    if (health.delivering()) {
      buffer.prepend(job.remains());
    }
  }

  /**
   * Writes a batch and the offsets it covers in one Delta commit, and returns the new version.
   * Called with the events in the order they were read, on a writer thread when
   * {@link #writesBesidePolling}; call {@link #beforeCommit} once the files are written and just
   * before committing.
   */
  protected abstract long write(List<ChangeEvent> events, CommitOffsets offsets);

  /** Marks the step between written files and the commit (where tests inject crashes). */
  protected final void beforeCommit() {
    hook.at(tableName(), FlushStep.BEFORE_COMMIT);
  }

  /** The Delta table properties a mode creates its table with. */
  protected abstract Map<String, String> tableProperties();

  /**
   * Drops the buffered events of these partitions. A batch in flight writes none of them in a
   * later attempt and never gives them back; an attempt already committing may still land them,
   * and the log's fence refuses whatever the partition's next owner also writes.
   */
  @Override
  public void discard(Collection<SourcePartition> partitions) {
    buffer.discard(partitions);
    if (inFlight != null) {
      inFlight.abandon(partitions);
    }
    // Whoever reads these partitions next starts from the log: what we knew of it is stale.
    partitions.forEach(stored::remove);
  }

  @Override
  public void fail(TableFailureException reason) {
    health.quarantine(reason);
    buffer.clear();
    storageWait = null;
  }

  @Override
  public boolean releaseIfAllowed() {
    if (inFlight == null && health.releaseIfAllowed()) {
      log.info("Table {} was released from quarantine by an operator; resuming from its stored offsets", tableName());
      stored.clear();
      table.forgetIdentity();
      return true;
    }
    return false;
  }

  @Override
  public TableStatus status() {
    TableStatus status = new TableStatus(
        tableName(), subscription.topic(), subscription.mode().name().toLowerCase(), health.state().label(),
        health.reason(), health.since(),
        lastVersion, lastCommitAt, rowsDelivered, bufferedEvents(), maintenance.warnings().current(), maintenance.state(),
        List.of());
    return storageWait().map(w -> status.waitingOn(STORAGE, Errors.waitingOnStorage(w.problem()), w.since())).orElse(status);
  }

  /**
   * From the first failed attempt of the flush in flight (the writer thread reports it) until a
   * flush lands: a table returns to healthy only once its rows are committed again.
   */
  @Override
  public Optional<ServiceWait> storageWait() {
    ServiceWait attempts = inFlight == null ? null : inFlight.failing();
    if (attempts == null) {
      return Optional.ofNullable(storageWait);
    }
    return Optional.of(storageWait == null ? attempts : storageWait.again(attempts.problem()));
  }

  /** This table's maintenance: what it last did, and the key warnings. */
  public MaintenanceRunner maintenance() {
    return maintenance;
  }

  @Override
  public DeliveryState state() {
    return health.state();
  }

  /** Buffered and in flight: both are held on the heap until committed. */
  @Override
  public int bufferedEvents() {
    return buffer.size() + (inFlight == null ? 0 : inFlight.events());
  }

  @Override
  public long bufferedHeapBytes() {
    return buffer.heapBytes() + (inFlight == null ? 0 : inFlight.heapBytes());
  }
}
