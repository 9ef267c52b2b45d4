package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.migration.MigrationHook;
import io.lakesink.migration.MigrationJournal;
import io.lakesink.migration.MigrationStep;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.view.CurrentState;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The MERGE → changelog migration with a SQL warehouse (issue 12): a subscription switched from
 * merge to the changelog copies its merged rows into the changelog, renames the MERGE table
 * {@code <table>_PRE_CHANGELOG} and builds the view under the original name. Real broker, real
 * Delta tables, the fake workspace.
 */
@Timeout(300)
class MigrationEndToEndTest {
  @TempDir Path data;

  private static String warehouse() {
    return "  warehouse_id: " + FakeDatabricks.WAREHOUSE_ID + "\n";
  }

  private static WorkerResult run(WorkerHarness w, FakeDatabricks fake, String catalogExtra, MigrationHook hook) {
    var config = new io.lakesink.app.config.ConfigLoader(
            n -> n.equals("DATABRICKS_CLIENT_SECRET") ? FakeDatabricks.CLIENT_SECRET : null)
        .parse(w.yaml() + UnityCatalogEndToEndTest.catalogYaml(fake) + catalogExtra, "test");
    try (var storage = Pipeline.storage(config.storage()); var catalog = Pipeline.catalog(config)) {
      DeliveryContext context = DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withCatalog(catalog);
      try (var worker = Pipeline.worker(config, storage, context, hook)) {
        return worker.run(true);
      }
    }
  }

  /** Ten keys merged (0..9, the later of two rounds each), registered; then three updates after the switch. */
  private static String topicWithMergeHistory(Path data, FakeDatabricks fake, String name) {
    String topic = mergedOnly(data, fake, name);
    ModeSwitchTest.produce(topic, 20, 23, "u"); // keys 0, 1, 2 change after the switch
    return topic;
  }

