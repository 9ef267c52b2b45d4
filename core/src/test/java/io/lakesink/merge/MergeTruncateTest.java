package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A truncate applied to a MERGE table: every row ranked below it goes, in one commit carrying its
 * position, with deletion vectors and copy-on-write alike; the table then equals the source.
 */
class MergeTruncateTest {
  @TempDir Path dir;

  MergeDelivery delivery(List<String> key, MergeSettings.DeletionVectors vectors) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, key, SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)),
        MergeSettings.DEFAULT.withDeletionVectors(vectors));
  }

  DeltaTable table() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
  }

  static ChangeEvent insert(int partition, long offset, long ts, long id, String v) {
    return event("t", partition, offset, Operation.CREATE, ts, row("id", id, "v", v));
  }

  static ChangeEvent truncate(int partition, long offset, long ts) {
    return ChangeEvent.truncate(new SourcePosition("t", partition, offset), ts, 50);
  }

  Map<Long, String> rows() {
    Map<Long, String> out = new TreeMap<>();
    DeltaTableReader.readAll(table()).forEach(r -> out.put((Long) r.get("id"), (String) r.get("v")));
    return out;
  }

  long storedOffset(int partition) {
    DeltaTable t = table();
    return t.transactionVersions(Set.of("lakesink/t/" + partition)).get("lakesink/t/" + partition);
  }

  /** The case: the database holds [3, 101, 102] after inserts, a truncate, then inserts. */
  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void insertsATruncateThenInsertsLeaveWhatCameAfter(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of("id"), vectors);
    for (long id = 1; id <= 4; id++) {
      d.accept(insert(0, id - 1, 1000 + id, id, "first file"));
    }
    d.flush();
    for (long id = 5; id <= 8; id++) {
      d.accept(insert(0, id - 1, 1000 + id, id, "second file"));
    }
    d.accept(event("t", 0, 8, Operation.UPDATE, 1010L, row("id", 3L, "v", "updated")));
    d.flush();
    assertEquals(2, table().files().size());

    long before = table().version();
    d.accept(truncate(0, 9, 2000));
    d.flush();
    assertEquals(Map.of(), rows(), "every row written before the truncate is gone");
    assertEquals(before + 1, table().version(), "in one commit");
    assertEquals(10L, storedOffset(0), "which carries the truncate's position");
    assertEquals(List.of(), table().files(), "files with no row left are removed, not kept with every row deleted");

    d.accept(insert(0, 10, 2001, 3, "again"));
    d.accept(insert(0, 11, 2002, 101, "new"));
    d.accept(insert(0, 12, 2003, 102, "new"));
    d.flush();
    assertEquals(Map.of(3L, "again", 101L, "new", 102L, "new"), rows());
    assertEquals(13L, storedOffset(0));
  }

  /** Inserts before and after the truncate in one batch, and rows that survive it in the same file. */
  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void oneBatchAroundATruncateAndRowsRankedAboveItStay(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of("id"), vectors);
    d.accept(insert(0, 0, 1000, 1, "older"));
    d.accept(insert(1, 0, 3000, 2, "p1, later than the truncate"));
    d.flush();
    d.accept(insert(0, 1, 1500, 3, "in the batch, before the truncate"));
    d.accept(insert(0, 2, 1600, 1, "updated, before the truncate"));
    d.accept(truncate(0, 3, 2000));
    d.accept(insert(0, 4, 2001, 1, "after"));
    d.accept(insert(0, 5, 2002, 4, "after"));
    d.flush();
    assertEquals(Map.of(1L, "after", 2L, "p1, later than the truncate", 4L, "after"), rows());
    assertEquals(6L, storedOffset(0));
  }

  /**
   * The ordering rule across partitions: a change of another partition with an earlier source
   * time, read after the truncate, is older than it and is dropped, as the view hides it.
   */
  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void aChangeRankedBelowTheTruncateReadLaterIsDropped(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of("id"), vectors);
    d.accept(insert(0, 0, 1000, 1, "a"));
    d.accept(truncate(0, 1, 2000));
    d.flush();
    d.accept(insert(1, 0, 1999, 2, "p1, earlier than the truncate"));
    d.accept(insert(1, 1, 2000, 3, "p1, same time: partition 1 ranks above partition 0"));
    d.accept(insert(1, 2, 2500, 4, "p1, later"));
    d.flush();
    assertEquals(Map.of(3L, "p1, same time: partition 1 ranks above partition 0", 4L, "p1, later"), rows());
    assertEquals(3L, storedOffset(1), "the dropped change's position is committed all the same");
  }

  /** Removing every file is what a truncate asks: not a merge rewriting far more than it received. */
  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void aTruncateOfManyFilesRaisesNoKeyWarning(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of("id"), vectors);
    long offset = 0;
    for (int file = 0; file < 3; file++) {
      for (long id = file * 100; id < file * 100 + 20; id++) {
        d.accept(insert(0, offset++, 1000 + offset, id, "x"));
      }
      d.flush();
    }
    assertEquals(3, table().files().size());
    d.accept(truncate(0, offset, 5000));
    d.flush();
    assertEquals(List.of(), table().files());
    assertEquals(List.of(), d.status().warnings());
  }

  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void aTableWithoutAKeyIsTruncatedToo(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of(), vectors);
    ChangeEvent keyless = new ChangeEvent(new SourcePosition("t", 0, 0), Operation.CREATE, 1000L,
        event("t", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "v", "a")).schema(), new Object[] {1L, "a"}, List.of(), 10);
    d.accept(keyless);
    d.flush();
    assertEquals(Map.of(1L, "a"), rows());
    d.accept(truncate(0, 1, 2000));
    d.accept(new ChangeEvent(new SourcePosition("t", 0, 2), Operation.CREATE, 2001L, keyless.schema(), new Object[] {2L, "b"},
        List.of(), 10));
    d.flush();
    assertEquals(Map.of(2L, "b"), rows());
  }

  @ParameterizedTest
  @EnumSource(value = MergeSettings.DeletionVectors.class, names = {"NEW_TABLES", "NONE"})
  void aTruncateFirstCreatesTheTableWithItsPosition(MergeSettings.DeletionVectors vectors) {
    MergeDelivery d = delivery(List.of("id"), vectors);
    d.accept(truncate(0, 0, 2000));
    d.flush();
    assertTrue(table().exists());
    assertEquals(1L, storedOffset(0));
    d.accept(insert(0, 1, 2001, 1, "a"));
    d.flush();
    assertEquals(Map.of(1L, "a"), rows());
  }
}
