package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Real Delta tables through Kernel's DefaultEngine on AzureFileIO, against Azurite. */
@ExtendWith(AzuriteExtension.class)
class DeltaTableOnAzuriteTest {
  private static AzureStorage storage;

  @BeforeAll
  static void setUp(Azurite azurite) {
    storage = TestStorages.onAzurite(azurite, azurite.createContainer());
  }

  @Test
  void createsAppendsAndReadsBack() {
    Engine engine = DefaultEngine.create(storage.fileIO());
    String path = storage.tableLocation("orders");
    Snapshot snapshot = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();
    assertEquals(0, snapshot.getVersion());
    for (int i = 1; i <= 3; i++) {
      TransactionCommitResult result =
          DeltaTables.append(engine, snapshot, "orders-writer", i, i * 10L, i * 10L + 1, i * 10L + 2);
      assertEquals(i, result.getVersion());
      snapshot = result.getPostCommitSnapshot().orElseThrow();
    }

    Snapshot loaded = DeltaTables.load(engine, path);
    assertEquals(3, loaded.getVersion());
    assertEquals(path, loaded.getPath().replaceAll("/$", ""));
    assertEquals(Optional.of(3L), loaded.getLatestTransactionVersion(engine, "orders-writer"));
    assertEquals(
        List.of(10L, 11L, 12L, 20L, 21L, 22L, 30L, 31L, 32L),
        DeltaTables.readIds(engine, path).stream().sorted().toList());

    // A checkpoint exercises create(atomic) for Parquet and an overwritten _last_checkpoint.
    try {
      loaded.writeCheckpoint(engine);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    Snapshot afterCheckpoint = DeltaTables.load(engine, path);
    assertEquals(3, afterCheckpoint.getVersion());
    assertEquals(9, DeltaTables.readIds(engine, path).size());
  }

  @Test
  void aLosingCommitRebasesOntoTheWinner() {
    Engine engine = DefaultEngine.create(storage.fileIO());
    String path = storage.tableLocation("rebase");
    Snapshot base = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();
    // Both start from version 0; the second one finds 1.json taken and must land as 2.json.
    assertEquals(1, DeltaTables.append(engine, base, "a", -1, 1L).getVersion());
    assertEquals(2, DeltaTables.append(engine, base, "b", -1, 2L).getVersion());
    assertEquals(List.of(1L, 2L), DeltaTables.readIds(engine, path).stream().sorted().toList());
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void racingWritersEachLandEveryCommitExactlyOnce() throws Exception {
    String path = storage.tableLocation("race");
    DeltaTables.create(DefaultEngine.create(storage.fileIO()), path);
    int writers = 2;
    int commitsEach = 25;
    int rowsPerCommit = 3;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  Engine engine = DefaultEngine.create(storage.fileIO());
                  Snapshot snapshot = DeltaTables.load(engine, path);
                  go.await();
                  for (int i = 1; i <= commitsEach; i++) {
                    long[] ids = new long[rowsPerCommit];
                    for (int k = 0; k < rowsPerCommit; k++) {
                      ids[k] = writer * 1_000_000L + i * 100L + k;
                    }
                    // After a rebase Kernel has no post-commit snapshot to offer: reload then.
                    snapshot =
                        DeltaTables.append(engine, snapshot, "writer-" + writer, i, ids)
                            .getPostCommitSnapshot()
                            .orElseGet(() -> DeltaTables.load(engine, path));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(140, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    Engine engine = DefaultEngine.create(storage.fileIO());
    Snapshot last = DeltaTables.load(engine, path);
    assertEquals(writers * commitsEach, last.getVersion());
    for (int w = 0; w < writers; w++) {
      assertEquals(Optional.of((long) commitsEach), last.getLatestTransactionVersion(engine, "writer-" + w));
    }
    List<Long> ids = DeltaTables.readIds(engine, path);
    assertEquals(writers * commitsEach * rowsPerCommit, ids.size());
    assertEquals(ids.size(), new HashSet<>(ids).size(), "no row twice");

    List<String> commits = new ArrayList<>();
    try (CloseableIterator<FileStatus> log =
        storage.fileIO().listFrom(path + "/_delta_log/" + String.format("%020d.", 0))) {
      log.forEachRemaining(f -> {
        if (f.getPath().endsWith(".json")) commits.add(f.getPath());
      });
    }
    assertEquals(writers * commitsEach + 1, commits.size());
    for (int v = 0; v < commits.size(); v++) {
      assertTrue(commits.get(v).endsWith(String.format("/%020d.json", v)), commits.get(v));
    }
  }
}
