package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.CommandLineTest.Output;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.TableStorage;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refusal of the kept current-state table is a quarantine record of {@code <table>}, like a
 * table's: the changelog keeps flowing, the record survives a restart (the table stays stopped
 * even once the cause is gone), and {@code bin/lakesink quarantine release} lets it follow again.
 */
@Timeout(300)
class KeptTableQuarantineTest {
  @TempDir Path data;

  @Test
  void anotherTableAtTheKeptPathQuarantinesTheKeptTableUntilReleasedAndTheChangelogFlows() throws Exception {
    String topic = SharedKafka.newTopic("kept-quarantine", 1);
    CatalogOwnershipEndToEndTest.send(topic, 0, 5);
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    Path config = data.resolve("lakesink.yaml");
    Files.writeString(config, w.yaml());
    TableStorage storage = Pipeline.storage(w.config().storage());
    // Another tool's Delta table where the kept table would be.
    Path other = data.resolve("other.yaml");
    Files.writeString(other, w.yaml().replace("table: stock, primary_key: [id], current_state: {object: table}", "table: stock, mode: merge, primary_key: [id]"));
    DeltaTable foreign = MaintainCommandTest.mergedTable(other, 1);
    long foreignVersion = foreign.version();

    assertEquals(Main.OK, w.runToEnd());
    assertEquals(5, w.rows("stock").size(), "the changelog flows");
    QuarantineStore store = new QuarantineStore(storage);
    QuarantineRecord record = store.load("stock").orElseThrow(() -> new AssertionError("no quarantine record for stock"));
    assertTrue(record.reason().contains("bin/lakesink quarantine release --config <config file> --table stock"), record.reason());
    assertFalse(store.load("stock_APPEND").isPresent(), "the changelog is not quarantined");
    foreign.refresh();
    assertEquals(foreignVersion, foreign.version(), "the other table is never written");

    // The cause goes away, but the record stands: a restart does not look again.
    deleteTree(Path.of(URI.create(foreign.location())));
    CatalogOwnershipEndToEndTest.send(topic, 5, 7);
    assertEquals(Main.OK, w.runToEnd());
    assertEquals(7, w.rows("stock").size());
    assertTrue(store.load("stock").isPresent(), "still quarantined after the restart");
    assertFalse(Files.exists(Path.of(URI.create(foreign.location())).resolve("_delta_log")), "not kept while quarantined");

    Output released = CommandLineTest.run("quarantine", "release", "--config", config.toString(), "--table", "stock");
    assertEquals(Main.OK, released.exit(), released.err());
    assertTrue(released.out().contains("Released the current-state table stock"), released.out());
    assertFalse(store.load("stock").isPresent());
    assertEquals(Main.OK, w.runToEnd());
    DeltaTable kept = Pipeline.keptTable(storage, KernelEngine.create(storage), w.subscription("stock")).orElseThrow();
    assertEquals(7, DeltaTableReader.readAll(kept).size(), "kept again, caught up from the changelog");
  }

  /** Without a key the kept table is refused as a quarantine record; the changelog is delivered; a key releases it. */
  @Test
  void aChangelogWithoutAKeyQuarantinesOnlyItsKeptTableUntilTheSubscriptionGetsOne() throws Exception {
    String topic = SharedKafka.newTopic("kept-no-key", 1);
    CatalogOwnershipEndToEndTest.send(topic, 0, 5);
    WorkerHarness keyless = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: stock, current_state: {object: table}}");
    keyless.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    assertEquals(Main.OK, keyless.runToEnd(), "the worker starts and delivers the changelog");
    assertEquals(5, keyless.rows("stock").size());
    TableStorage storage = Pipeline.storage(keyless.config().storage());
    QuarantineStore store = new QuarantineStore(storage);
    QuarantineRecord record = store.load("stock").orElseThrow(() -> new AssertionError("no quarantine record for stock"));
    assertTrue(record.reason().contains("needs a key") && record.reason().contains("keeps flowing"), record.reason());
    assertTrue(Pipeline.keptTable(storage, KernelEngine.create(storage), keyless.subscription("stock")).isEmpty());

    WorkerHarness keyed = new WorkerHarness(data)
        .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
    keyed.delivery = keyless.delivery;
    assertEquals(Main.OK, keyed.runToEnd());
    assertFalse(store.load("stock").isPresent(), "the changed subscription released it");
    DeltaTable kept = Pipeline.keptTable(storage, KernelEngine.create(storage), keyed.subscription("stock")).orElseThrow();
    assertEquals(5, DeltaTableReader.readAll(kept).size(), "kept from the whole changelog");
  }

  static void deleteTree(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
