package io.lakesink.delivery;

import io.lakesink.catalog.CatalogSync;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.delta.CommitErrors;
import io.lakesink.delta.CommitConflictException;
import io.lakesink.delta.CommitFencedException;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.ErrorKind;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.maintenance.MaintenanceRunner;
import io.lakesink.mapping.ColumnMapping;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwnership;
import io.lakesink.quarantine.TableQuarantine;
import io.lakesink.retry.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every delivery mode shares: the buffer, the source offsets it covers, the flush with its
 * retries, quarantine, catalog registration and status. A mode only says how a batch of events
 * is written ({@link #write}).
 *
 * <p>Exactly once rests on one rule: an event is written only if its offset is at or past what
 * the table's log stores for its partition. Buffers are filtered against the log before every
 * retry, so an ambiguous commit that actually landed is never written twice.
 */
public abstract class BufferedDelivery implements TableDelivery {
  private static final Logger log = LoggerFactory.getLogger(BufferedDelivery.class);
  public static final int MAX_ATTEMPTS = 6;
  /** Storage failures within one flush: 0.2 s, 0.4 s, … with jitter; the poll budget may cut it short. */
  static final RetryPolicy FLUSH_RETRY = new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(15), MAX_ATTEMPTS, 0.25);
  /** Fenced commits retried at once within one flush; each one means another writer progressed. */
  static final int MAX_FENCED = 20;
  /** After storage refused our credentials or permissions, how long until the next try. */
  public static final Duration FAULT_RECHECK = Duration.ofSeconds(30);
  /** After a flush gave up on a transient failure, how long until the next try. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(2);

  private final Subscription subscription;
  protected final DeltaTable table;
  /** The table the subscription's other mode writes: offsets continue across a mode switch. */
  private final DeltaTable sibling;
  private final FlushPolicy policy;
  private final FlushHook hook;
  protected final Clock clock;
  private final Backoff backoff;
  private final DeliveryMetrics metrics;
  private final ColumnMapping mapping;
  private final TableHealth health;
  private final CatalogSync catalog;
  private final MaintenanceRunner maintenance;
  private final TableOwnership ownership;

  private final EventBuffer buffer = new EventBuffer();
  /** Next offset per partition as last read from, or committed to, the log. */
  private final Map<SourcePartition, Long> stored = new HashMap<>();
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

  protected BufferedDelivery(Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context) {
    this.subscription = subscription;
    this.table = table;
    this.sibling = sibling;
    this.policy = context.policy();
    this.hook = context.hook();
    this.clock = context.clock();
    this.backoff = context.backoff();
    this.metrics = context.metrics();
    this.mapping = new ColumnMapping(subscription.targetTable(), subscription.columns());
    this.health = new TableHealth(subscription.targetTable(),
        new TableQuarantine(subscription.targetTable(), subscription, context.quarantine(), clock), metrics, clock);
    this.catalog = new CatalogSync(context.catalog(), subscription.targetTable(), clock, context.catalogExecutor());
    this.ownership = new TableOwnership(subscription.targetTable(), table, context.catalog().entryName(subscription.targetTable())
        .map(entry -> new OwnerIdentity(context.catalog().catalogName(), entry)).orElse(null));
    this.maintenance = new MaintenanceRunner(subscription.targetTable(), table,
        subscription.mode() == DeliveryMode.MERGE ? subscription.primaryKey() : List.of(), context.maintenance(), clock);
  }

  @Override
  public void maintain() {
    if (health.delivering()) {
      maintenance.poll(); // optimize and vacuum when due, beside delivery
    }
    catalog.outcome().ifPresent(this::apply);
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
    Map<SourcePartition, Long> result = offsetsIn(sibling == null ? List.of(table) : List.of(table, sibling), partitions);
    stored.putAll(result);
    return result;
  }

  /** The next offset per partition that these tables' logs store, the highest of them. */
  private static Map<SourcePartition, Long> offsetsIn(List<DeltaTable> tables, Collection<SourcePartition> partitions) {
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
      buffer.cover(position);
    }
  }

  private boolean alreadyStored(SourcePosition p) {
    Long next = stored.get(new SourcePartition(p.topic(), p.partition()));
    return next != null && p.offset() < next;
  }

  @Override
  public boolean flushDue(long nowMillis) {
    return health.delivering() && nowMillis >= retryNotBefore
        && policy.due(buffer.size(), buffer.bytes(), buffer.oldestMillis(), nowMillis);
  }

  /** The events buffered since the last commit, oldest first. */
  protected final List<ChangeEvent> buffered() {
    return buffer.events();
  }

  @Override
  public Map<SourcePartition, Long> flush(long deadlineMillis) {
    if (!health.delivering() || buffer.isEmpty()) {
      // Skipped positions alone (tombstones) ride along with the next commit: re-reading a
      // tombstone after a restart is harmless, an empty commit per tombstone is not.
      return Map.of();
    }
    RuntimeException last = null;
    int failures = 0;
    for (int fenced = 0; fenced <= MAX_FENCED; ) {
      try {
        if (last != null) {
          // Before writing again, learn what the failed attempt left in the log: an attempt
          // whose outcome looked failed may have landed, another writer may have committed.
          Map<SourcePartition, Long> attempted = buffer.next();
          table.refresh();
          dropCommitted();
          if (buffer.isEmpty()) {
            buffer.clear();
            return attempted;
          }
        }
        Map<SourcePartition, Long> committed = attemptFlush();
        retryNotBefore = 0;
        return committed;
      } catch (TableFailureException e) {
        fail(e);
        throw e;
      } catch (CommitFencedException e) {
        // Another writer (the partition's new owner, a worker that lost it, another deployment)
        // committed some of these offsets: drop them from the buffer at once and go on.
        log.info("{}; dropping what it delivered and committing the rest", e.getMessage());
        last = e;
        fenced++;
      } catch (CommitConflictException e) {
        // Contention, not a failure: re-read the log and plan again without backing off.
        log.debug("{}", e.getMessage());
        last = e;
        fenced++;
      } catch (RuntimeException e) {
        ErrorKind kind = CommitErrors.classify(e);
        metrics.error(tableName(), kind);
        if (kind == ErrorKind.CONFIGURATION) {
          // Credentials or permissions refused: not this table's fault, and every table would
          // hit it. The worker reports it and waits; the buffer is kept.
          retryNotBefore = clock.millis() + FAULT_RECHECK.toMillis();
          throw configurationCause(e);
        }
        if (kind != ErrorKind.RETRYABLE) {
          TableFailureException failure =
              new TableFailureException("Writing table " + tableName() + " failed: " + e.getMessage(), null, e);
          fail(failure);
          throw failure;
        }
        last = e;
        failures++;
        if (!FLUSH_RETRY.mayRetryAfter(failures)) {
          break;
        }
        long wait = FLUSH_RETRY.delay(failures, ThreadLocalRandom.current()).toMillis();
        if (clock.millis() + wait > deadlineMillis) {
          // Kafka evicts a consumer that does not poll in time: give the poll loop back, keep
          // the buffer, and try again after the next poll.
          break;
        }
        log.warn("Flush of {} failed (attempt {}/{}), retrying: {}", tableName(), failures, MAX_ATTEMPTS, e.toString());
        pause(wait);
      }
    }
    retryNotBefore = clock.millis() + RETRY_AFTER.toMillis();
    throw new RetryableException(
        "Flush of " + tableName() + " did not go through after " + failures + " attempts (last: " + last
            + "); buffered rows are kept and retried in " + RETRY_AFTER.toSeconds() + " s", last);
  }

  private static ConfigurationException configurationCause(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof ConfigurationException ce) {
        return ce;
      }
    }
    throw new IllegalStateException("classified as a configuration error without one", e);
  }

  private Map<SourcePartition, Long> attemptFlush() {
    hook.at(tableName(), FlushStep.BEFORE_WRITE);
    long started = System.nanoTime();
    int events = buffer.size();
    long version = write(List.copyOf(buffer.events()), buffer.offsets());
    Map<SourcePartition, Long> committed = buffer.next();
    log.info("Committed {} events to {} as version {} ({})", events, tableName(), version, committed);
    metrics.committed(tableName(), events, buffer.bytes(), Duration.ofNanos(System.nanoTime() - started));
    lastVersion = version;
    lastCommitAt = clock.instant();
    rowsDelivered += events;
    stored.putAll(committed);
    List<ChangeEvent> written = buffer.events();
    for (int i = written.size() - 1; i >= 0; i--) {
      if (!written.get(i).recordKeyFields().isEmpty()) {
        recordKey = List.copyOf(written.get(i).recordKeyFields());
        break;
      }
    }
    maintenance.committed();
    if (subscription.mode() == DeliveryMode.MERGE) {
      table.lastCommit().ifPresent(stats -> maintenance.warnings().merged(events, stats));
    }
    buffer.clear();
    syncCatalog();
    return committed;
  }

  /**
   * Writes a batch and the offsets it covers in one Delta commit, and returns the new version.
   * Called with the events in the order they were read; call {@link #beforeCommit} once the
   * files are written and just before committing.
   */
  protected abstract long write(List<ChangeEvent> events, CommitOffsets offsets);

  /** Marks the step between written files and the commit (where tests inject crashes). */
  protected final void beforeCommit() {
    hook.at(tableName(), FlushStep.BEFORE_COMMIT);
  }

  /** The Delta table properties a mode creates its table with. */
  protected abstract Map<String, String> tableProperties();

  /**
   * After a failed or fenced attempt: drops what this table's log already holds. Only this
   * table's: the other mode's table is read when partitions are assigned (a mode switch goes on
   * where the other mode stopped), but another subscription may be writing it right now (two
   * Kafka Connect connectors on one topic, one per mode), and its offsets say nothing about
   * what landed here.
   */
  private void dropCommitted() {
    Map<SourcePartition, Long> landed = offsetsIn(List.of(table), buffer.next().keySet());
    landed.forEach((p, next) -> stored.merge(p, next, Math::max));
    buffer.dropStored(landed);
  }

  private void pause(long millis) {
    try {
      backoff.pause(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetryableException("Interrupted while retrying a flush of " + tableName(), e);
    }
  }

  @Override
  public void discard(Collection<SourcePartition> partitions) {
    buffer.discard(partitions);
    // Whoever reads these partitions next starts from the log: what we knew of it is stale.
    partitions.forEach(stored::remove);
  }

  @Override
  public void fail(TableFailureException reason) {
    health.quarantine(reason);
    clear();
  }

  @Override
  public boolean releaseIfAllowed() {
    if (health.releaseIfAllowed()) {
      log.info("Table {} was released from quarantine by an operator; resuming from its stored offsets", tableName());
      stored.clear();
      table.forgetIdentity();
      return true;
    }
    return false;
  }

  @Override
  public TableStatus status() {
    return new TableStatus(
        tableName(), subscription.topic(), subscription.mode().name().toLowerCase(), health.state().label(),
        health.reason(), health.since(),
        lastVersion, lastCommitAt, rowsDelivered, buffer.size(), maintenance.warnings().current());
  }

  private void clear() {
    buffer.clear();
  }

  /** This table's maintenance: what it last did, and the key warnings. */
  public MaintenanceRunner maintenance() {
    return maintenance;
  }

  @Override
  public DeliveryState state() {
    return health.state();
  }

  @Override
  public int bufferedEvents() {
    return buffer.size();
  }

  @Override
  public long bufferedHeapBytes() {
    return buffer.heapBytes();
  }
}
