package io.lakesink.migration;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.CurrentState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The migration's copy against real Delta tables written by the two deliveries. */
class ChangelogMigrationTest {
  @TempDir Path dir;

  private LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  private DeltaTable open(String name) {
    LocalStorage s = storage();
    return new DeltaTable(KernelEngine.create(s), s.tableLocation(name));
  }

  private DeliveryContext context() {
    return DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage()));
  }

  private MergeDelivery merge() {
    Subscription s = new Subscription("topic", "t", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, open("t"), open("t_APPEND"), context(), MergeSettings.DEFAULT);
  }

  private ChangelogDelivery changelog() {
    Subscription s = new Subscription("topic", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    return new ChangelogDelivery(s, open("t_APPEND"), open("t"), context());
  }

  private ChangelogMigration migration() {
    return new ChangelogMigration("t", open("t"), open("t_APPEND"), new MigrationJournal(storage()), MigrationHook.NONE,
        Clock.systemUTC());
  }

  @Test
  void aCopiedRowRanksBelowALaterChangeOfItsKeyEvenAtTheSameTsMs() {
    MergeDelivery merge = merge();
    merge.accept(event("topic", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "name", "merged-1")));
    merge.accept(event("topic", 0, 1, Operation.CREATE, 1000L, row("id", 2L, "name", "merged-2")));
    merge.flush();

    ChangelogMigration m = migration();
    assertTrue(m.pending());
    m.copy();
    assertEquals(MigrationStep.COPIED, m.step().orElseThrow());

    ChangelogDelivery changelog = changelog();
    changelog.storedOffsets(List.of(new io.lakesink.delivery.SourcePartition("topic", 0)));
    changelog.accept(event("topic", 0, 2, Operation.UPDATE, 1000L, row("id", 1L, "name", "later-1")));
    changelog.flush();

    List<Map<String, Object>> rows = DeltaTableReader.readAll(open("t_APPEND"));
    assertEquals(3, rows.size());
    Map<String, Object> copy = rows.stream().filter(r -> "merged-2".equals(r.get("name"))).findFirst().orElseThrow();
    assertEquals("r", copy.get("__op"));
    assertEquals(1000L, copy.get("__ts_ms"));
    assertNull(copy.get("__partition"));
    assertNull(copy.get("__offset"));
    List<Map<String, Object>> view = CurrentState.collapse(rows, List.of("id"), false);
    assertEquals(Map.of(1L, "later-1", 2L, "merged-2"),
        Map.of((Long) view.get(0).get("id"), view.get(0).get("name"), (Long) view.get(1).get("id"), view.get(1).get("name")));
  }

  @Test
  void aCopyThatLandedIsNeverRepeatedEvenWithoutItsJournal() throws Exception {
    MergeDelivery merge = merge();
    merge.accept(event("topic", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "name", "a")));
    merge.flush();
    migration().copy();
    Files.delete(Path.of(java.net.URI.create(new MigrationJournal(storage()).location("t"))));

    ChangelogMigration again = migration();
    assertTrue(again.pending(), "without a journal the MERGE table is found again");
    again.copy();
    assertEquals(1, DeltaTableReader.readAll(open("t_APPEND")).size(), "the commit's transaction id says it landed");
    assertEquals(MigrationStep.COPIED, again.step().orElseThrow());
  }

  @Test
  void aMergedValueWidensIntoTheChangelogsWiderColumn() {
    ChangelogDelivery changelog = changelog();
    changelog.accept(event("topic", 0, 0, Operation.CREATE, 900L, row("id", 9L, "qty", 5L)));
    changelog.flush();
    MergeDelivery merge = merge();
    merge.storedOffsets(List.of(new io.lakesink.delivery.SourcePartition("topic", 0)));
    merge.accept(event("topic", 0, 1, Operation.CREATE, 1000L, row("id", 1L, "qty", 7)));
    merge.flush();
    assertTrue(open("t").columns().orElseThrow().contains(new Column("qty", ColumnType.INT)));

    migration().copy();
    Map<String, Object> copy = DeltaTableReader.readAll(open("t_APPEND")).stream()
        .filter(r -> r.get("__offset") == null).findFirst().orElseThrow();
    assertEquals(7L, copy.get("qty"), "an int fits a bigint without loss");
  }

  @Test
  void onlyALakesinkMergeTableIsMigrated() {
    assertFalse(migration().pending(), "no table at the merge location");
    ChangelogDelivery changelog = changelog();
    changelog.accept(event("topic", 0, 0, Operation.CREATE, 900L, row("id", 9L)));
    changelog.flush();
    ChangelogMigration changelogShaped = new ChangelogMigration("t", open("t_APPEND"), open("t_APPEND"),
        new MigrationJournal(storage()), MigrationHook.NONE, Clock.systemUTC());
    assertFalse(changelogShaped.pending(), "a changelog's own columns say it is not a MERGE table");
  }
}
