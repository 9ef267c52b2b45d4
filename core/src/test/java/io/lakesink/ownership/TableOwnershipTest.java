package io.lakesink.ownership;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner a Delta table records decides who registers and who writes it: real Delta tables
 * on local storage, a catalog that records what it was asked.
 */
class TableOwnershipTest {
  @TempDir Path dir;
  final Subscription subscription = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
  final SourcePartition partition = new SourcePartition("t", 0);

  /** A catalog registering tables as {@code main.bronze.<table>}; remembers each call. */
  static final class RecordingCatalog implements TableCatalog {
    final List<String> calls = new ArrayList<>();

    @Override
    public void register(CatalogTable table) {
      calls.add("register " + table.name());
    }

    @Override
    public void registerExisting(CatalogTable table) {
      calls.add("registerExisting " + table.name());
    }

    @Override
    public Optional<String> entryName(String table) {
      return Optional.of("main.bronze." + table);
    }

    @Override
    public String describe() {
      return "recording catalog";
    }
  }

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table() {
    LocalStorage s = storage();
    return new DeltaTable(KernelEngine.create(s), s.tableLocation("t_APPEND"));
  }

  BufferedDelivery delivery(TableCatalog catalog, FlushHook hook) {
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage()))
        .withHook(hook).withBackoff(ms -> {}).withCatalog(catalog).withCatalogExecutor(Runnable::run);
    BufferedDelivery d = new ChangelogDelivery(subscription, table(), context);
    d.storedOffsets(List.of(partition));
    return d;
  }

  static void deliver(BufferedDelivery d, long from, long to) {
    for (long o = from; o < to; o++) {
      d.accept(event("t", 0, o, Operation.CREATE, 1000L + o, row("id", o, "v", o)));
    }
    d.flush(Long.MAX_VALUE);
    d.settle(Duration.ofSeconds(30));
  }

  Optional<TableOwner> owner() {
    return TableOwner.of(table().properties());
  }

  @Test
  void aNewTableIsStampedWithItsOwnerAndItsEntryIsCreatedOnceThenOnlyKeptUpToDate() {
    RecordingCatalog catalog = new RecordingCatalog();
    deliver(delivery(catalog, FlushHook.NONE), 0, 3);
    assertEquals(List.of("register t_APPEND"), catalog.calls);
    TableOwner owner = owner().orElseThrow();
    assertEquals(new TableOwner("default", "main.bronze.t_APPEND", 1, TableOwner.State.REGISTERED, null), owner);

    // A restart: the entry exists since the table says so; a missing one must not be created again.
    RecordingCatalog restarted = new RecordingCatalog();
    BufferedDelivery again = delivery(restarted, FlushHook.NONE);
    again.syncCatalog();
    again.settle(Duration.ofSeconds(30));
    assertEquals(List.of("registerExisting t_APPEND"), restarted.calls);
    assertInstanceOf(DeliveryState.Healthy.class, again.state());
  }

  @Test
  void aTableFromBeforeOwnershipIsAdoptedByTheConfiguredEntryAtFirstStart() {
    deliver(delivery(TableCatalog.NONE, FlushHook.NONE), 0, 2);
    assertEquals(Optional.empty(), owner(), "without a catalog nothing owns the table");

    RecordingCatalog catalog = new RecordingCatalog();
    BufferedDelivery d = delivery(catalog, FlushHook.NONE);
    d.syncCatalog();
    d.settle(Duration.ofSeconds(30));
    assertEquals(List.of("register t_APPEND"), catalog.calls, "an adopted table's entry may still be created");
    assertEquals(TableOwner.State.REGISTERED, owner().orElseThrow().state());
    assertEquals("main.bronze.t_APPEND", owner().orElseThrow().entry());
    deliver(d, 2, 4);
    assertEquals(4, DeltaTableReader.readAll(table()).size());
  }

  @Test
  void aHandOffFenceCommittedDuringAFlushStopsTheWriterBeforeAnythingLands() {
    RecordingCatalog catalog = new RecordingCatalog();
    boolean[] fence = {false};
    FlushHook hook = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && fence[0]) {
        fence[0] = false;
        // Another process (lakesink handoff) fences the table between our files and our commit.
        table().commitProperties(p -> new TableOwner("default", "main.bronze.t_APPEND", 2, TableOwner.State.HANDING_OFF,
            "other.main.silver.t_APPEND").properties());
      }
    };
    BufferedDelivery d = delivery(catalog, hook);
    deliver(d, 0, 3);
    fence[0] = true;
    for (long o = 3; o < 6; o++) {
      d.accept(event("t", 0, o, Operation.CREATE, 1000L + o, row("id", o, "v", o)));
    }
    TableFailureException e = assertThrows(TableFailureException.class, () -> d.flush(Long.MAX_VALUE));
    assertTrue(e.getMessage().contains("being handed off"), e.getMessage());
    assertTrue(e.getMessage().contains("other.main.silver.t_APPEND"), e.getMessage());
    assertInstanceOf(DeliveryState.Quarantined.class, d.state());
    assertEquals(3, DeltaTableReader.readAll(table()).size(), "nothing was committed after the fence");
    assertEquals(Map.of(partition, 3L), delivery(TableCatalog.NONE, FlushHook.NONE).storedOffsets(List.of(partition)),
        "the offsets stay frozen where the fence found them");
  }

  @Test
  void aFenceCommittedDuringAMergeStopsItToo() {
    // A MERGE commit is never rebased: losing the race makes it plan again, on the fenced log.
    Subscription merge = new Subscription("t", "t", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    LocalStorage s = storage();
    DeltaTable merged = new DeltaTable(KernelEngine.create(s), s.tableLocation("t"));
    boolean[] fence = {false};
    FlushHook hook = (table, step) -> {
      if (step == FlushStep.BEFORE_COMMIT && fence[0]) {
        fence[0] = false;
        new DeltaTable(KernelEngine.create(s), s.tableLocation("t")).commitProperties(p -> new TableOwner("default",
            "main.bronze.t", 2, TableOwner.State.HANDING_OFF, "default.main.silver.t").properties());
      }
    };
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(s))
        .withHook(hook).withBackoff(ms -> {}).withCatalog(new RecordingCatalog()).withCatalogExecutor(Runnable::run);
    BufferedDelivery d = new io.lakesink.merge.MergeDelivery(merge, merged, null, context, io.lakesink.merge.MergeSettings.DEFAULT);
    d.storedOffsets(List.of(partition));
    deliver(d, 0, 3);
    assertEquals(TableOwner.State.REGISTERED, TableOwner.of(merged.properties()).orElseThrow().state());
    fence[0] = true;
    d.accept(event("t", 0, 3, Operation.UPDATE, 2000L, row("id", 0L, "v", 99L)));
    TableFailureException e = assertThrows(TableFailureException.class, () -> d.flush(Long.MAX_VALUE));
    assertTrue(e.getMessage().contains("being handed off"), e.getMessage());
    merged.refresh();
    List<Map<String, Object>> rows = DeltaTableReader.readAll(merged);
    assertEquals(3, rows.size());
    assertTrue(rows.stream().noneMatch(r -> Long.valueOf(99L).equals(r.get("v"))), "the merge did not land: " + rows);
  }

  void ownedByAnotherEntry() {
    deliver(delivery(TableCatalog.NONE, FlushHook.NONE), 0, 2);
    table().commitProperties(p -> new TableOwner("default", "main.silver.t_APPEND", 3, TableOwner.State.REGISTERED, null)
        .properties());
  }

  @Test
  void aWorkerWithoutACatalogDoesNotWriteATableACatalogEntryOwns() {
    ownedByAnotherEntry();
    // The commit itself is refused.
    BufferedDelivery uncataloged = delivery(TableCatalog.NONE, FlushHook.NONE);
    uncataloged.accept(event("t", 0, 2, Operation.CREATE, 1002L, row("id", 2L, "v", 2L)));
    assertThrows(TableFailureException.class, () -> uncataloged.flush(Long.MAX_VALUE));
    assertEquals(2, DeltaTableReader.readAll(table()).size());
  }

  @Test
  void aTableOwnedByAnotherEntryIsNeitherRegisteredNorWritten() {
    ownedByAnotherEntry();
    RecordingCatalog catalog = new RecordingCatalog();
    BufferedDelivery d = delivery(catalog, FlushHook.NONE);
    d.syncCatalog();
    DeliveryState.Quarantined q = assertInstanceOf(DeliveryState.Quarantined.class, d.state());
    assertTrue(q.record().reason().contains("owned by catalog entry default:main.silver.t_APPEND"), q.record().reason());
    assertTrue(q.record().reason().contains("--to default.main.bronze.t_APPEND"), q.record().reason());
    assertEquals(List.of(), catalog.calls, "never registered under a second name");
    d.accept(event("t", 0, 2, Operation.CREATE, 1002L, row("id", 2L, "v", 2L)));
    d.flush(Long.MAX_VALUE);
    assertEquals(2, DeltaTableReader.readAll(table()).size());
  }
}