  /** Ten keys merged and registered, nothing after. */
  private static String mergedOnly(Path data, FakeDatabricks fake, String name) {
    String topic = SharedKafka.newTopic(name, 1);
    ModeSwitchTest.produce(topic, 0, 20, "c");
    WorkerHarness merge = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, mode: merge, primary_key: [id]}");
    WorkerResult merged = run(merge, fake, "", MigrationHook.NONE);
    assertTrue(merged.allDelivering(), merged.states().toString());
    assertEquals("EXTERNAL", fake.table("main.bronze.t").path("table_type").asText(), "the MERGE table is registered");
    return topic;
  }

  private WorkerHarness changelog(String topic) {
    return new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, primary_key: [id]}");
  }

  /** The storage the workers write, as a test reads it. */
  private io.lakesink.storage.TableStorage storage() {
    return Pipeline.storage(changelog("unused").config().storage());
  }

  private List<Map<String, Object>> mergeRows() {
    var storage = storage();
    return DeltaTableReader.readAll(new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t")));
  }

  private MigrationStep journalStep() {
    return new MigrationJournal(storage()).load("t").orElseThrow().step();
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    return rows.stream().sorted(Comparator.comparing(r -> String.valueOf(r.get("id")))).toList();
  }

  /** What the view shows, computed with the view's rules over the changelog's rows. */
  private static List<Map<String, Object>> view(WorkerHarness w) {
    return sorted(CurrentState.collapse(w.rows("t"), List.of("id"), false));
  }

  private static long count(FakeDatabricks fake, String prefix) {
    return fake.statements().stream().filter(s -> s.startsWith(prefix)).count();
  }

  private static final String RENAME = "ALTER TABLE `main`.`bronze`.`t` RENAME TO `main`.`bronze`.`t_PRE_CHANGELOG`";
  private static final String CREATE_VIEW = "CREATE OR REPLACE VIEW `main`.`bronze`.`t`";

  @Test
  void theMergedRowsAreCopiedTheTableRenamedAndTheViewBuiltUnderItsName() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = topicWithMergeHistory(data, fake, "mig");
      List<Map<String, Object>> merged = mergeRows();
      assertEquals(10, merged.size());
      String mergeLocation = fake.table("main.bronze.t").path("storage_location").asText();

      WorkerHarness w = changelog(topic);
      WorkerResult result = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, result.states().get("t_APPEND"), result.states().toString());

      var kept = fake.table("main.bronze.t_PRE_CHANGELOG");
      assertEquals("EXTERNAL", kept.path("table_type").asText(), "renamed, never dropped");
      assertEquals(mergeLocation, kept.path("storage_location").asText(), "its files stay where they are");
      assertEquals("VIEW", fake.table("main.bronze.t").path("table_type").asText());
      List<String> statements = fake.statements();
      assertEquals(List.of(RENAME), statements.stream().filter(s -> s.startsWith("ALTER")).toList());
      assertTrue(statements.indexOf(RENAME) < statements.size() - 1
          && statements.get(statements.size() - 1).startsWith(CREATE_VIEW), statements.toString());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
      assertEquals(merged, mergeRows(), "the MERGE table's data is untouched");

      List<Map<String, Object>> changelog = w.rows("t");
      List<Map<String, Object>> copies = changelog.stream().filter(r -> r.get("__offset") == null).toList();
      assertEquals(10, copies.size(), "one row per key");
      for (Map<String, Object> c : copies) {
        assertEquals("r", c.get("__op"));
        assertEquals(false, c.get("__deleted"));
        assertNull(c.get("__partition"));
        Map<String, Object> source = merged.stream().filter(m -> m.get("id").equals(c.get("id"))).findFirst().orElseThrow();
        assertEquals(source.get("__ts_ms"), c.get("__ts_ms"), "at its own __ts_ms");
        assertEquals(source.get("name"), c.get("name"));
      }
      assertEquals(3, changelog.size() - copies.size(), "the changes after the switch");

      // The view: every key of the MERGE table, with the three later changes on top.
      Map<String, String> expected = new HashMap<>();
      merged.forEach(m -> expected.put((String) m.get("id"), (String) m.get("name")));
      expected.put("0", "v20");
      expected.put("1", "v21");
      expected.put("2", "v22");
      Map<String, String> shown = new HashMap<>();
      view(w).forEach(r -> shown.put((String) r.get("id"), (String) r.get("name")));
      assertEquals(expected, shown);

      // A restart finds the migration done: nothing copied, renamed or built again.
      int before = fake.statements().size();
      WorkerResult again = run(w, fake, warehouse(), MigrationHook.NONE);
      assertTrue(again.allDelivering(), again.states().toString());
      assertEquals(changelog.size(), w.rows("t").size());
      assertEquals(before, fake.statements().size(), fake.statements().toString());
    }
  }

  @Test
  void aSwitchWithoutAnyNewChangeMigratesAtStart() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = mergedOnly(data, fake, "mig-quiet");
      WorkerHarness w = changelog(topic);
      WorkerResult result = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, result.states().get("t_APPEND"), result.states().toString());
      assertEquals(10, w.rows("t").size());
      assertEquals("VIEW", fake.table("main.bronze.t").path("table_type").asText());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
    }
  }

  @ParameterizedTest
  @EnumSource(MigrationStep.class)
  void aStopRightAfterAnyStepResumesForwardAtTheNextStart(MigrationStep stopAfter) throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = topicWithMergeHistory(data, fake, "mig-stop-" + stopAfter.name().toLowerCase().replace('_', '-'));
      WorkerHarness w = changelog(topic);
      // The first run dies every time it reaches the step's record: the step took effect, the
      // journal does not say so.
      MigrationHook dies = (table, step) -> {
        if (step == stopAfter) {
          throw new InjectedCrash(step);
        }
      };
      if (stopAfter == MigrationStep.COPIED) {
        // The copy runs while the worker starts: the crash ends the start.
        assertThrows(InjectedCrash.class, () -> run(w, fake, warehouse(), dies));
        assertEquals(10, w.rows("t").size(), "the copy landed, nothing else was delivered");
        assertTrue(new MigrationJournal(storage()).load("t").isEmpty());
      } else {
        // The rename and the view run on the catalog thread: the table stays degraded, data flows.
        WorkerResult stopped = run(w, fake, warehouse(), dies);
        assertInstanceOf(DeliveryState.Degraded.class, stopped.states().get("t_APPEND"), stopped.states().toString());
        assertEquals(13, w.rows("t").size());
        assertEquals(1, count(fake, "ALTER TABLE"), "renamed before the stop: " + fake.statements());
        assertEquals(stopAfter == MigrationStep.RENAMED ? MigrationStep.COPIED : MigrationStep.RENAMED, journalStep());
      }

      WorkerResult resumed = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, resumed.states().get("t_APPEND"), resumed.states().toString());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
      assertEquals(10, w.rows("t").stream().filter(r -> r.get("__offset") == null).count(), "copied once");
      assertEquals(13, w.rows("t").size());
      assertEquals(1, count(fake, "ALTER TABLE"), "renamed once: " + fake.statements());
      assertEquals("EXTERNAL", fake.table("main.bronze.t_PRE_CHANGELOG").path("table_type").asText());
      assertEquals("VIEW", fake.table("main.bronze.t").path("table_type").asText());
      assertEquals(1, count(fake, CREATE_VIEW), "built once, found up to date after a stop: " + fake.statements());
    }
  }

  /** A process that dies: an Error, which nothing in the worker handles. */
  static final class InjectedCrash extends Error {
    InjectedCrash(MigrationStep after) {
      super("injected crash after " + after);
    }
  }

  @Test
  void aCopyThatFailsForNowLeavesTheSubscriptionFlowingAndTheNextStartMigrates() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = topicWithMergeHistory(data, fake, "mig-copy-fails");
      WorkerHarness w = changelog(topic);
      MigrationHook storageTrouble = (table, step) -> {
        throw new io.lakesink.error.RetryableException("injected: the journal cannot be written", null);
      };
      WorkerResult first = run(w, fake, warehouse(), storageTrouble);
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, first.states().get("t_APPEND"));
      assertTrue(d.reason().contains("is still this subscription's MERGE table"), d.reason());
      assertEquals(13, w.rows("t").size(), "the copy landed and the later changes were delivered");
      assertEquals("EXTERNAL", fake.table("main.bronze.t").path("table_type").asText(), "left under its name");

      WorkerResult second = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, second.states().get("t_APPEND"), second.states().toString());
      assertEquals(10, w.rows("t").stream().filter(r -> r.get("__offset") == null).count(), "copied once");
      assertEquals("VIEW", fake.table("main.bronze.t").path("table_type").asText());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
    }
  }

  @Test
  void aStepItsJournalCannotRecordIsAFailedBuildRetriedOnTheSchedule() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = topicWithMergeHistory(data, fake, "mig-journal");
      WorkerHarness w = changelog(topic);
      MigrationHook journalFails = (table, step) -> {
        if (step == MigrationStep.RENAMED) {
          throw new io.lakesink.error.RetryableException("injected: cannot write the journal", null);
        }
      };
      WorkerResult first = run(w, fake, warehouse(), journalFails);
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, first.states().get("t_APPEND"));
      assertTrue(d.reason().contains("The MERGE → changelog migration of t could not go on: injected"), d.reason());
      assertTrue(d.reason().contains("(attempt 1 failed; next attempt at "), d.reason());
      assertEquals(MigrationStep.COPIED, journalStep());

      WorkerResult second = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, second.states().get("t_APPEND"), second.states().toString());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
      assertEquals(1, count(fake, "ALTER TABLE"), fake.statements().toString());
    }
  }

  @Test
  void aRenameTheWarehouseFailsDegradesTheTableAndIsDoneAtTheNextAttempt() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = topicWithMergeHistory(data, fake, "mig-fail");
      WorkerHarness w = changelog(topic);
      fake.failNextStatement("PERMISSION_DENIED", "User does not have MODIFY on Table 'main.bronze.t'.");
      WorkerResult failed = run(w, fake, warehouse(), MigrationHook.NONE);
      DeliveryState.Degraded d = assertInstanceOf(DeliveryState.Degraded.class, failed.states().get("t_APPEND"));
      assertTrue(d.reason().contains("MODIFY"), d.reason());
      assertTrue(d.reason().contains("(attempt 1 failed; next attempt at "), d.reason());
      assertEquals(13, w.rows("t").size(), "the copy and the later changes are in the changelog anyway");
      assertEquals(MigrationStep.COPIED, journalStep());

      WorkerResult resumed = run(w, fake, warehouse(), MigrationHook.NONE);
      assertInstanceOf(DeliveryState.Healthy.class, resumed.states().get("t_APPEND"), resumed.states().toString());
      assertEquals("VIEW", fake.table("main.bronze.t").path("table_type").asText());
      assertEquals(MigrationStep.VIEW_BUILT, journalStep());
    }
  }

  @Test
  void aMergedValueTheChangelogCannotHoldStopsTheSubscriptionAndMergeModeResumes() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      String topic = SharedKafka.newTopic("mig-lossy", 1);
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(1, "int64", "5"));
        p.flush();
      }
      // An earlier changelog period (no warehouse) made qty a bigint in t_APPEND …
      WorkerHarness w = changelog(topic);
      assertTrue(run(w, fake, "", MigrationHook.NONE).allDelivering());
      // … then merge mode got qty as text.
      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(2, "string", "\"five\""));
        p.flush();
      }
      WorkerHarness merge = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t, mode: merge, primary_key: [id]}");
      assertTrue(run(merge, fake, "", MigrationHook.NONE).allDelivering());
      assertEquals(1, merge.rows("t").size());

      try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
        SharedKafka.send(p, topic, 0, null, QuarantineEndToEndTest.typed(3, "string", "\"six\""));
        p.flush();
      }
      WorkerResult stopped = run(w, fake, warehouse(), MigrationHook.NONE);
      DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, stopped.states().get("t_APPEND"));
      String reason = q.record().reason();
      assertTrue(reason.contains("its column qty is string but t_APPEND already has qty as bigint"), reason);
      assertTrue(reason.contains("Set the subscription back to mode: merge"), reason);
      assertFalse(reason.contains("five"), "never a value: " + reason);
      assertEquals(1, w.rows("t").size(), "nothing copied, nothing delivered: offsets frozen");
      assertEquals("EXTERNAL", fake.table("main.bronze.t").path("table_type").asText(), "not renamed");
      assertTrue(fake.statements().stream().noneMatch(s -> s.startsWith("ALTER")), fake.statements().toString());

      WorkerResult resumed = run(merge, fake, "", MigrationHook.NONE);
      assertTrue(resumed.allDelivering(), resumed.states().toString());
      assertEquals(2, merge.rows("t").size(), "merge mode went on where it stopped");
    }
  }
}
