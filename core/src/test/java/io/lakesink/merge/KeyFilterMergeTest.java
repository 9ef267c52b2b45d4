package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DataFileSidecars;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.maintenance.MaintenanceSettings;
import io.lakesink.maintenance.TableMaintenance;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Merges with key filters: a file whose filter rules out every batch key is not read, and a
 * filter is a cache the table never depends on: missing, truncated, damaged or another file's,
 * it is ignored and written again, and the merge reads the file.
 */
class KeyFilterMergeTest {
  @TempDir Path dir;

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table() {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation("t"));
  }

  MergeDelivery delivery(MergeSettings settings) {
    return delivery(settings, MergeModelTest.KEY);
  }

  MergeDelivery delivery(MergeSettings settings, List<String> key) {
    Subscription s = new Subscription("t", "t", DeliveryMode.MERGE, key, SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())), settings);
  }

  /**
   * The model test over many files: 600 keys (300 keyed on an integer alone), random batches (inserts, updates, deletes, ties and
   * out-of-order source times, keys moving partitions), and every few batches an optimize into
   * small files, so files, filters and clustered rewrites come and go. The table equals the
   * model, and filters did rule files out.
   */
  @ParameterizedTest
  @CsvSource({"1, NEW_TABLES, false", "2, NONE, false", "3, NEW_TABLES, true", "4, NONE, true"})
  void aTableMergedWithKeyFiltersEqualsTheModel(int seed, MergeSettings.DeletionVectors vectors, boolean integerKey) {
    Random random = new Random(seed);
    // Keyed on (k1, k2), or on k1 alone: an integer key, which merges test as a primitive.
    List<String> key = integerKey ? List.of("k1") : MergeModelTest.KEY;
    List<ChangeEvent> events = MergeModelTest.stream(random, integerKey ? 600 : 1_000, 300, integerKey);
    MergeDelivery d = delivery(MergeSettings.DEFAULT.withDeletionVectors(vectors), key);
    TableMaintenance optimize = new TableMaintenance("t", table(), key,
        MaintenanceSettings.DEFAULT.withTargetFileBytes(4 << 10), Clock.systemUTC(), line -> {});
    int i = 0;
    for (int batch = 1; i < events.size(); batch++) {
      int size = 10 + random.nextInt(60);
      for (int j = 0; j < size && i < events.size(); j++, i++) {
        d.accept(events.get(i));
      }
      d.flush();
      if (batch % 7 == 0) {
        optimize.optimize(false);
      }
    }
    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(MergeModelTest.model(events), MergeModelTest.table(rows));
    assertTrue(d.skippedByKeyFilters() > 0, "the filters ruled some files out");
    assertTrue(sidecars().size() > 0);
  }

  /** A filter is only ever a reason to skip a file when it is whole and this file's. */
  @Test
  void damagedOrForeignFiltersAreIgnoredAndWrittenAgain() throws IOException {
    MergeDelivery d = delivery(MergeSettings.DEFAULT);
    long offset = 0;
    for (int file = 0; file < 3; file++) { // three files with overlapping key ranges, 150 in none
      for (long k = file; k < 300; k += 3) {
        if (k != 150) {
          d.accept(event("t", 0, offset++, Operation.CREATE, offset, row("k1", k, "k2", "a", "v", "first")));
        }
      }
      d.flush();
    }
    // A worker started afresh does not know the table's keys (TableKeys): it looks for 150 in the files.
    d = delivery(MergeSettings.DEFAULT);
    d.accept(event("t", 0, offset++, Operation.UPDATE, offset, row("k1", 150L, "k2", "a", "v", "x"))); // reads all three
    d.flush();
    List<Path> filters = sidecars();
    List<TableFile> files = new ArrayList<>(table().files());
    files.sort(Comparator.comparing(f -> ((Number) f.min().get("k1")).longValue()));
    assertEquals(3, filters.size(), "one filter per file read: " + filters);

    Path first = sidecar(files.get(0));
    Path second = sidecar(files.get(1));
    Path third = sidecar(files.get(2));
    byte[] original = Files.readAllBytes(first);
    Files.write(first, java.util.Arrays.copyOf(original, original.length / 2)); // truncated
    Files.copy(third, second, java.nio.file.StandardCopyOption.REPLACE_EXISTING); // another file's
    byte[] flipped = Files.readAllBytes(third);
    flipped[flipped.length / 2] ^= 0x10;
    Files.write(third, flipped); // a flipped bit

    // One key of each file updated, by a worker started afresh (no filter in memory): a filter
    // taken at its word would hide the row, and the update would become a second row of its key.
    d = delivery(MergeSettings.DEFAULT);
    for (long k = 30; k < 33; k++) { // each alone: another file's filter must be the only one asked
      d.accept(event("t", 0, offset++, Operation.UPDATE, offset, row("k1", k, "k2", "a", "v", "second")));
      d.flush();
    }

    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    Map<String, String> state = MergeModelTest.table(rows); // one row per key
    assertEquals(300, state.size());
    for (long k = 30; k < 33; k++) {
      assertEquals("second,null", state.get(k + "/a"));
    }
    for (TableFile f : table().files()) {
      Path p = sidecar(f);
      if (Files.exists(p)) {
        assertTrue(KeyFilter.decode(Files.readAllBytes(p), DataFileSidecars.name(f.path()), f.size(), MergeModelTest.KEY).isPresent(),
            "written again, whole: " + p);
      }
    }
  }

  /** A filter goes with its file: vacuum deletes both, and keeps the filters of live files. */
  @Test
  void vacuumDeletesTheFilterOfEveryFileItDeletes() {
    MergeDelivery d = delivery(MergeSettings.DEFAULT);
    long offset = 0;
    for (int file = 0; file < 3; file++) {
      for (long k = file; k < 90; k += 3) {
        d.accept(event("t", 0, offset++, Operation.CREATE, offset, row("k1", k, "k2", "a", "v", "first")));
      }
      d.flush();
    }
    d.accept(event("t", 0, offset++, Operation.UPDATE, offset, row("k1", 45L, "k2", "a", "v", "x")));
    d.flush(); // reads the three files: three filters
    assertEquals(3, sidecars().size());
    TableMaintenance now = new TableMaintenance("t", table(), MergeModelTest.KEY, MaintenanceSettings.DEFAULT, Clock.systemUTC(),
        line -> {});
    assertTrue(now.optimize(false).committed()); // the four files clustered into one
    d.accept(event("t", 0, offset++, Operation.UPDATE, offset, row("k1", 46L, "k2", "a", "v", "y")));
    d.flush(); // reads the clustered file: its filter
    assertEquals(4, sidecars().size());

    Clock later = Clock.fixed(java.time.Instant.now().plus(java.time.Duration.ofDays(8)), java.time.ZoneOffset.UTC);
    new TableMaintenance("t", table(), MergeModelTest.KEY, MaintenanceSettings.DEFAULT, later, line -> {})
        .vacuum(java.util.Optional.empty(), false, false);

    List<String> live = table().files().stream().map(f -> DataFileSidecars.name(f.path()) + ".keys").toList();
    List<String> kept = sidecars().stream().map(p -> p.getFileName().toString()).toList();
    assertEquals(1, kept.size(), kept.toString());
    assertTrue(live.containsAll(kept), "only the filters of live files are kept: " + kept + " of " + live);
  }

  private Path sidecar(TableFile f) {
    return Path.of(java.net.URI.create(DataFileSidecars.keyFilter(table().location(), f.path())));
  }

  private List<Path> sidecars() {
    Path keys = dir.resolve("lakesink").resolve("t").resolve("_lakesink").resolve("keys");
    if (!Files.isDirectory(keys)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(keys)) {
      return files.toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
