package io.lakesink.delta;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
      for (long id = 0; id < 3; id++) {
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
