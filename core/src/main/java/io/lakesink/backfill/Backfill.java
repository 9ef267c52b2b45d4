package io.lakesink.backfill;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.config.Subscription;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitConflictException;
import io.lakesink.delta.CommitErrors;
import io.lakesink.delta.CommitFencedException;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.ErrorKind;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.event.Column;
import io.lakesink.retry.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads rows that never went through Kafka into a table the stream delivers, beside a running
 * worker (docs/backfill.md):
 *
 * <ul>
 *   <li>a MERGE table gets only the keys it does not hold: a row the stream delivered is never
 *       touched, and running the backfill again changes nothing;
 *   <li>a changelog table gets every row appended with {@code __op = 'r'} and {@code __ts_ms = 0},
 *       so every streamed change ranks above it in the current-state view.
 * </ul>
 *
 * <p>Progress lives in the table's own log: every batch is one commit carrying the Delta
 * transaction identifier {@code lakesink-backfill-<id>} at the number of source rows done, so a
 * run that crashed resumes after its last commit and a finished one adds nothing. The worker's
 * own identifiers (one per Kafka partition) are separate and never touched. Commits race the
 * worker's through Delta's concurrency: an append is rebased onto the worker's commits, an insert
 * of missing keys is planned again on the new log (a key the worker just delivered is not
 * inserted twice).
 */
public final class Backfill {
  private static final Logger log = LoggerFactory.getLogger(Backfill.class);
  /** Storage failures per batch: 0.2 s, 0.4 s, … up to 15 s, as a flush retries. */
  static final RetryPolicy RETRY = new RetryPolicy(Duration.ofMillis(200), Duration.ofSeconds(15), 8, 0.25);
  /** Commits lost to another writer per batch before giving up: each one means the worker progressed. */
  static final int MAX_CONFLICTS = 50;
  public static final String APP_ID_PREFIX = "lakesink-backfill-";

  /**
   * @param id names this backfill in the table's log; the same id resumes, a new id starts over
   * @param batchRows source rows per commit (what is held in memory)
   * @param checkOnly run the render check and write nothing
   * @param skipCheck write without the render check
   */
  public record Settings(String id, int batchRows, boolean checkOnly, boolean skipCheck) {
    public Settings {
      if (!id.matches("[A-Za-z0-9_.-]{1,100}")) {
        throw new IllegalArgumentException("a backfill id is 1 to 100 letters, digits, '.', '_' or '-'");
      }
      if (batchRows < 1) {
        throw new IllegalArgumentException("batch rows must be at least 1");
      }
    }

    public String applicationId() {
      return APP_ID_PREFIX + id;
    }
  }

  /**
   * What a run did.
   *
   * @param resumedAt rows done by earlier runs
   * @param position rows of the source done now
   * @param written rows this run wrote
   * @param sampled rows the render check looked at (0 when it did not run)
   * @param compared of those, rows the stream also delivered, compared column by column
   * @param unfilled table columns the source does not provide (backfilled rows hold null)
   * @param refusal the render check's refusal; nothing was written
   */
  public record Outcome(
      long resumedAt, long position, long written, int sampled, int compared, List<String> unfilled, Optional<String> refusal) {}

  private final Subscription subscription;
  private final DeltaTable table;
  private final BackfillSource source;
  private final Settings settings;
  private final BackfillProgress progress;
  private final Clock clock;
  private final String tableName;

  public Backfill(
      Subscription subscription, DeltaTable table, BackfillSource source, Settings settings, BackfillProgress progress, Clock clock) {
    this.subscription = subscription;
    this.table = table;
    this.source = source;
    this.settings = settings;
    this.progress = progress;
    this.clock = clock;
    this.tableName = subscription.targetTable();
  }

  /** Where an earlier run of this backfill stopped: source rows committed (0 for none). */
  public long committedPosition() {
    table.refresh();
    return table.transactionVersions(List.of(settings.applicationId())).getOrDefault(settings.applicationId(), 0L);
  }

  public Outcome run() {
    table.refresh();
    if (!table.exists()) {
      throw Errors.backfillNoTable(tableName, table.location());
    }
    if (subscription.primaryKey().isEmpty()) {
      throw Errors.backfillNoKey(tableName);
    }
    long resumedAt = settings.checkOnly() ? 0 : committedPosition();
    source.skip(resumedAt);
    long position = resumedAt;
    long written = 0;
    List<SourceRow> batch = source.next(settings.batchRows());
    RenderCheck.Result check = null;
    if (!settings.skipCheck() && !batch.isEmpty()) {
      BackfillRows rows = new BackfillRows(subscription, columns(), settings.id());
      check = RenderCheck.run(tableName, table, rows.render(batch, position, today()), rows.key());
      if (!check.passed() || settings.checkOnly()) {
        return new Outcome(resumedAt, position, 0, check.sampled(), check.compared(), check.unfilled(), check.refusal());
      }
    }
    if (settings.checkOnly()) {
      return new Outcome(resumedAt, position, 0, 0, 0, List.of(), Optional.empty());
    }
    // After the check: counting the rows of a query may take a while, and a check-only run needs no total.
    progress.started(settings.id(), resumedAt, source.estimatedRows());
    while (!batch.isEmpty()) {
      long next = position + batch.size();
      Committed c = commit(batch, position, next);
      written += c.rows();
      position = next;
      progress.committed(position, written, c.version());
      batch = source.next(settings.batchRows());
    }
    progress.finished(position, written);
    return new Outcome(resumedAt, position, written,
        check == null ? 0 : check.sampled(), check == null ? 0 : check.compared(),
        check == null ? List.of() : check.unfilled(), Optional.empty());
  }

