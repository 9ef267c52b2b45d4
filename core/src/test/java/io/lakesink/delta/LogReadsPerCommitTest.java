package io.lakesink.delta;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.testing.LocalStorageVia;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush reads the log only from the version it commits on: the checksum of each commit follows
 * from the one before (Kernel's simple checksum), so no commit replays the log since the last
 * checkpoint. Before, a table created without a checksum never had one in memory, and every
 * commit read every commit file since the checkpoint twice (for its checksum and its domain
 * metadata): on Azure, a flush's requests grew from 9 to 20 in four versions.
 */
class LogReadsPerCommitTest {
  /** The interval lakesink sets on the tables it creates ({@code delta.checkpointInterval}). */
  private static final int CHECKPOINT_INTERVAL = 10;

  @TempDir Path dir;

  @Test
  void aChangelogFlushReadsOnlyTheCommitItCommitsOnButForACheckpoint() {
    ReadCounting reads = new ReadCounting(new LocalStorage(dir, "lakesink"));
    TableStorage storage = reads.storage;
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    ChangelogDelivery d = new ChangelogDelivery(subscription(DeliveryMode.CHANGELOG), table,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
    assertFlushesReadOnlySinceTheLastCheckpoint(reads, table, d, Map.of(), false);
  }

  @Test
  void aMergeFlushWithDeletionVectorsReadsNoCommitFileBeforeTheLastCheckpoint() {
    ReadCounting reads = new ReadCounting(new LocalStorage(dir, "lakesink"));
    TableStorage storage = reads.storage;
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    MergeDelivery d = new MergeDelivery(subscription(DeliveryMode.MERGE), table, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
    assertFlushesReadOnlySinceTheLastCheckpoint(reads, table, d, Map.of(), true);
    table.refresh();
    assertTrue(table.deletionVectorsEnabled());
    assertTrue(table.files().stream().anyMatch(TableFile::hasDeletionVector));
    assertEquals(2, table.files().size(), "the first flush's file (key 3 live) and the last one's: " + table.files());
  }

  /**
   * Kernel's checksum of a commit that adds a column would carry the schema from before: lakesink
   * writes it with the new one, so readers see the column and later commits keep the chain.
   */
  @Test
  void aColumnAddedMidStreamIsInItsChecksumAndLaterFlushesStillReadOnlyTheLatestCommit() throws Exception {
    ReadCounting reads = new ReadCounting(new LocalStorage(dir, "lakesink"));
    TableStorage storage = reads.storage;
    String location = storage.tableLocation("items");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), location);
    ChangelogDelivery d = new ChangelogDelivery(subscription(DeliveryMode.CHANGELOG), table,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
    assertFlushesReadOnlySinceTheLastCheckpoint(reads, table, d, Map.of(), false);
    long before = table.version();
    assertFlushesReadOnlySinceTheLastCheckpoint(reads, table, d, Map.of("extra", "x"), false);

    String widened = Files.readString(dir.resolve(String.format("lakesink/items/_delta_log/%020d.crc", before + 1)));
    assertTrue(widened.contains("extra"), widened);
    var reread = TableManager.loadSnapshot(location).atVersion(before + 1).build(KernelEngine.create(new LocalStorage(dir, "lakesink")));
    assertTrue(reread.getSchema().fieldNames().contains("extra"), reread.getSchema().toString());
  }

  /**
   * A MERGE table from before (deletion vectors, no checksum: Kernel cannot replay such a table
   * into one) gets its first at the next commit, computed by lakesink and equal to what its log
   * says; from there its flushes keep it in step.
   */
  @Test
  void aMergeTableWithoutChecksumsGetsItsFirstAtTheNextCommit() throws Exception {
    LocalStorage local = new LocalStorage(dir, "lakesink");
    DeltaTable before = new DeltaTable(KernelEngine.create(local), local.tableLocation("items"));
    MergeDelivery first = new MergeDelivery(subscription(DeliveryMode.MERGE), before, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(local)), MergeSettings.DEFAULT);
    for (int flush = 0; flush < 3; flush++) {
      for (long id = 0; id < 3; id++) {
        first.accept(event("t", 0, flush * 3 + id, Operation.UPDATE, 1000L + flush * 3 + id, row("id", id, "name", "v" + flush)));
      }
      first.flush();
    }
    Path log = dir.resolve("lakesink/items/_delta_log");
    try (var checksums = Files.list(log)) {
      for (Path crc : checksums.filter(f -> f.toString().endsWith(".crc")).toList()) {
        Files.delete(crc);
      }
    }

    ReadCounting reads = new ReadCounting(local);
    reads.offset = 100;
    DeltaTable table = new DeltaTable(KernelEngine.create(reads.storage), reads.storage.tableLocation("items"));
    MergeDelivery d = new MergeDelivery(subscription(DeliveryMode.MERGE), table, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(reads.storage)), MergeSettings.DEFAULT);
    d.accept(event("t", 0, reads.offset++, Operation.UPDATE, 2000L, row("id", 1L, "name", "seeded")));
    d.flush();
    long seeded = table.version();
    Path crc = log.resolve(String.format("%020d.crc", seeded));
    assertTrue(Files.exists(crc), "no checksum at version " + seeded);
    JsonNode sum = new ObjectMapper().readTree(crc.toFile());
    long[] filesAndBytes = liveFilesAndBytes(log, seeded);
    assertEquals(filesAndBytes[0], sum.path("numFiles").asLong(), sum.toString());
    assertEquals(filesAndBytes[1], sum.path("tableSizeBytes").asLong(), sum.toString());
    assertTrue(table.files().stream().anyMatch(TableFile::hasDeletionVector));

    assertFlushesReadOnlySinceTheLastCheckpoint(reads, table, d, Map.of(), true);
  }

  /** The live files and their bytes at {@code version}, replayed from the JSON commits by the protocol's rules. */
  private static long[] liveFilesAndBytes(Path log, long version) throws Exception {
    ObjectMapper json = new ObjectMapper();
    Map<String, Long> live = new HashMap<>();
    for (long v = 0; v <= version; v++) {
      for (String line : Files.readAllLines(log.resolve(String.format("%020d.json", v)))) {
        JsonNode action = json.readTree(line);
        if (action.has("add")) {
          live.put(action.get("add").get("path").asText(), action.get("add").get("size").asLong());
        } else if (action.has("remove")) {
          live.remove(action.get("remove").get("path").asText());
        }
      }
    }
    return new long[] {live.size(), live.values().stream().mapToLong(Long::longValue).sum()};
  }

  private static Subscription subscription(DeliveryMode mode) {
    return new Subscription("t", "items", mode, List.of("id"), SourceFormat.JSON, true);
  }

  /**
   * Twenty-five flushes of updates to the same keys, with {@code more} columns. Each reads the
   * commit it commits on, and a flush whose commit is a checkpoint (every tenth version) reads the
   * versions since the last one to write it; with {@code listsFiles} (a MERGE plans on the table's
   * files) every flush reads the versions since the last checkpoint, never older ones. The first
   * flush with {@code more} columns than before (a widening) reads its own commit back too.
   */
  private static void assertFlushesReadOnlySinceTheLastCheckpoint(
      ReadCounting reads, DeltaTable table, BufferedDelivery d, Map<String, Object> more, boolean listsFiles) {
    for (int flush = 0; flush < 25; flush++) {
      // Key 3 only in the first flush: with deletion vectors its file stays (with a vector of
      // the other three rows), while each later flush's file is emptied by the next one and removed.
      for (long id = 0; id < (flush == 0 ? 4 : 3); id++) {
        Map<String, Object> values = new LinkedHashMap<>(row("id", id, "name", "v" + flush));
        values.putAll(more);
        long offset = reads.offset++;
        d.accept(event("t", 0, offset, Operation.UPDATE, 1000L + offset, values));
      }
      long on = table.version();
      reads.commitFilesRead.clear();
      d.flush();
      assertTrue(d.state().delivering(), d.state().toString());
      if (on < 0) {
        continue; // the table's first flush creates it
      }
      long checkpoint = on / CHECKPOINT_INTERVAL * CHECKPOINT_INTERVAL;
      boolean writesCheckpoint = (on + 1) % CHECKPOINT_INTERVAL == 0;
      if (!writesCheckpoint) {
        // Listing the files replays the log once; a commit without its checksum in memory would
        // replay it again (for its checksum and domain metadata).
        List<String> older = reads.commitFilesRead.stream().filter(r -> !r.endsWith(String.format("%020d.json", on))).toList();
        assertEquals(older.size(), older.stream().distinct().count(), "flush " + flush + " on version " + on + " read " + older);
      }
      for (String read : reads.commitFilesRead) {
        long version = Long.parseLong(read.substring(read.lastIndexOf('/') + 1, read.length() - ".json".length()));
        // The commit adding the columns is read back once, for its checksum.
        boolean widening = flush == 0 && !more.isEmpty() && version == on + 1;
        boolean expected = version == on || widening || ((writesCheckpoint || listsFiles) && version >= checkpoint && version <= on + 1);
        assertTrue(expected, "flush " + flush + " on version " + on + " read " + reads.commitFilesRead);
      }
    }
  }

  /** Local storage noting the commit files ({@code _delta_log/N.json}) read. */
  private static final class ReadCounting {
    final List<String> commitFilesRead = new CopyOnWriteArrayList<>();
    final TableStorage storage;
    long offset;

    ReadCounting(LocalStorage local) {
      FileIO counting = new ForwardingFileIO(local.fileIO()) {
        @Override
        public InputFile newInputFile(String path, long fileSize) {
          if (path.matches(".*/_delta_log/\\d{20}\\.json")) {
            commitFilesRead.add(path);
          }
          return super.newInputFile(path, fileSize);
        }
      };
      storage = new LocalStorageVia(local, counting, "local directory, commit reads counted");
    }
  }
}
