package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.iceberg.rest.RestCatalogServer;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.ownership.HandOffRecord.Step;
import io.lakesink.ownership.TableOwner;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hand-off while a worker delivers: a checker thread polls both schemas of the fake for the
 * whole test; the entry is never in both, no commit lands between the fence and the new owner,
 * the old worker stops at its next commit, and the worker configured for the new entry
 * delivers every event exactly once.
 */
@Timeout(300)
class LiveHandOffTest {
  static final String BRONZE = HandOffTest.BRONZE;
  static final String SILVER = HandOffTest.SILVER;

  @TempDir Path data;

  @Test
  void aLiveWorkerIsFencedNoCommitIsLostOrForkedAndTheEntryIsNeverInTwoCatalogs() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      fake.addSchema("main", "silver");
      fake.grant("schema", "main.silver", "USE_SCHEMA", "CREATE_EXTERNAL_TABLE", "EXTERNAL_USE_SCHEMA");
      String topic = SharedKafka.newTopic("handoff-live", 1);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      w.kafkaExtra = "  properties:\n    max.poll.records: \"5\"\n";
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig bronze = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      WorkerConfig silver = CatalogOwnershipEndToEndTest.config(w, fake, "silver");

      EntryChecker checker = new EntryChecker(() -> fake.table(BRONZE) != null, () -> fake.table(SILVER) != null);
      WorkerResult old = handOffLive(w, topic, bronze, "default." + SILVER, () -> fake.table(BRONZE) != null);
      DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, old.states().get("stock_APPEND"));
      assertTrue(q.record().reason().contains(SILVER), q.record().reason()); // fenced mid-flush, or owned by silver

      // Restarted with the subscription pointing at the new entry: everything, exactly once.
      try (TableStorage storage = Pipeline.storage(silver.storage());
          Catalogs catalogs = Catalogs.of(silver, storage)) {
        RenamedTargets.refuse(silver, storage, catalogs, data.resolve("lakesink.yaml"));
      }
      WorkerResult resumed = CatalogOwnershipEndToEndTest.run(silver);
      assertTrue(resumed.allDelivering(), resumed.states().toString());
      checker.stopAndAssertNeverInBoth();
      assertEveryEventOnce(w);
      assertEquals(null, fake.table(BRONZE));
      assertEquals(w.table("stock").location(), fake.table(SILVER).path("storage_location").asText());
      assertEquals(SILVER, TableOwner.of(w.table("stock").properties()).orElseThrow().entry());
    }
  }

  /**
   * The same from Unity Catalog to an Iceberg REST catalog (a real server): the checker polls
   * both catalogs; after the restart under the new owner the Iceberg table lists exactly the
   * Delta table's files.
   */
  @Test
  void aLiveWorkerHandedToIcebergRestLosesNoCommitAndTheEntryIsNeverInBothCatalogs() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start();
        RestCatalogServer server = IcebergRestHandOffTest.server(data, true)) {
      String topic = SharedKafka.newTopic("handoff-live-iceberg", 1);
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
      w.kafkaExtra = "  properties:\n    max.poll.records: \"5\"\n";
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      WorkerConfig unity = IcebergRestHandOffTest.config(w, fake, server, false);
      WorkerConfig lake = IcebergRestHandOffTest.config(w, fake, server, true);
      String entry = IcebergRestHandOffTest.LAKE;

      EntryChecker checker = new EntryChecker(() -> fake.table(BRONZE) != null, () -> server.location(entry) != null);
      handOffLive(w, topic, unity, "lake", () -> fake.table(BRONZE) != null);

      WorkerResult resumed = CatalogOwnershipEndToEndTest.run(lake);
      assertTrue(resumed.allDelivering(), resumed.states().toString());
      checker.stopAndAssertNeverInBoth();
      assertEveryEventOnce(w);
      assertNull(fake.table(BRONZE));
      assertEquals(IcebergRestHandOffTest.deltaPaths(w.table("stock")), IcebergRestHandOffTest.icebergPaths(server));
      assertEquals(entry, TableOwner.of(w.table("stock").properties()).orElseThrow().entry());
    }
  }

  /**
   * 100 events delivered by a worker under {@code from} while the table is handed off to {@code
   * to}; 10 more make sure the old worker tries a commit after the hand-off, which must stop the
   * table (quarantined, then released as an operator would). Checks that nobody committed between
   * the fence and the new owner, and that the old worker committed nothing after it.
   *
   * @return what the old worker's run returned
   */
  static WorkerResult handOffLive(WorkerHarness w, String topic, WorkerConfig from, String to, BooleanSupplier registered)
      throws Exception {
    CatalogOwnershipEndToEndTest.send(topic, 0, 100);
    long fenced;
    long owned;
    WorkerResult old;
    try (TableStorage storage = Pipeline.storage(from.storage())) {
      RunningWorker worker = new RunningWorker(Pipeline.worker(from, storage, FlushHook.NONE, Clock.systemUTC()));
      try {
        RebalanceTest.awaitCondition(() -> stored(w, topic) >= 10 && registered.getAsBoolean(), "a first commit registered");
        AtomicLong atFence = new AtomicLong();
        AtomicLong atOwner = new AtomicLong();
        HandOffTest.handoff(from, to, false, step -> {
          if (step == Step.FENCED) atFence.set(w.table("stock").version());
          if (step == Step.DONE) atOwner.set(w.table("stock").version());
        });
        fenced = atFence.get();
        owned = atOwner.get();
        // The old worker's next commit meets the new owner: more events make sure there is one.
        CatalogOwnershipEndToEndTest.send(topic, 100, 110);
        QuarantineStore quarantine = new QuarantineStore(storage);
        RebalanceTest.awaitCondition(() -> quarantine.load("stock_APPEND").isPresent(), "the old worker stops the table");
      } finally {
        worker.stop();
      }
      old = worker.result;
      new QuarantineStore(storage).release("stock_APPEND"); // what `lakesink quarantine release` does
    }
    assertEquals(fenced + 1, owned, "between the fence and the new owner nobody committed");
    assertEquals(owned, w.table("stock").version(), "the old worker committed nothing after the hand-off");
    return old;
  }

  /** The 110 events in the table, each Kafka position once. */
  static void assertEveryEventOnce(WorkerHarness w) {
    List<Map<String, Object>> rows = w.rows("stock");
    TreeSet<Long> offsets = new TreeSet<>();
    rows.forEach(r -> offsets.add(((Number) r.get("__offset")).longValue()));
    assertEquals(110, rows.size(), "no event lost, none twice");
    assertEquals(110, offsets.size());
    assertEquals(0L, offsets.first());
    assertEquals(109L, offsets.last());
  }

  /**
   * Polls, on its own thread until stopped, whether the source and the destination catalog hold
   * the entry. The destination first: the source is released before the destination is
   * registered, so a source still there after the destination was seen means both held the entry
   * at once (read the other way round, a release between the two reads would look like both).
   */
  static final class EntryChecker {
    private final AtomicBoolean checking = new AtomicBoolean(true);
    private final AtomicInteger observations = new AtomicInteger();
    private final AtomicInteger inBoth = new AtomicInteger();
    private final Thread thread;

    EntryChecker(BooleanSupplier inSource, BooleanSupplier inDestination) {
      thread = new Thread(() -> {
        while (checking.get()) {
          boolean destination;
          boolean source;
          try {
            destination = inDestination.getAsBoolean();
            source = inSource.getAsBoolean();
          } catch (RuntimeException e) {
            continue; // a catalog busy for a moment (the REST server's SQLite file): not an observation
          }
          observations.incrementAndGet();
          if (source && destination) {
            inBoth.incrementAndGet();
          }
        }
      }, "catalog-checker");
      thread.start();
    }

    void stopAndAssertNeverInBoth() throws InterruptedException {
      checking.set(false);
      thread.join();
      assertEquals(0, inBoth.get(), "the entry was in both catalogs at some of " + observations.get() + " observations");
      assertTrue(observations.get() > 10, "the checker observed throughout: " + observations.get());
    }
  }

  /** A worker delivering on its own thread until stopped; keeps what its run returned. */
  static final class RunningWorker {
    final KafkaWorker worker;
    final Thread thread;
    volatile WorkerResult result;

    RunningWorker(KafkaWorker worker) {
      this.worker = worker;
      this.thread = new Thread(() -> {
        try (worker) {
          result = worker.run(false);
        }
      }, "worker");
      thread.start();
    }

    void stop() throws InterruptedException {
      worker.stop();
      thread.join(120_000);
    }
  }

  static long stored(WorkerHarness w, String topic) {
    return w.storedOffsets("stock", topic, 1).getOrDefault(new SourcePartition(topic, 0), 0L);
  }
}