  private record Committed(long rows, long version) {}

  /** One batch in one commit with its progress; planned again when another writer got in first. */
  private Committed commit(List<SourceRow> batch, long from, long next) {
    int failures = 0;
    int conflicts = 0;
    RuntimeException last = null;
    while (true) {
      if (last != null) {
        table.refresh();
        long stored = committedPosition();
        if (stored >= next) {
          return new Committed(0, table.version()); // the failed attempt did land
        }
        if (stored != from) {
          throw Errors.backfillRunning(tableName, settings.id(), stored, from);
        }
      }
      try {
        return attempt(batch, from, next);
      } catch (CommitFencedException e) {
        throw Errors.backfillRunning(tableName, settings.id(), e.stored().getOrDefault(settings.applicationId(), -1L), from);
      } catch (CommitConflictException e) {
        if (++conflicts > MAX_CONFLICTS) {
          throw new RetryableException("Backfill of " + tableName + " lost " + MAX_CONFLICTS + " commits in a row to other"
              + " writers; run it again to resume at row " + from, e);
        }
        log.debug("{}", e.getMessage());
        last = e;
      } catch (RuntimeException e) {
        if (CommitErrors.classify(e) != ErrorKind.RETRYABLE) {
          throw e;
        }
        failures++;
        if (!RETRY.mayRetryAfter(failures)) {
          throw new RetryableException("Backfill of " + tableName + " could not commit after " + failures + " attempts (last: "
              + e + "); run it again to resume at row " + from, e);
        }
        long wait = RETRY.delay(failures, ThreadLocalRandom.current()).toMillis();
        log.warn("Backfill commit to {} failed (attempt {}/{}), retrying in {} ms: {}",
            tableName, failures, RETRY.maxAttempts(), wait, e.toString());
        pause(wait);
        last = e;
      }
    }
  }

  private Committed attempt(List<SourceRow> batch, long from, long next) {
    table.refresh();
    List<Column> columns = columns();
    BackfillRows rows = new BackfillRows(subscription, columns, settings.id());
    LocalDate today = today();
    BackfillRows.Rendered rendered = rows.render(batch, from, today);
    CommitOffsets offsets = new CommitOffsets(Map.of(settings.applicationId(), next), Map.of(settings.applicationId(), from));
    List<Object[]> out;
    Map<String, Object> partitionValues = Map.of();
    List<String> partitionColumns = table.partitionColumns();
    if (rows.changelog()) {
      out = rendered.rows();
      partitionValues = partitionColumns.contains(ChangelogColumns.INGEST_DATE) ? Map.of(ChangelogColumns.INGEST_DATE, today) : Map.of();
    } else {
      out = missingKeys(rendered, rows);
    }
    AppendRequest request = new AppendRequest(rendered.columns(), partitionColumns, partitionValues, out, offsets, Map.of());
    DeltaTable.PreparedAppend prepared = table.prepareAppend(request);
    if (!rows.changelog()) {
      // Planned from the keys the table held: on a newer log the worker may have delivered
      // one of them, so this insert is never rebased; a lost race plans it again.
      prepared = prepared.withoutRebase();
    }
    long version = table.commit(prepared);
    log.debug("Backfill {} committed rows {}..{} to {} as version {} ({} written)", settings.id(), from, next, tableName, version, out.size());
    return new Committed(out.size(), version);
  }

  /**
   * The rows of keys the MERGE table does not hold, the first of each key in source order; rows
   * with an empty key are dropped, as a merge drops them.
   */
  private List<Object[]> missingKeys(BackfillRows.Rendered rendered, BackfillRows rows) {
    Set<List<Object>> keys = new HashSet<>();
    rendered.keys().forEach(k -> {
      if (k != null) keys.add(k);
    });
    Set<List<Object>> held = rows.key().find(table, keys).keySet();
    Set<List<Object>> taken = new HashSet<>(held);
    List<Object[]> out = new ArrayList<>();
    for (int i = 0; i < rendered.rows().size(); i++) {
      List<Object> k = rendered.keys().get(i);
      if (k != null && taken.add(k)) {
        out.add(rendered.rows().get(i));
      }
    }
    return out;
  }

  private List<Column> columns() {
    return table.columns().orElseThrow(() -> Errors.backfillNoTable(tableName, table.location()));
  }

  private LocalDate today() {
    return LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis); // a backoff between storage retries, not synchronization
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetryableException("Interrupted while retrying a backfill commit", e);
    }
  }
}
