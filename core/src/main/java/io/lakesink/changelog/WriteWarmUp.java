package io.lakesink.changelog;

import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a small throwaway changelog table, once per JVM, while a worker joins its consumer group.
 *
 * <p>Why: the first flush of a fresh JVM pays for loading Kernel's commit path, the Parquet
 * writer and the zstd codec (a native library) and for running them interpreted — about 3 s on
 * two cores, during which that table's events wait (bench/run freshness: the events of the first
 * commit were 4.3 s old, those of later ones at most 1.3 s, with a 1 s flush interval). The same
 * work done on a scratch table in the temporary directory moves that cost off the first real
 * commit. It writes through the changelog's own code (rows, Parquet, a fenced commit with a
 * transaction id, then a second commit on the existing table), so it warms what delivery runs.
 *
 * <p>Best effort: it touches no table of the configuration, and a failure (no temporary
 * directory, a full disk) is logged at debug level and changes nothing else.
 */
public final class WriteWarmUp {
  private static final Logger log = LoggerFactory.getLogger(WriteWarmUp.class);
  private static final AtomicBoolean DONE = new AtomicBoolean();
  private static final int ROWS = 2_000;

  private WriteWarmUp() {}

  /** Runs {@link #run} once per JVM; later calls do nothing (tests start many workers in one JVM). */
  public static void once() {
    if (DONE.compareAndSet(false, true)) {
      run(Path.of(System.getProperty("java.io.tmpdir")));
    }
  }

  /** @return whether both commits landed; the scratch table under {@code parent} is deleted either way */
  static boolean run(Path parent) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory(parent, "lakesink-warm-up-");
      log.info("Warming up the write path on a scratch table in {} (deleted when done; no table of the configuration)", dir);
      long started = System.nanoTime();
      DeltaTable table = new DeltaTable(KernelEngine.create(new LocalStorage(dir, "")), new LocalStorage(dir, "").tableLocation("t"));
      long first = write(table, 0);
      table.refresh();
      long second = write(table, ROWS);
      log.debug("Write path warmed up in {} ms", (System.nanoTime() - started) / 1_000_000);
      return second == first + 1;
    } catch (IOException | RuntimeException e) {
      log.debug("Warming up the write path failed (nothing depends on it)", e);
      return false;
    } finally {
      if (dir != null) {
        delete(dir);
      }
    }
  }

  private static long write(DeltaTable table, long from) {
    RowSchema schema = new RowSchema(List.of(
        new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING), new Column("amount", ColumnType.DOUBLE),
        new Column("active", ColumnType.BOOLEAN)), true);
    List<ChangeEvent> events = new ArrayList<>(ROWS);
    for (long offset = from; offset < from + ROWS; offset++) {
      Object[] values = {offset, "name-" + offset, offset * 0.5, offset % 2 == 0};
      events.add(new ChangeEvent(new SourcePosition("warm-up", 0, offset), Operation.UPDATE, 1_700_000_000_000L + offset, schema,
          values, List.of("id"), 64));
    }
    ChangelogRows rows = new ChangelogRows("warm_up", table.columns().orElse(List.of()), events);
    CommitOffsets offsets = new CommitOffsets(Map.of("lakesink/warm-up/0", from + ROWS), Map.of("lakesink/warm-up/0", from));
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    return table.commit(table.prepareAppend(rows.request(events, today, offsets, ChangelogDelivery.TABLE_PROPERTIES)));
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      log.debug("Could not delete the warm-up table {}", dir, e);
    }
  }
}
