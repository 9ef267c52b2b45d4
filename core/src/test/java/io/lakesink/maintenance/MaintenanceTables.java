package io.lakesink.maintenance;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/** Real Delta tables on local disk, shaped like lakesink's two delivery modes, for maintenance tests. */
final class MaintenanceTables {
  static final List<Column> CHANGELOG = List.of(
      new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING),
      new Column("__op", ColumnType.STRING), new Column("__ingest_date", ColumnType.DATE));
  static final List<Column> MERGED = List.of(
      new Column("id", ColumnType.BIGINT), new Column("region", ColumnType.STRING), new Column("name", ColumnType.STRING));

  final Path dir;
  final LocalStorage storage;

  MaintenanceTables(Path dir) {
    this.dir = dir;
    this.storage = new LocalStorage(dir, "lakesink");
  }

  DeltaTable open(String name) {
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation(name));
  }

  Path root(String name) {
    return dir.resolve("lakesink").resolve(name);
  }

  /** Appends {@code commits} commits of {@code rows} rows each, alternating between two dates. */
  static void changelog(DeltaTable t, int commits, int rows) {
    long id = 0;
    for (int c = 0; c < commits; c++) {
      LocalDate day = LocalDate.of(2026, 11, 28 + c % 2);
      List<Object[]> batch = new ArrayList<>();
      for (int r = 0; r < rows; r++, id++) {
        batch.add(new Object[] {id, "name-" + id + "-" + "x".repeat((int) (id % 17)), "c", day});
      }
      t.commit(t.prepareAppend(new AppendRequest(CHANGELOG, List.of("__ingest_date"), Map.of("__ingest_date", day), batch,
          CommitOffsets.NONE, Map.of("delta.appendOnly", "true", "delta.checkpointInterval", "10"))));
    }
  }

  /** Inserts {@code commits} commits of {@code rows} rows with random distinct ids (files overlap on id). */
  static void merged(DeltaTable t, int commits, int rows, long seed) {
    Random random = new Random(seed);
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < (long) commits * rows; i++) {
      ids.add(i * 7);
    }
    java.util.Collections.shuffle(ids, random);
    for (int c = 0; c < commits; c++) {
      List<Object[]> batch = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        long id = ids.get(c * rows + r);
        batch.add(new Object[] {id, "region-" + (id % 5), "name-" + id});
      }
      mergedCommit(t, batch, List.of());
    }
  }

  static long mergedCommit(DeltaTable t, List<Object[]> rows, List<TableFile> removed) {
    return mergedCommit(t, rows, removed, Map.of("delta.checkpointInterval", "10"));
  }

  /** @param properties the table's properties, when this commit creates it */
  static long mergedCommit(DeltaTable t, List<Object[]> rows, List<TableFile> removed, Map<String, String> properties) {
    return t.commit(t.prepareAppend(new AppendRequest(MERGED, List.of(), Map.of(), rows, CommitOffsets.NONE, properties), removed));
  }

  /** The table's rows as sorted text, to compare contents. */
  static List<String> content(DeltaTable t) {
    t.refresh();
    return DeltaTableReader.readAll(t).stream().map(r -> new java.util.TreeMap<>(r).toString()).sorted().toList();
  }

  /** The data files (absolute paths) version {@code v} references. */
  static List<String> filesAt(DeltaTable t, long v) {
    Snapshot s = TableManager.loadSnapshot(t.location()).atVersion(v).build(KernelEngine.create(new LocalStorage(Path.of("/"), "")));
    List<String> out = new ArrayList<>();
    try (var batches = s.getScanBuilder().build().getScanFiles(KernelEngine.create(new LocalStorage(Path.of("/"), "")))) {
      while (batches.hasNext()) {
        try (var rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            out.add(InternalScanFileUtils.getAddFileStatus(rows.next()).getPath());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Every file under the table's directory but its log. */
  static List<Path> dataFiles(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).filter(p -> !root.relativize(p).toString().startsWith("_delta_log")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of one commit file of the log. */
  static String commitJson(Path root, long version) {
    try {
      return Files.readString(root.resolve("_delta_log").resolve(String.format("%020d.json", version)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
