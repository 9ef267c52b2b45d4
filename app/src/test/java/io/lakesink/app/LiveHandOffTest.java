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

      AtomicBoolean checking = new AtomicBoolean(true);
      AtomicInteger observations = new AtomicInteger();
      AtomicInteger inBoth = new AtomicInteger();
      Thread checker = new Thread(() -> {
        while (checking.get()) {
          boolean b = fake.table(BRONZE) != null;
          boolean s = fake.table(SILVER) != null;
          observations.incrementAndGet();
          if (b && s) {
            inBoth.incrementAndGet();
          }
        }
      }, "catalog-checker");
      checker.start();

      CatalogOwnershipEndToEndTest.send(topic, 0, 100);
      WorkerResult old;
      long fenced;
      long owned;
      try (TableStorage storage = Pipeline.storage(bronze.storage())) {
        RunningWorker worker = new RunningWorker(Pipeline.worker(bronze, storage, FlushHook.NONE, Clock.systemUTC()));
        try {
          RebalanceTest.awaitCondition(() -> stored(w, topic) >= 10 && fake.table(BRONZE) != null, "a first commit registered");
          AtomicLong atFence = new AtomicLong();
          AtomicLong atOwner = new AtomicLong();
          HandOffTest.handoff(bronze, "default." + SILVER, false, step -> {
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
      DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, old.states().get("stock_APPEND"));
      assertTrue(q.record().reason().contains(SILVER), q.record().reason()); // fenced mid-flush, or owned by silver

      // Restarted with the subscription pointing at the new entry: everything, exactly once.
      try (TableStorage storage = Pipeline.storage(silver.storage());
          Catalogs catalogs = Catalogs.of(silver, storage)) {
        RenamedTargets.refuse(silver, storage, catalogs, data.resolve("lakesink.yaml"));
      }
      WorkerResult resumed = CatalogOwnershipEndToEndTest.run(silver);
      assertTrue(resumed.allDelivering(), resumed.states().toString());
      checking.set(false);
      checker.join();

      List<Map<String, Object>> rows = w.rows("stock");
      TreeSet<Long> offsets = new TreeSet<>();
      rows.forEach(r -> offsets.add(((Number) r.get("__offset")).longValue()));
      assertEquals(110, rows.size(), "no event lost, none twice");
      assertEquals(110, offsets.size());
      assertEquals(0L, offsets.first());
      assertEquals(109L, offsets.last());
      assertEquals(0, inBoth.get(), "the entry was in both schemas at some of " + observations.get() + " observations");
      assertTrue(observations.get() > 10, "the checker observed throughout: " + observations.get());
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

      AtomicBoolean checking = new AtomicBoolean(true);
      AtomicInteger observations = new AtomicInteger();
      AtomicInteger inBoth = new AtomicInteger();
      Thread checker = new Thread(() -> {
        while (checking.get()) {
          boolean u;
          boolean i;
          try {
            // The destination first: the source is released before the destination is registered, so
            // a source still there after the destination was seen means both held the entry at once.
            i = server.location(entry) != null;
            u = fake.table(BRONZE) != null;
          } catch (RuntimeException e) {
            continue; // the catalog's SQLite file busy for a moment: not an observation
          }
          observations.incrementAndGet();
          if (u && i) {
            inBoth.incrementAndGet();
          }
        }
      }, "catalog-checker");
      checker.start();

      CatalogOwnershipEndToEndTest.send(topic, 0, 100);
      long fenced;
      long owned;
      try (TableStorage storage = Pipeline.storage(unity.storage())) {
        RunningWorker worker = new RunningWorker(Pipeline.worker(unity, storage, FlushHook.NONE, Clock.systemUTC()));
        try {
          RebalanceTest.awaitCondition(() -> stored(w, topic) >= 10 && fake.table(BRONZE) != null, "a first commit registered");
          AtomicLong atFence = new AtomicLong();
          AtomicLong atOwner = new AtomicLong();
          HandOffTest.handoff(unity, "lake", false, step -> {
            if (step == Step.FENCED) atFence.set(w.table("stock").version());
            if (step == Step.DONE) atOwner.set(w.table("stock").version());
          });
          fenced = atFence.get();
          owned = atOwner.get();
          CatalogOwnershipEndToEndTest.send(topic, 100, 110);
          QuarantineStore quarantine = new QuarantineStore(storage);
          RebalanceTest.awaitCondition(() -> quarantine.load("stock_APPEND").isPresent(), "the old worker stops the table");
        } finally {
          worker.stop();
        }
        new QuarantineStore(storage).release("stock_APPEND");
      }
      assertEquals(fenced + 1, owned, "between the fence and the new owner nobody committed");
      assertEquals(owned, w.table("stock").version(), "the old worker committed nothing after the hand-off");

      WorkerResult resumed = CatalogOwnershipEndToEndTest.run(lake);
      assertTrue(resumed.allDelivering(), resumed.states().toString());
      checking.set(false);
      checker.join();

      List<Map<String, Object>> rows = w.rows("stock");
      TreeSet<Long> offsets = new TreeSet<>();
      rows.forEach(r -> offsets.add(((Number) r.get("__offset")).longValue()));
      assertEquals(110, rows.size(), "no event lost, none twice");
      assertEquals(110, offsets.size());
      assertEquals(0, inBoth.get(), "the entry was in both catalogs at some of " + observations.get() + " observations");
      assertTrue(observations.get() > 10, "the checker observed throughout: " + observations.get());
      assertNull(fake.table(BRONZE));
      assertEquals(IcebergRestHandOffTest.deltaPaths(w.table("stock")), IcebergRestHandOffTest.icebergPaths(server));
      assertEquals(entry, TableOwner.of(w.table("stock").properties()).orElseThrow().entry());
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
