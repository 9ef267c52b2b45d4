package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.lakesink.testing.LocalStorageVia;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.delta.kernel.internal.util.Utils;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * One writer process of {@link CrossProcessCommitRaceTest}, racing another one on the same
 * directory. It records the versions it won, one per line, in {@code <storage
 * directory>/<writer>.versions}.
 *
 * <p>Arguments: storage directory, writer name, count, barrier lock file, the file I/O ({@code
 * local}: LocalStorage's; {@code hadoop}: Kernel's HadoopFileIO, the old default), and what to
 * race: {@code appends} (count Delta appends through DeltaTable) or {@code claims} (a
 * put-if-absent of {@code _delta_log/N.json} for every N below count, as fast as possible).
 */
public final class CommitRaceWriter {
  static final String TABLE = "race";
  static final String CLAIMS = "claims";
  static final int ROWS_PER_COMMIT = 3;
  static final List<Column> COLUMNS =
      List.of(new Column("id", ColumnType.BIGINT), new Column("writer", ColumnType.STRING));

  public static void main(String[] args) throws Exception {
    Path storageDir = Path.of(args[0]);
    String writer = args[1];
    int commits = Integer.parseInt(args[2]);
    Path barrier = Path.of(args[3]);
    TableStorage storage = storage(storageDir, args[4]);
    boolean appends = args[5].equals("appends");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(TABLE));
    if (appends) {
      table.version(); // load the log before the start, so both start from the same snapshot
    }

    List<Long> versions = new ArrayList<>();
    try (FileChannel lock = FileChannel.open(barrier, StandardOpenOption.READ)) {
      System.out.println("ready");
      System.out.flush();
      // The test holds an exclusive lock until every writer is ready; shared locks let all go.
      try (FileLock go = lock.lock(0, Long.MAX_VALUE, true)) {
        for (int i = 1; i <= commits; i++) {
          if (appends) {
            versions.add(append(table, writer, i));
          } else if (claim(storage, writer, i)) {
            versions.add((long) i);
          }
        }
      }
    }
    Files.write(storageDir.resolve(writer + ".versions"), versions.stream().map(String::valueOf).toList());
  }

  /** Writes the writer's name as commit {@code version}; false if the version was taken. */
  static boolean claim(TableStorage storage, String writer, long version) throws IOException {
    try {
      storage.fileIO()
          .newOutputFile(commitFile(storage, version))
          .writeAtomically(Utils.toCloseableIterator(List.of(writer).iterator()), false);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    }
  }

  static String commitFile(TableStorage storage, long version) {
    return storage.tableLocation(CLAIMS) + "/_delta_log/" + String.format("%020d.json", version);
  }

  /** Rows with ids unique to the writer and commit, committed with the writer's transaction id. */
  static long append(DeltaTable table, String writer, int commit) {
    List<Object[]> rows = new ArrayList<>();
    for (int k = 0; k < ROWS_PER_COMMIT; k++) {
      rows.add(new Object[] {expectedId(writer, commit, k), writer});
    }
    AppendRequest request =
        new AppendRequest(COLUMNS, List.of(), Map.of(), rows,
            new io.lakesink.delta.CommitOffsets(Map.of(appId(writer), (long) commit), Map.of()), Map.of());
    for (int attempt = 1; ; attempt++) {
      try {
        return table.commit(table.prepareAppend(request));
      } catch (MaxCommitRetryLimitReachedException | ConcurrentWriteException e) {
        // Lost more races in a row than Kernel retries: re-read the log and prepare again, as
        // the delivery does.
        if (attempt == 50) {
          throw e;
        }
        table.refresh();
      }
    }
  }

  static long expectedId(String writer, int commit, int k) {
    return (writer.hashCode() & 0xffffL) * 1_000_000L + commit * 100L + k;
  }

  static String appId(String writer) {
    return "race-" + writer;
  }

  static TableStorage storage(Path dir, String fileIO) {
    LocalStorage local = new LocalStorage(dir, "");
    return switch (fileIO) {
      case "local" -> local;
      case "hadoop" -> new LocalStorageVia(local, new HadoopFileIO(new Configuration()), "local directory via HadoopFileIO");
      default -> throw new IllegalArgumentException("file I/O: local or hadoop, not " + fileIO);
    };
  }
}
