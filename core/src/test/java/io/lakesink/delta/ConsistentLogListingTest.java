package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing of the Delta log that raced another writer (it holds {@code N.crc} but missed
 * {@code N.json}, as {@code readdir} may on a shared volume) is listed again instead of being
 * taken for a damaged log, which quarantined a table in the kill -9 soak; a log that really has
 * a hole is still reported.
 */
class ConsistentLogListingTest {
  private static final List<Column> COLUMNS = List.of(new Column("id", ColumnType.BIGINT));

  @TempDir Path tmp;

  @Test
  void aListingThatMissedTheLatestCommitIsListedAgain() {
    LocalStorage local = new LocalStorage(tmp, "lakesink");
    long latest = writeCommits(local, 3);
    assertTrue(Files.exists(logFile(latest, "crc")), "Kernel writes a checksum per commit");

    RacingStorage racing = new RacingStorage(local, latest, 2);
    DeltaTable table = new DeltaTable(KernelEngine.create(racing), local.tableLocation("t"));

    assertEquals(latest, table.version());
    assertEquals(Map.of("app", 3L), table.transactionVersions(List.of("app")));
    assertEquals(3, racing.listings.get(), "two racing listings, then a whole one");
  }

  @Test
  void aLogWithAHoleIsStillReportedAfterListingAgain() throws IOException {
    LocalStorage local = new LocalStorage(tmp, "lakesink");
    long latest = writeCommits(local, 4);
    Files.delete(logFile(latest - 1, "json")); // damage: a commit in the middle is gone
    Files.delete(logFile(latest - 1, "crc"));

    RacingStorage counting = new RacingStorage(local, latest, 0);
    DeltaTable table = new DeltaTable(KernelEngine.create(counting), local.tableLocation("t"));

    RuntimeException damaged = assertThrows(RuntimeException.class, table::version);
    assertTrue(damaged.getMessage().contains("contiguous"), damaged.getMessage());
    assertEquals(ConsistentLogListing.MAX_LISTINGS, counting.listings.get());
  }

  @Test
  void judgesListingsByCommitsChecksumsAndCheckpoints() {
    assertTrue(ConsistentLogListing.isConsistent(statuses("0.json", "1.crc", "1.json", "2.crc", "2.json")));
    assertTrue(ConsistentLogListing.isConsistent(statuses("10.checkpoint.parquet", "10.crc")),
        "a checkpoint whose commits were cleaned up");
    assertTrue(ConsistentLogListing.isConsistent(statuses()));
    assertFalse(ConsistentLogListing.isConsistent(statuses("1.json", "2.crc")), "checksum ahead");
    assertFalse(ConsistentLogListing.isConsistent(statuses("1.json", "3.json")), "hole");
    assertFalse(ConsistentLogListing.isConsistent(statuses("9.json", "10.checkpoint.parquet")), "checkpoint ahead");
  }

  private long writeCommits(LocalStorage storage, int commits) {
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t"));
    long version = -1;
    for (long c = 1; c <= commits; c++) {
      List<Object[]> rows = new ArrayList<>();
      rows.add(new Object[] {c});
      version = table.commit(table.prepareAppend(new AppendRequest(
          COLUMNS, List.of(), Map.of(), rows, new CommitOffsets(Map.of("app", c), Map.of("app", c - 1)), Map.of())));
    }
    return version;
  }

  private Path logFile(long version, String extension) {
    return tmp.resolve("lakesink/t/_delta_log").resolve(String.format("%020d.%s", version, extension));
  }

  private static List<FileStatus> statuses(String... names) {
    List<FileStatus> files = new ArrayList<>();
    for (String name : names) {
      String[] parts = name.split("\\.", 2);
      String file = String.format("%020d.%s", Long.parseLong(parts[0]), parts[1]);
      files.add(FileStatus.of("file:/t/_delta_log/" + file, 1, 1));
    }
    return files;
  }

  /** Local storage whose first {@code racingListings} log listings miss {@code hidden}.json. */
  private static final class RacingStorage implements TableStorage {
    private final LocalStorage local;
    private final String hidden;
    private final AtomicInteger racingLeft;
    final AtomicInteger listings = new AtomicInteger();

    RacingStorage(LocalStorage local, long hiddenVersion, int racingListings) {
      this.local = local;
      this.hidden = String.format("/%020d.json", hiddenVersion);
      this.racingLeft = new AtomicInteger(racingListings);
    }

    @Override
    public String tableLocation(String tableName) {
      return local.tableLocation(tableName);
    }

    @Override
    public String describe() {
      return "racing " + local.describe();
    }

    @Override
    public FileIO fileIO() {
      return new ForwardingFileIO(local.fileIO()) {
        @Override
        public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
          if (!filePath.contains("/_delta_log/")) {
            return super.listFrom(filePath);
          }
          listings.incrementAndGet();
          boolean racing = racingLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
          List<FileStatus> files = new ArrayList<>();
          try (CloseableIterator<FileStatus> listed = super.listFrom(filePath)) {
            listed.forEachRemaining(f -> {
              if (!(racing && f.getPath().endsWith(hidden))) {
                files.add(f);
              }
            });
          }
          return io.delta.kernel.internal.util.Utils.toCloseableIterator(files.iterator());
        }
      };
    }
  }
}
