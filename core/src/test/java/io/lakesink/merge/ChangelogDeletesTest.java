package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Operation;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.view.ChangeOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** Deletes looked up in the changelog: the latest per key, and files whose delete filter rules a key out left unread. */
class ChangelogDeletesTest {
  @TempDir Path dir;

  /**
   * A key of the test, as a {@code bigint} or as a string (zero-padded: its order is the
   * number's, so files' key ranges prune alike); both are tested as the files store them.
   */
  private static Object id(long id, boolean strings) {
    return strings ? String.format("k%03d", id) : id;
  }

  private static RowKey key(long id, boolean strings) {
    return new RowKey(List.of("id"), List.of(id(id, strings)));
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void findsTheLatestDeleteAndSkipsFilesByTheirDeleteFilter(boolean strings) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    var engine = KernelEngine.create(storage);
    DeltaTable changelog = new DeltaTable(engine, storage.tableLocation("t_APPEND"));
    ChangelogDelivery d = new ChangelogDelivery(new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON,
        true), changelog, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
    // Three files, each spanning keys 0..100 with a delete of a key of its own.
    for (int f = 0; f < 3; f++) {
      d.accept(event("t", 0, f * 10, Operation.CREATE, 10L + f, row("id", id(0L, strings), "v", "x")));
      d.accept(event("t", 0, f * 10 + 1, Operation.CREATE, 10L + f, row("id", id(100L, strings), "v", "x")));
      d.accept(event("t", 0, f * 10 + 2, Operation.DELETE, 20L + f, row("id", id(10L + f, strings), "v", "x")));
      d.accept(event("t", 0, f * 10 + 3, Operation.DELETE, 30L + f, row("id", id(50L, strings), "v", "x")));
      d.flush();
    }
    changelog.refresh();
    KeyFilters filters = new KeyFilters(changelog.fileIO(), changelog.location());
    ChangelogDeletes first = new ChangelogDeletes(changelog, changelog.files(), filters);
    Map<RowKey, ChangeOrder> found = first.deletedAt(List.of(key(11, strings), key(50, strings), key(77, strings)));
    assertEquals(Map.of(key(11, strings), new ChangeOrder(21L, 0, 12L), key(50, strings), new ChangeOrder(32L, 0, 23L)), found,
        "the latest delete of each key; none for a key never deleted");
    assertEquals(3, first.filesRead, "every file's range holds the keys: all read once, their delete filters built");

    ChangelogDeletes later = new ChangelogDeletes(changelog, changelog.files(), filters);
    assertEquals(Map.of(key(12, strings), new ChangeOrder(22L, 0, 22L)), later.deletedAt(List.of(key(12, strings), key(77, strings))));
    assertEquals(1, later.filesRead, "only the file whose filter may hold 12 or 77 (a false positive aside)");
    assertEquals(2, later.filesSkippedByFilter);
  }

  /**
   * A delete ranks at its rank time: the snapshot row before it in its partition, in a file that
   * holds no delete, stamped later than the delete, sets it.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aDeleteRanksAtTheHighestTimeOfItsKeysChangesBeforeItInItsPartition(boolean strings) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    var engine = KernelEngine.create(storage);
    DeltaTable changelog = new DeltaTable(engine, storage.tableLocation("t_APPEND"));
    ChangelogDelivery d = new ChangelogDelivery(new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON,
        true), changelog, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
    d.accept(event("t", 0, 0, Operation.READ, 200L, row("id", id(1L, strings), "v", "snapshot")));
    d.accept(event("t", 1, 0, Operation.CREATE, 300L, row("id", id(2L, strings), "v", "another partition")));
    d.flush();
    d.accept(event("t", 0, 1, Operation.DELETE, 150L, row("id", id(1L, strings), "v", "snapshot")));
    d.accept(event("t", 0, 2, Operation.DELETE, 250L, row("id", id(2L, strings), "v", "another partition")));
    d.flush();
    changelog.refresh();
    ChangelogDeletes deletes = new ChangelogDeletes(changelog, changelog.files(), null);
    assertEquals(Map.of(key(1, strings), new ChangeOrder(200L, 0, 1L), key(2, strings), new ChangeOrder(250L, 0, 2L)),
        deletes.deletedAt(List.of(key(1, strings), key(2, strings))), "2's change of partition 1 does not raise its delete in partition 0");
    assertEquals(2, deletes.filesReadForRanks, "both files hold the keys");
  }
}
