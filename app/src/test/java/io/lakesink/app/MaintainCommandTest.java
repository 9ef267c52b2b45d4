package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.CommandLineTest.Output;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(300)
class MaintainCommandTest {
  @TempDir Path dir;

  /** A MERGE table of {@code commits} small files, written as the delivery writes them. */
  static DeltaTable mergedTable(Path config, int commits) {
    WorkerConfig c = ConfigLoader.fromSystemEnvironment().load(config);
    Subscription s = c.subscriptions().get(0);
    TableStorage storage = Pipeline.storage(c.storage());
    DeltaTable t = Pipeline.table(storage, KernelEngine.create(storage), s);
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING));
    for (long i = 0; i < commits; i++) {
      List<Object[]> rows = new ArrayList<>();
      for (long r = 0; r < 20; r++) {
        rows.add(new Object[] {r * commits + i, "n" + i});
      }
      t.commit(t.prepareAppend(new AppendRequest(columns, List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    }
    return t;
  }

  @Test
  void maintainPrintsFilesAndBytesBeforeAndAfterAndADryRunChangesNothing() throws Exception {
    Path config = dir.resolve("lakesink.yaml");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "localhost:1", group_id: m}
        storage: {type: local, path: "%s"}
        subscriptions:
          - {topic: items, table: items, mode: merge, primary_key: [id]}
        """.formatted(dir.resolve("tables")));
    DeltaTable t = mergedTable(config, 12);
    List<Map<String, Object>> before = DeltaTableReader.readAll(t);
    long version = t.version();

    Output dry = CommandLineTest.run("maintain", "--config", config.toString(), "--table", "items", "--dry-run");
    assertEquals(Main.OK, dry.exit(), dry.err());
    assertTrue(dry.out().contains("optimize items: would rewrite 12 files into 1; before 12 files"), dry.out());
    assertTrue(dry.out().contains("vacuum items (retention 168 h): would delete 0 files"), dry.out());
    t.refresh();
    assertEquals(version, t.version());

    Output done = CommandLineTest.run("maintain", "--config", config.toString(), "--optimize");
    assertEquals(Main.OK, done.exit(), done.err());
    assertTrue(done.out().contains("optimize items: rewrote 12 files into 1; before 12 files, "), done.out());
    assertTrue(done.out().contains("after 1 files, "), done.out());
    assertTrue(done.out().contains("  items: read 12 files, 240 rows; clustering on [id]"), "progress: " + done.out());
    assertTrue(!done.out().contains("vacuum"), done.out());
    t.refresh();
    assertEquals(version + 1, t.version());
    assertEquals(1, t.files().size());
    assertEquals(before.size(), DeltaTableReader.readAll(t).size());

    Output refused = CommandLineTest.run("maintain", "--config", config.toString(), "--vacuum", "--retention-hours", "0");
    assertEquals(ExitCode.CONFIGURATION.code, refused.exit());
    assertTrue(refused.err().contains("--force"), refused.err());

    Output unknown = CommandLineTest.run("maintain", "--config", config.toString(), "--table", "nope");
    assertEquals(ExitCode.CONFIGURATION.code, unknown.exit());
  }

  @Test
  void aTableAnotherCatalogEntryOwnsOrAHandOffFencedIsNotMaintained() throws Exception {
    Path config = dir.resolve("lakesink.yaml");
    Files.writeString(config, """
        kafka: {bootstrap_servers: "localhost:1", group_id: m}
        storage: {type: local, path: "%s"}
        subscriptions:
          - {topic: items, table: items, mode: merge, primary_key: [id]}
        """.formatted(dir.resolve("tables")));
    DeltaTable t = mergedTable(config, 3);
    // This configuration has no catalog; the table records an owner, as a worker with one leaves it.
    t.commitProperties(p -> TableOwner.registering("lake", "main.bronze.items", 1).registered().properties());
    long version = t.version();
    List<String> files = t.files().stream().map(f -> f.path()).toList();

    Output owned = CommandLineTest.run("maintain", "--config", config.toString(), "--table", "items");
    assertEquals(ExitCode.CONFIGURATION.code, owned.exit(), owned.out());
    assertTrue(owned.err().contains("lakesink maintain refuses to write table items: it is owned by catalog entry lake:main.bronze.items"),
        owned.err());
    assertTrue(owned.err().contains("this configuration, which has no catalog"), owned.err());
    t.refresh();
    assertEquals(version, t.version(), "no optimize commit");
    assertEquals(files, t.files().stream().map(f -> f.path()).toList());

    t.commitProperties(p -> new TableOwner("lake", "main.bronze.items", 2, TableOwner.State.HANDING_OFF, "other.main.bronze.items")
        .properties());
    Output fenced = CommandLineTest.run("maintain", "--config", config.toString(), "--optimize");
    assertEquals(ExitCode.CONFIGURATION.code, fenced.exit(), fenced.out());
    assertTrue(fenced.err().contains("a hand-off fenced it"), fenced.err());
    t.refresh();
    assertEquals(version + 1, t.version(), "only the fence, no optimize commit");
  }

  /**
   * The current-state table a changelog subscription keeps ({@code current_state.object: table}) is
   * maintained with its changelog, clustered on the key like a MERGE table; the worker then keeps
   * following into it: the optimize's commit is not taken for another engine's write.
   */
  @Test
  void theKeptCurrentStateTableIsClusteredOnItsKeyAndTheWorkerKeepsFollowingIntoIt() throws Exception {
    String topic = SharedKafka.newTopic("maintain-kept", 1);
    try (var p = SharedKafka.producer()) {
      for (int i = 0; i < 12; i++) SharedKafka.send(p, topic, 0, "{\"id\":" + i + "}", ChangelogEndToEndTest.envelope("c", i, "a", i));
      SharedKafka.send(p, topic, 0, "{\"id\":3}", ChangelogEndToEndTest.envelope("u", 3, "b", 20));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(dir)
        .subscribe("- {topic: " + topic + ", table: stock, primary_key: [id], current_state: {object: table}}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 3\n";
    assertEquals(Main.OK, w.runToEnd());
    TableStorage storage = Pipeline.storage(w.config().storage());
    DeltaTable kept = Pipeline.keptTable(storage, KernelEngine.create(storage), w.subscription("stock")).orElseThrow();
    int files = kept.files().size();
    assertTrue(files > 1, "several follows, several files: " + files);
    Path config = dir.resolve("kept.yaml");
    Files.writeString(config, w.yaml());

    Output done = CommandLineTest.run("maintain", "--config", config.toString(), "--optimize");
    assertEquals(Main.OK, done.exit(), done.err());
    assertTrue(done.out().contains("optimize stock: rewrote " + files + " files into 1;"), done.out());
    assertTrue(done.out().contains("  stock: read " + files + " files, "), done.out());
    assertTrue(done.out().contains("clustering on [id]"), done.out());
    assertTrue(done.out().contains("optimize stock_APPEND: "), "the changelog too: " + done.out());
    kept.refresh();
    assertEquals(1, kept.files().size());

    try (var p = SharedKafka.producer()) {
      SharedKafka.send(p, topic, 0, "{\"id\":0}", ChangelogEndToEndTest.envelope("u", 0, "z", 30));
      p.flush();
    }
    assertEquals(Main.OK, w.runToEnd());
    kept.refresh();
    Map<String, String> names = new java.util.TreeMap<>();
    DeltaTableReader.readAll(kept).forEach(r -> names.put(String.valueOf(r.get("id")), String.valueOf(r.get("name"))));
    assertEquals(12, names.size());
    assertEquals("z", names.get("0"), "the worker followed into the optimized table (not refused as another engine's write)");
    assertEquals("b", names.get("3"));
  }
}
