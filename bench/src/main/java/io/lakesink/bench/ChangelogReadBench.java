package io.lakesink.bench;

import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.OptimizeResult;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.CurrentState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Reading a changelog table of many small commits against the same table optimized: the cost
 * optimize removes. Writes {@code commits} commits of {@code rows} changes each (as changelog
 * delivery lays them out: the row, {@code __op}, {@code __ts_ms}, partition and offset, by ingest
 * date), copies the table and optimizes the copy, then times on both, in this JVM with lakesink's
 * Kernel reader, {@code count(*)} (every file read) and the current-state query (the latest
 * change per key). Run with the bench module's classpath:
 *
 * <pre>
 * mvn -B -q -pl bench -am package -DskipTests
 * java -Xmx2g -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.lakesink.bench.ChangelogReadBench \
 *     [DIR] [COMMITS=5000] [ROWS=20] [KEYS=10000]
 * </pre>
 *
 * The tables stay in {@code DIR} ({@code small} and {@code optimized}) for a delta-spark reader.
 */
public final class ChangelogReadBench {
  static final List<Column> COLUMNS = List.of(
      new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING), new Column("balance", ColumnType.BIGINT),
      new Column("__op", ColumnType.STRING), new Column("__ts_ms", ColumnType.BIGINT),
      new Column("__partition", ColumnType.INT), new Column("__offset", ColumnType.BIGINT),
      new Column("__ingest_date", ColumnType.DATE));

  private ChangelogReadBench() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : Files.createTempDirectory("changelog-read").toString());
    int commits = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
    int rows = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int keys = args.length > 3 ? Integer.parseInt(args[3]) : 10_000;
    LocalStorage storage = new LocalStorage(dir, "");
    DeltaTable small = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("small"));
    long started = System.nanoTime();
    write(small, commits, rows, keys);
    System.out.printf("wrote %d commits of %d rows in %.1f s%n", commits, rows, seconds(started));
    copy(dir.resolve("small"), dir.resolve("optimized"));
    DeltaTable optimized = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("optimized"));
    started = System.nanoTime();
    OptimizeResult r = new TableMaintenance("optimized", optimized, List.of(), MaintenanceSettings.DEFAULT, Clock.systemUTC(),
        line -> {}).optimize(false);
    System.out.printf("%s in %.1f s%n", r, seconds(started));
    for (DeltaTable t : List.of(small, optimized, small, optimized)) { // twice: the second pass is warm
      time(t);
    }
  }

  private static void time(DeltaTable t) {
    long started = System.nanoTime();
    DeltaTable fresh = new DeltaTable(KernelEngine.create(new LocalStorage(Path.of("/"), "")), t.location());
    List<Map<String, Object>> all = DeltaTableReader.readAll(fresh);
    double count = seconds(started);
    started = System.nanoTime();
    List<Map<String, Object>> current = CurrentState.collapse(all, List.of("id"), false);
    double state = count + seconds(started);
    System.out.printf("%-60s files %6d  count(*) %8d in %6.2f s  current state %6d rows in %6.2f s%n",
        t.location(), fresh.files().size(), all.size(), count, current.size(), state);
  }

  private static void write(DeltaTable t, int commits, int rows, int keys) {
    Random random = new Random(17);
    long offset = 0;
    for (int c = 0; c < commits; c++) {
      LocalDate day = LocalDate.of(2026, 11, 1 + c * 28 / commits);
      List<Object[]> batch = new ArrayList<>(rows);
      for (int r = 0; r < rows; r++, offset++) {
        long id = random.nextInt(keys);
        batch.add(new Object[] {id, "name-" + id, (long) random.nextInt(1_000_000), offset < keys ? "c" : "u",
            1_770_000_000_000L + offset, 0, offset, day});
      }
      t.commit(t.prepareAppend(new AppendRequest(COLUMNS, List.of("__ingest_date"), Map.of("__ingest_date", day), batch,
          CommitOffsets.NONE, Map.of("delta.appendOnly", "true", "delta.checkpointInterval", "10"))));
    }
  }

  private static void copy(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
