package io.lakesink.currentstate;

import io.lakesink.config.TableNames;
import io.lakesink.delta.CommitConflictException;
import io.lakesink.delta.CommitFencedException;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.LoggedCommits;
import io.lakesink.delta.TableFile;
import io.lakesink.error.Errors;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.merge.ChangeApplication;
import io.lakesink.merge.SourceFile;
import io.lakesink.view.ChangeOrder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current-state table lakesink keeps from a changelog ({@code current_state.object: table}):
 * {@code <table>}, a plain Delta table equal, row for row, to what the current-state view over
 * {@code <table>_APPEND} returns, updated from the changelog's new commits with the MERGE engine
 * ({@link ChangeApplication}), never by reading the whole history again.
 *
 * <p>Exactly once, the way offsets are: each commit to the table carries, as the Delta
 * transaction identifier {@value #APP_ID}, the changelog version it reflects. {@link #follow}
 * reads that version from the table's log, applies the files the changelog's later commits added
 * as new data (the changelog is append-only, so those hold its new rows; read from their commit
 * files, not from the history), and commits them with the new version, fenced on the old one. A crash between the changelog's commit and the table's, a restart, a rebalance (two
 * workers following one changelog: one commit wins, the other is fenced and reads again), a
 * backfill into the changelog and a hand-off all end the same way: the next follow applies
 * what the table does not reflect yet. Re-applying a change the table reflects changes nothing,
 * so files compacted by an optimize of the changelog, read again, are harmless.
 *
 * <p>The view picks each key's highest-ranked change over the whole history; the table keeps
 * no trace of a deleted key, so an older change of it read later must not bring it back. The
 * engine asks the changelog itself where the key's latest delete ranks (only for changes that
 * would insert a key, in the files whose statistics may hold it), and the table records the
 * latest truncate it applied beside the version ({@code …/truncate/*}).
 *
 * <p>Called on one thread at a time: its {@link CurrentStateFollower}'s, woken after each
 * changelog commit and from the worker's loop (at start, to catch up after a crash, and after a
 * failure). {@link #progress} may be read from any thread.
 */
public final class CurrentStateTable {
  private static final Logger log = LoggerFactory.getLogger(CurrentStateTable.class);
  /** The transaction identifier whose version is the changelog version the table reflects. */
  public static final String APP_ID = "lakesink-current-state";
  static final String TRUNCATE_TS = APP_ID + "/truncate/ts_ms";
  static final String TRUNCATE_PARTITION = APP_ID + "/truncate/partition";
  static final String TRUNCATE_OFFSET = APP_ID + "/truncate/offset";
  /** Stands for a null part of a truncate's rank in its transaction identifier. */
  private static final long NULL = Long.MIN_VALUE;
  /** The table property that marks a table lakesink keeps, naming the changelog it is kept from. */
  public static final String SOURCE_PROPERTY = "lakesink.currentState.source";
  /**
   * Changes a commit applies at most, counted as the follow keeps them ({@link LatestChanges}: a
   * key's changes within a step count once or twice, not once per changelog row): a long catch-up
   * commits in steps of this size, and one over few keys reads many changelog files per step.
   */
  static final int MAX_ROWS_PER_COMMIT = 200_000;
  /**
   * What the changes one commit applies may hold on the heap, estimated, before the step ends at
   * the next file it may end at: wide rows make fewer rows a step. A follow holds its changes
   * beside the worker's buffers; with a table of many keys, 200,000 changes of a 10-column row
   * are some 150 MB, and the worker at its default heap ran out of it.
   */
  static final long MAX_BYTES_PER_COMMIT = 64L << 20;
  /**
   * What the merge builds per change of a step, beside the change itself (its value references
   * are shared, not copied): the table row, its key, its rank and the batch's entry for it,
   * about 360 bytes as counted in a worker's heap (class histograms during a follow's merge),
   * rounded up. Counted per change rather than as a multiple of the changes' own estimate, which
   * is mostly their values: twice the changes' estimate counted a follow of the benchmark's
   * ten-column rows at about 1.8 times the heap its merge held, and reading waited for that.
   */
  static final long MERGE_BYTES_PER_CHANGE = 448;
  /**
   * Rows of a reduction between two updates of {@link #heldHeapBytes} (a power of two): a volatile
   * write per row read was a cost of its own, and the worker's budget needs no finer figure.
   */
  private static final int PUBLISH_EVERY = 1024;
  /**
   * How long an early follow waits for the changelog's commit of the rows it applied: far longer
   * than a flush takes (the writer always answers, committed or failed); a backstop only.
   */
  static final Duration EARLY_FOLLOW_WAIT = Duration.ofMinutes(10);
  /** Commits of the table looked at, at start, for another engine's writes. */
  static final int LOG_LOOKBACK = 50;
  private static final int ATTEMPTS = 5;

  /** Where tests inject crashes. */
  public enum Step {
    /** The table's files written, its commit not made. */
    BEFORE_COMMIT
  }

  @FunctionalInterface
  public interface Hook {
    Hook NONE = (table, step) -> {};

    void at(String table, Step step);
  }

  private final String name;
  private final DeltaTable changelog;
  private final DeltaTable target;
  private final ChangeApplication application;
  /** The columns the table is kept on. */
  private final List<String> key;
  private final Hook hook;
  private final Clock clock;
  /** The last version of the table this object committed, -1 before one (then the log is looked at). */
  private long lastWritten = -1;
  private volatile long changelogVersion = -1;
  private volatile long reflected = -1;
  /** Since when the table has been behind the changelog; null while it is not. */
  private volatile Instant behindSince;
  /** Guards the changelog version and since when the table is behind: both the follower and the changelog's commits set them. */
  private final Object progressLock = new Object();
  private volatile TableFailureException refused;
  private volatile String problem;
  /** What the commit {@link #lastWritten} records: the changelog version and the latest truncate. */
  private long writtenReflects = -1;
  private ChangeOrder writtenTruncate;
  /** Commits this object made to the table: its maintenance counts them. */
  private volatile long commits;
  /** Changes kept per commit of a catch-up ({@link #MAX_ROWS_PER_COMMIT}); smaller in tests. */
  int maxRowsPerCommit = MAX_ROWS_PER_COMMIT;
  /** Estimated heap bytes of a commit's changes before a catch-up step may end; smaller in tests. */
  long maxBytesPerCommit = MAX_BYTES_PER_COMMIT;
  /**
   * The rows of this worker's latest changelog commit, applied from memory instead of read back
   * from its file: at most what one catch-up step applies.
   */
  private final WrittenRows written = new WrittenRows(MAX_ROWS_PER_COMMIT);
  /** What the last follow that applied changes took from handed-over rows and read from the changelog. */
  private volatile FilesApplied lastApplied = new FilesApplied(0, 0);
  /** Follows this object committed beside the changelog's write of their rows ({@link #followEarly}). */
  private volatile long earlyFollows;
  /** Rows its commits took over with the changelog's files ({@link #rowsTakenOver}). */
  private volatile long rowsTakenOver;
  /** What the follow that runs holds on the heap, estimated; 0 between follows. */
  private volatile long heldHeapBytes;
  /** Keys the last commit's changes had: what the next one's reduction is sized for (commits of a busy table are alike). */
  private int lastChunkKeys;

  /**
   * @param name the subscription's table name ({@code <table>})
   * @param key the columns the view ranks changes per (required)
   */
  public CurrentStateTable(String name, DeltaTable changelog, DeltaTable target, List<String> key, Hook hook, Clock clock) {
    this.name = name;
    this.changelog = changelog;
    this.target = target;
    this.hook = hook;
    this.clock = clock;
    this.key = List.copyOf(key);
    Map<String, String> properties = new HashMap<>();
    properties.put("delta.checkpointInterval", "10");
    // Deletion vectors: an update deletes the row it replaces by position instead of rewriting its file.
    properties.put(DeltaTable.ENABLE_DELETION_VECTORS, "true");
    properties.put(SOURCE_PROPERTY, TableNames.changelog(name));
    this.application = new ChangeApplication(name, target, key, properties);
  }

  /** The table kept, as the worker names it. */
  public String name() {
    return name;
  }

  public DeltaTable table() {
    return target;
  }

  /**
   * Brings the table up to the changelog's latest version. A refusal (the table held by another
   * object, or written by another engine) stops this table for good, until an operator acts;
   * any other failure is recorded and the next call tries again.
   *
   * @return whether the table now reflects the changelog's latest version
   */
  public synchronized boolean follow() {
    if (refused != null) {
      return false;
    }
    try {
      return followWithin();
    } finally {
      heldHeapBytes = 0;
    }
  }

  private boolean followWithin() {
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          followOnce();
          problem = null;
          return reflected >= changelogVersion;
        } catch (CommitConflictException | CommitFencedException raced) {
          // Another worker following the same changelog committed first: read its version and go on.
          if (attempt >= ATTEMPTS) {
            throw raced;
          }
          log.debug("Current-state table {}: another commit came first ({}); reading again", name, raced.getMessage());
        }
      }
    } catch (TableFailureException e) {
      stop(e);
      return false;
    } catch (RuntimeException e) {
      failed(changelogVersion, e);
      return false;
    }
  }

  private void followOnce() {
    changelog.refresh();
    long latest = changelog.version();
    sawChangelog(latest);
    if (latest < 0) {
      return;
    }
    target.refresh();
    checkOwned();
    ChangeOrder truncatedAt;
    if (lastWritten >= 0 && target.version() == lastWritten) {
      // The table's latest commit is ours: what it reflects is what we committed (no log lookups).
      reflected = writtenReflects;
      truncatedAt = writtenTruncate;
    } else {
      Map<String, Long> stored = target.transactionVersions(List.of(APP_ID, TRUNCATE_TS, TRUNCATE_PARTITION, TRUNCATE_OFFSET));
      reflected = stored.getOrDefault(APP_ID, -1L);
      truncatedAt = truncate(stored);
      if (reflected != writtenReflects) {
        // Changes applied by another writer (or none by this object yet): their deletes are not known here.
        application.forgetKnownDeletes();
      }
    }
    if (reflected < 0 && target.files().isEmpty()) {
      // Built from the changelog's first version on: every delete will pass through this object.
      application.appliesFromEmpty();
    }
    if (reflected >= latest) {
      written.forgetThrough(reflected);
      caughtUp();
      return;
    }
    sawChangelog(latest);
    List<TableFile> files = changelog.files();
    List<TableFile> added = PartitionOrder.sorted(added(files, reflected, latest));
    ChangelogChanges changes = new ChangelogChanges(name, changelog, changelog.columns().orElseThrow(), key, written);
    // More than one file (a commit may end between them, by rows or by the heap its changes take):
    // where a commit may end is read from the files' positions.
    PartitionOrder order = added.size() > 1
        ? PartitionOrder.read(changelog, changelog.columns().orElseThrow(), added, written) : new PartitionOrder();
    int i = 0;
    do {
      int start = i;
      int handedBefore = changes.filesHanded;
      Chunk chunk = nextChunk(changes, added, i, order);
      i = chunk.end();
      // One file whose rows were handed over (read whole, in file order): the table takes it over.
      TableFile one = i == start + 1 ? added.get(start) : null;
      SourceFile source = one != null && changes.filesHanded == handedBefore + 1
          ? chunk.source(changelog.columns().orElseThrow(), () -> Optional.of(new SourceFile.Held(changelog, one))) : null;
      boolean last = i >= added.size();
      long from = reflected;
      long next = last ? latest : reflected; // a step of a long catch-up reflects no new version yet
      heldHeapBytes = chunk.heldBytes();
      ChangeApplication.Applied applied = application.apply(changelog, files, chunk.changes(), truncatedAt,
          floor -> offsets(from, next, floor), () -> hook.at(name, Step.BEFORE_COMMIT), source);
      committed(applied, next);
      truncatedAt = applied.truncatedAt();
    } while (i < added.size());
    written.forgetThrough(latest);
    lastApplied = new FilesApplied(changes.filesHanded, changes.filesRead);
    caughtUp();
    log.debug("Current-state table {} reflects version {} of its changelog ({} files applied)", name, latest, added.size());
  }

  /**
   * An <em>early</em> follow: applies the rows the changelog is writing as its version {@code
   * base + 1} while they are written, on the follower's thread beside the changelog's writer, and
   * commits once that commit has landed. A flush, then its follow, ran one after the other (each
   * holding the worker's buffer budget, so reading waited through both) while the second core had
   * little to do; now they overlap, and only the table's commit waits for the changelog's.
   *
   * <p>Exactly once as a follow: the table's commit records {@code base + 1} fenced on {@code base},
   * and it is made only when {@code landed} gives exactly {@code base + 1} (the rows' commit, with
   * no other commit of the changelog before it). It is not started unless the table reflects
   * {@code base} through this object's own last commit and the changelog as this object last read
   * it is at {@code base}; and the rows must read back from the file as they are (the hand-over's
   * rule, {@link ChangelogChanges}). Anything else (the changelog's commit failed or landed at
   * another version, another writer came first) abandons it before its commit: its files stay
   * orphans as any failed commit's do, and the ordinary follow applies the version instead.
   *
   * @param base the changelog's version before the rows' commit
   * @param columns the changelog's columns the rows are aligned with (the commit's, a new column included)
   * @param rows the rows being written (never changed afterwards), taken out of it once read
   * @param landed the version the rows' commit landed at; -1 when it failed
   * @return whether it took care of version {@code base + 1}: the table reflects it, or it failed
   *     as a follow fails (recorded; tried again at the next wake, or stopped for a refusal). False:
   *     it was not applied here (not eligible, or given up before the commit), and an ordinary
   *     follow applies it now
   */
  public synchronized boolean followEarly(
      long base, List<Column> columns, AtomicReference<List<Object[]>> rows, Future<Landed> landed) {
    if (refused != null) {
      return true; // stopped: no follow applies anything until an operator releases the table
    }
    try {
      target.refresh();
      checkOwned();
      if (changelog.version() < base) {
        changelog.refresh(); // its files at the base are where the merge looks up deletes, as a follow of it would
      }
      if (lastWritten < 0 || target.version() != lastWritten || writtenReflects != base || changelog.version() != base) {
        return false; // not current through our own commit: the ordinary follow looks at the logs
      }
      ChangelogChanges changes = new ChangelogChanges(name, changelog, columns, key, null);
      Chunk chunk = reduced(changes, columns, rows);
      if (chunk == null) {
        return false;
      }
      heldHeapBytes = chunk.heldBytes();
      long next = base + 1;
      SourceFile source = chunk.source(columns, () -> landedFile(landed));
      ChangeApplication.Applied done = application.apply(changelog, changelog.files(), chunk.changes(), writtenTruncate,
          floor -> offsets(base, next, floor), () -> {
            if (landedAt(landed).version() != next) {
              throw new ChangeApplication.NotCommitted("the changelog's commit did not land as version " + next);
            }
            hook.at(name, Step.BEFORE_COMMIT);
          }, source);
      committed(done, next);
      lastApplied = new FilesApplied(1, 0);
      earlyFollows++;
      problem = null;
      caughtUp();
      log.debug("Current-state table {} reflects version {} of its changelog (applied while it was written)", name, next);
      return true;
    } catch (ChangeApplication.NotCommitted e) {
      log.debug("Current-state table {}: {}; the next follow reads it", name, e.getMessage());
      return false;
    } catch (CommitConflictException | CommitFencedException raced) {
      log.debug("Current-state table {}: another commit came first ({}); the next follow reads again", name, raced.getMessage());
      return false;
    } catch (TableFailureException e) {
      stop(e);
      return true;
    } catch (RuntimeException e) {
      failed(base + 1, e); // as an ordinary follow's failure: tried again at the next wake
      return true;
    } finally {
      heldHeapBytes = 0;
    }
  }

  /** A follow toward changelog version {@code version} failed: recorded ({@code retrying}), tried again at the next wake. */
  private void failed(long version, RuntimeException e) {
    problem = e.toString();
    log.warn("Current-state table {} could not be brought up to version {} of its changelog yet (tried again after the"
        + " next changelog commit): {}", name, version, e.toString());
  }

  /** This object committed {@code applied} to the table, reflecting changelog version {@code reflects}. */
  private void committed(ChangeApplication.Applied applied, long reflects) {
    rowsTakenOver += application.rowsTakenOver();
    lastWritten = applied.version();
    commits++;
    reflected = reflects;
    writtenReflects = reflects;
    writtenTruncate = applied.truncatedAt();
  }

  /** How the changelog's commit of an early follow's rows ended: the version it landed at (-1: it failed), and its files. */
  record Landed(long version, List<TableFile> files) {
    static final Landed FAILED = new Landed(-1, List.of());
  }

  /** The changelog's commit of an early follow's rows, waited for; {@link Landed#FAILED} when it failed or never came. */
  private static Landed landedAt(Future<Landed> landed) {
    try {
      return landed.get(EARLY_FOLLOW_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Landed.FAILED;
    } catch (ExecutionException | TimeoutException e) {
      return Landed.FAILED;
    }
  }

  /** The one file the changelog's commit of an early follow's rows wrote (landed by now), if it wrote one. */
  private Optional<SourceFile.Held> landedFile(Future<Landed> landed) {
    List<TableFile> files = landedAt(landed).files();
    return files.size() == 1 ? Optional.of(new SourceFile.Held(changelog, files.get(0))) : Optional.empty();
  }

  /** The changes one commit applies, what they hold on the heap, and the index of the first file left for the next one. */
  private record Chunk(List<ChangeEvent> changes, long heapBytes, int end, LatestChanges.Kept<Object[]> rows, long read) {
    /**
     * What a follow of this chunk holds on the heap: the changes, what the merge builds for each,
     * and the changelog rows kept for the file's take-over (their arrays; the values are the
     * changes' own).
     */
    long heldBytes() {
      long rowArrays = rows.changes().isEmpty() ? 0 : rows.changes().size() * (16L + 4L * rows.changes().get(0).length);
      return heapBytes + changes.size() * MERGE_BYTES_PER_CHANGE + rowArrays;
    }

    /** The changelog file whose rows this chunk's commit takes over, when it is one file read whole. */
    SourceFile source(List<Column> columns, Supplier<Optional<SourceFile.Held>> file) {
      return new ChangelogFileRows(columns, rows, read, file);
    }
  }

  /**
   * Reads the files from {@code start} on into the changes of one commit: it ends at the row
   * limit, once no file left may hold an earlier change of a partition it applied. Only the
   * changes kept come back: the reduction's own map is garbage before the merge starts, which
   * holds the changes beside the worker's buffers.
   */
  private Chunk nextChunk(ChangelogChanges changes, List<TableFile> added, int start, PartitionOrder order) {
    LatestChanges<Object[]> chunk = new LatestChanges<>(changes, lastChunkKeys);
    int i = start;
    while (i < added.size() && (chunk.held() < maxRowsPerCommit && chunk.heapBytes() < maxBytesPerCommit
        || !order.mayEndBefore(added.subList(i, added.size())))) {
      changes.read(added.get(i++), row -> {
        order.applying(changes.partition(row), changes.offset(row));
        reduce(chunk, row);
      });
      heldHeapBytes = chunk.heapBytes();
    }
    LatestChanges.Kept<Object[]> kept = chunk.kept();
    return new Chunk(keptChanges(changes, chunk, kept), chunk.heapBytes(), i, kept, chunk.added());
  }

  /**
   * The changes of the rows being written, reduced; null when a key value would not read back
   * equal from the file. Takes the rows out of {@code holder}, and is a method of its own: the
   * reduction's map and the rows it dropped (half of a busy table's) are garbage before the merge
   * starts, as in {@link #nextChunk}, not held by the follow until its commit.
   */
  private Chunk reduced(ChangelogChanges changes, List<Column> columns, AtomicReference<List<Object[]>> holder) {
    List<Object[]> rows = holder.getAndSet(null);
    if (rows == null || !changes.readBackEqual(columns, rows)) {
      return null;
    }
    LatestChanges<Object[]> chunk = new LatestChanges<>(changes, lastChunkKeys);
    rows.forEach(row -> reduce(chunk, row));
    LatestChanges.Kept<Object[]> kept = chunk.kept();
    return new Chunk(keptChanges(changes, chunk, kept), chunk.heapBytes(), 1, kept, chunk.added()); // as the one file they are written to
  }

  /** Adds a changelog row to a reduction, and now and then what it holds to {@link #heldHeapBytes}. */
  private void reduce(LatestChanges<Object[]> chunk, Object[] row) {
    chunk.add(row);
    if ((chunk.added() & (PUBLISH_EVERY - 1)) == 0) {
      heldHeapBytes = chunk.heapBytes();
    }
  }

  /** The changes a reduction kept, as change events: only the rows kept become changes. */
  private List<ChangeEvent> keptChanges(ChangelogChanges changes, LatestChanges<Object[]> chunk, LatestChanges.Kept<Object[]> kept) {
    lastChunkKeys = chunk.keys();
    List<ChangeEvent> applied = new ArrayList<>(kept.changes().size());
    kept.changes().forEach(row -> applied.add(changes.change(row)));
    return applied;
  }

  /**
   * The changelog committed {@code version}: the table is behind from now on, as {@code /status}
   * shows at once, though its follow starts later, on the follower's thread.
   */
  public void changelogCommitted(long version) {
    sawChangelog(version);
  }

  /**
   * As {@link #changelogCommitted(long)}, with what the commit wrote: its data files and its rows,
   * aligned with {@code columns}, as given to the Parquet writer (never changed afterwards). A
   * commit of one file is applied from these rows instead of read back from the file.
   */
  public void changelogCommitted(long version, List<String> dataFiles, List<Column> columns, List<Object[]> rows) {
    if (dataFiles.size() == 1) {
      written.offer(version, dataFiles.get(0), columns, rows);
    }
    sawChangelog(version);
  }

  /**
   * What the follow that runs holds on the heap, estimated (its changes, and while it merges what
   * the merge builds over them); 0 between follows. From any thread: the worker counts it in its
   * buffer budget ({@code delivery.max_buffer_bytes}).
   */
  public long heldHeapBytes() {
    return heldHeapBytes;
  }

  /** Whether the follows look up no delete in the changelog: this object built the table from its first version. */
  boolean knowsEveryDelete() {
    return application.knowsEveryDelete();
  }

  /** Changelog files the last commit's delete lookups read. */
  int deleteFilesRead() {
    return application.changelogFilesRead();
  }

  /** Keys whose delete history the follows answered from what they learnt, without reading the changelog. */
  long deleteLookupsAnswered() {
    return application.deleteLookupsAnswered();
  }

  /** Files of the table the last commit's merge read (to find the rows it replaces, or where its keys are). */
  int tableFilesRead() {
    return application.targetFilesRead();
  }

  /** Rows this object's commits took over with the changelog's files instead of writing them (tests, the benchmark). */
  public long rowsTakenOver() {
    return rowsTakenOver;
  }

  /** Whether the last commit's merge found the rows it replaces without reading the table's files. */
  boolean rowsLocated() {
    return application.targetRowsLocated();
  }

  /** Rows handed over and not applied yet. */
  long heldRows() {
    return written.heldRows();
  }

  /** Lets go of the rows handed over and not applied yet (no follow will run here soon). */
  void forgetWritten() {
    written.forgetThrough(Long.MAX_VALUE);
  }

  /** Follows committed beside the changelog's write of their rows. */
  long earlyFollows() {
    return earlyFollows;
  }

  /** Changelog files a follow applied from the rows handed over, and files it read back. */
  record FilesApplied(int handed, int read) {}

  /** What the last follow that applied changes took from handed-over rows and read from the changelog. */
  FilesApplied lastApplied() {
    return lastApplied;
  }

  private void sawChangelog(long version) {
    synchronized (progressLock) {
      if (version > changelogVersion) {
        changelogVersion = version; // never back: a follow may have read the log before a commit noted here
      }
      if (reflected < changelogVersion && behindSince == null) {
        behindSince = clock.instant();
      }
    }
  }

  /** Reflects the latest version seen, unless the changelog committed another meanwhile. */
  private void caughtUp() {
    synchronized (progressLock) {
      if (reflected >= changelogVersion) {
        behindSince = null;
      }
    }
  }

  /**
   * The changelog's files holding the rows its commits after the reflected version added (all of
   * them for a new table): the files those commits added as new data, read from their commit
   * files. When one of those is gone already (an optimize of the changelog packed it into a new
   * file), the files the optimize wrote are applied as well: they hold its rows, and the older rows
   * they also hold change nothing when applied again. Without the commit files (cleaned up, after
   * a long stop) every file is applied again, which changes nothing the table reflects already.
   */
  private List<TableFile> added(List<TableFile> files, long reflectedVersion, long latest) {
    if (reflectedVersion < 0) {
      return files;
    }
    List<LoggedCommits.LoggedCommit> commits = LoggedCommits.since(changelog, reflectedVersion);
    if (commits.size() < latest - reflectedVersion) {
      log.warn("Commits after version {} of {} are no longer in its log: the current-state table {} applies the whole"
          + " changelog again", reflectedVersion, changelog.location(), name);
      return files;
    }
    Set<String> data = new java.util.HashSet<>();
    Set<String> moved = new java.util.HashSet<>();
    commits.forEach(c -> {
      data.addAll(c.addedData());
      moved.addAll(c.addedOther());
    });
    Set<String> present = new java.util.HashSet<>(files.stream().map(TableFile::path).toList());
    boolean packed = !present.containsAll(data);
    return files.stream().filter(f -> data.contains(f.path()) || packed && moved.contains(f.path())).toList();
  }

  /**
   * Refuses a table lakesink does not keep from this changelog, and one another engine wrote
   * data to since lakesink's last commit: every commit lakesink makes that changes the table's
   * data carries {@value #APP_ID}.
   */
  private void checkOwned() {
    if (!target.exists()) {
      return;
    }
    String source = target.properties().get(SOURCE_PROPERTY);
    if (!TableNames.changelog(name).equals(source)) {
      throw Errors.currentStateTableTaken(name, target.location(), source == null
          ? "a Delta table lakesink did not create as a current-state table (a MERGE table of this subscription, or another"
              + " tool's)"
          : "the current-state table of " + source);
    }
    long after = lastWritten >= 0 ? lastWritten : Math.max(-1, target.version() - LOG_LOOKBACK);
    List<LoggedCommits.LoggedCommit> commits = LoggedCommits.since(target, after);
    int start = 0;
    if (lastWritten < 0) {
      for (int c = 0; c < commits.size(); c++) {
        if (commits.get(c).appIds().contains(APP_ID)) {
          start = c + 1; // ours: what matters is what came after our last commit
        }
      }
    }
    for (LoggedCommits.LoggedCommit c : commits.subList(start, commits.size())) {
      if (c.changesData() && !c.appIds().contains(APP_ID)) {
        throw Errors.currentStateTableWrittenElsewhere(name, c.version(), c.engineInfo());
      }
    }
  }

  private static ChangeOrder truncate(Map<String, Long> stored) {
    if (!stored.containsKey(TRUNCATE_TS)) {
      return null;
    }
    Long ts = stored.get(TRUNCATE_TS);
    Long partition = stored.get(TRUNCATE_PARTITION);
    Long offset = stored.get(TRUNCATE_OFFSET);
    return new ChangeOrder(ts == null || ts == NULL ? null : ts,
        partition == null || partition == NULL ? null : partition.intValue(),
        offset == null || offset == NULL ? null : offset);
  }

  private static CommitOffsets offsets(long from, long next, ChangeOrder truncatedAt) {
    Map<String, Long> versions = new HashMap<>();
    versions.put(APP_ID, next);
    if (truncatedAt != null) {
      versions.put(TRUNCATE_TS, truncatedAt.tsMs() == null ? NULL : truncatedAt.tsMs());
      versions.put(TRUNCATE_PARTITION, truncatedAt.partition() == null || truncatedAt.partition() == Integer.MIN_VALUE
          ? NULL : truncatedAt.partition().longValue());
      versions.put(TRUNCATE_OFFSET, truncatedAt.offset() == null ? NULL : truncatedAt.offset());
    }
    return new CommitOffsets(versions, from < 0 ? Map.of() : Map.of(APP_ID, from));
  }

  /** Where the table stands, for {@code /status} and {@code /metrics}; from any thread, without waiting for a follow. */
  public Progress progress() {
    String state = refused != null ? "stopped" : problem != null ? "retrying" : behindSince != null ? "behind" : "current";
    String reason = refused != null ? refused.getMessage() : problem;
    long lag = changelogVersion < 0 ? 0 : Math.max(0, changelogVersion - Math.max(reflected, -1));
    Duration behind = behindSince == null ? Duration.ZERO : Duration.between(behindSince, clock.instant());
    return new Progress(name, state, reason, changelogVersion, reflected, lag, behind);
  }

  /** How many commits this object made to the table so far. */
  public long commits() {
    return commits;
  }

  /** Whether the table was refused (another owner, another engine's writes): it is no longer updated. */
  public Optional<TableFailureException> refusal() {
    return Optional.ofNullable(refused);
  }

  /** Stops the table for a reason found elsewhere (its catalog refused the name): no longer updated. */
  public void stop(TableFailureException reason) {
    refused = reason;
    log.error("Current-state table {} stopped (the changelog keeps flowing): {}", name, reason.getMessage());
  }

  /** An operator released the table: follow again (from what its log reflects). */
  public void release() {
    refused = null;
    lastWritten = -1;
    application.forgetKnownDeletes(); // the engine that was refused may have changed rows meanwhile
    target.forgetIdentity();
  }

  /**
   * @param state {@code current}, {@code behind} (the next follow brings it up to date),
   *     {@code retrying} (the last follow failed) or {@code stopped} (refused; see reason)
   * @param changelogVersion the changelog's latest version as last read
   * @param reflectedVersion the changelog version the table reflects, -1 before its first commit
   * @param lagVersions changelog versions the table does not reflect yet
   * @param lag how long the table has been behind the changelog (zero when it is not)
   */
  public record Progress(
      String table, String state, String reason, long changelogVersion, long reflectedVersion, long lagVersions,
      Duration lag) {}
}
