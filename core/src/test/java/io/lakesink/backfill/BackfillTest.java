package io.lakesink.backfill;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.mapping.ColumnRule;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillTest {
  @TempDir Path dir;

  /** Rows held in memory, in order. */
  static final class ListSource implements BackfillSource {
    final List<SourceRow> rows;
    int next;

    ListSource(List<SourceRow> rows) {
      this.rows = rows;
    }

    @Override
    public String identity() {
      return "list";
    }

    @Override
    public String describe() {
      return "list";
    }

    @Override
    public OptionalLong estimatedRows() {
      return OptionalLong.of(rows.size());
    }

    @Override
    public List<SourceRow> next(int max) {
      List<SourceRow> out = new ArrayList<>(rows.subList(next, Math.min(rows.size(), next + max)));
      next += out.size();
      return out;
    }

    @Override
    public void close() {}
  }

  static final RowSchema TYPED = new RowSchema(List.of(new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING)), true);

  static SourceRow typed(long id, String name) {
    return new SourceRow(TYPED, new Object[] {id, name});
  }

  final Subscription merge = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);

  MergeDelivery worker(TableStorage storage) {
    return new MergeDelivery(merge, new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items")), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
  }

  static Map<Long, String> names(DeltaTable table) {
    table.refresh();
    Map<Long, String> out = new TreeMap<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(table)) {
      assertEquals(null, out.put((Long) r.get("id"), (String) r.get("name")), "one row per key: " + r.get("id"));
    }
    return out;
  }

  /** Local storage that runs {@code beforeFirstCommit} just before its first Delta commit file is written. */
  static TableStorage racing(LocalStorage local, Runnable beforeFirstCommit) {
    return new TableStorage() {
      boolean raced;

      @Override
      public String tableLocation(String tableName) {
        return local.tableLocation(tableName);
      }

      @Override
      public String describe() {
        return "racing " + local.describe();
      }

      @Override
      public FileIO fileIO() {
        return new ForwardingFileIO(local.fileIO()) {
          @Override
          public OutputFile newOutputFile(String p) {
            OutputFile out = super.newOutputFile(p);
            if (!p.matches(".*/_delta_log/\\d+\\.json")) {
              return out;
            }
            return new OutputFile() {
              @Override
              public String path() {
                return out.path();
              }

              @Override
              public PositionOutputStream create(boolean atomic) throws IOException {
                return out.create(atomic);
              }

              @Override
              public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
                if (!raced) {
                  raced = true;
                  beforeFirstCommit.run(); // the worker takes this version first
                }
                out.writeAtomically(data, overwrite);
              }
            };
          }
        };
      }
    };
  }

  @Test
  void anInsertRacingTheWorkerIsPlannedAgainSoAKeyTheWorkerJustDeliveredIsNotInsertedTwice() {
    LocalStorage local = new LocalStorage(dir, "lakesink");
    MergeDelivery worker = worker(local);
    worker.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "name", "stream1")));
    worker.flush();
    TableStorage racing = racing(local, () -> {
      worker.accept(event("t", 0, 1, Operation.CREATE, 20L, row("id", 3L, "name", "stream3")));
      worker.flush();
    });
    DeltaTable table = new DeltaTable(KernelEngine.create(racing), racing.tableLocation("items"));
    ListSource source = new ListSource(List.of(typed(1, "stream1"), typed(2, "old2"), typed(3, "old3"), typed(4, "old4")));

    Backfill.Outcome outcome = new Backfill(merge, table, source, new Backfill.Settings("b1", 10, false, false),
        BackfillProgress.NONE, Clock.systemUTC()).run();

    assertEquals(4, outcome.position());
    assertEquals(2, outcome.written(), "keys 2 and 4: the stream delivered 1 and, while the backfill planned, 3");
    assertEquals(Map.of(1L, "stream1", 2L, "old2", 3L, "stream3", 4L, "old4"), names(table));
    table.refresh();
    assertEquals(Map.of("lakesink/t/0", 2L, "lakesink-backfill-b1", 4L),
        table.transactionVersions(List.of("lakesink/t/0", "lakesink-backfill-b1")), "the worker's offsets stay its own");
  }

  @Test
  void aBackfilledMergeRowIsReplacedByAnyLaterChangeEvenOneWithoutASourceTime() {
    LocalStorage local = new LocalStorage(dir, "lakesink");
    MergeDelivery worker = worker(local);
    worker.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "name", "stream1")));
    worker.flush();
    DeltaTable table = new DeltaTable(KernelEngine.create(local), local.tableLocation("items"));
    new Backfill(merge, table, new ListSource(List.of(typed(2, "old2"))), new Backfill.Settings("b", 10, false, false),
        BackfillProgress.NONE, Clock.systemUTC()).run();
    table.refresh();
    Map<String, Object> two = DeltaTableReader.readAll(table).stream().filter(r -> r.get("id").equals(2L)).findFirst().orElseThrow();
    assertEquals("r", two.get("__op"));
    assertEquals(null, two.get("__ts_ms"), "no source time: it ranks below every change");

    // A flattened record without __ts_ms has no source time either: it still replaces the row.
    worker.accept(event("t", 0, 1, Operation.UPDATE, null, row("id", 2L, "name", "stream2")));
    worker.flush();
    assertEquals(Map.of(1L, "stream1", 2L, "stream2"), names(table));
  }

  @Test
  void untypedTextIsReadInTheTypeOfItsColumnThroughTheMappingAndAValueThatDoesNotFitIsRefusedByRow() {
    LocalStorage local = new LocalStorage(dir, "lakesink");
    // The stream renames src_id to id and casts "when" to a timestamp; amount keeps its source type.
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of(), SourceFormat.JSON, true, List.of(
        new ColumnRule("src_id", "id", null, true),
        new ColumnRule("when", "at", ColumnType.TIMESTAMP, false),
        new ColumnRule("amount", "amount", null, false)));
    MergeDelivery w = new MergeDelivery(s, new DeltaTable(KernelEngine.create(local), local.tableLocation("items")), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(local)), MergeSettings.DEFAULT);
    w.accept(event("t", 0, 0, Operation.CREATE, 10L, row("src_id", 1L, "when", "2026-01-02T03:04:05Z", "amount", 7)));
    w.flush();
    DeltaTable table = new DeltaTable(KernelEngine.create(local), local.tableLocation("items"));
    RowSchema text = new RowSchema(List.of(
        new Column("src_id", ColumnType.STRING), new Column("when", ColumnType.STRING), new Column("amount", ColumnType.STRING)), false);
    ListSource source = new ListSource(List.of(
        new SourceRow(text, new Object[] {"1", "2026-01-02 03:04:05", "7"}),
        new SourceRow(text, new Object[] {"2", "2026-02-03 04:05:06", "-8"})));

    Backfill.Outcome outcome = new Backfill(s, table, source, new Backfill.Settings("b", 10, false, false),
        BackfillProgress.NONE, Clock.systemUTC()).run();

    assertTrue(outcome.refusal().isEmpty(), outcome.toString());
    assertEquals(1, outcome.compared(), "key 1 renders as the stream rendered it");
    table.refresh();
    Map<String, Object> two = DeltaTableReader.readAll(table).stream().filter(r -> r.get("id").equals(2L)).findFirst().orElseThrow();
    assertEquals(Instant.parse("2026-02-03T04:05:06Z"), two.get("at"));
    assertEquals(-8, two.get("amount"), "an int column stays int");

    ListSource tooBig = new ListSource(List.of(new SourceRow(text, new Object[] {"3", "2026-02-03", "99999999999"})));
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> new Backfill(s, table, tooBig,
        new Backfill.Settings("c", 10, false, true), BackfillProgress.NONE, Clock.systemUTC()).run());
    assertTrue(e.getMessage().contains("Cannot write row 1 of the backfill source into table") && e.getMessage().contains("column amount"), e.getMessage());
    assertFalse(e.getMessage().contains("99999999999"), "values stay out of messages: " + e.getMessage());
  }

  @Test
  void aTableThatDoesNotExistOrASubscriptionWithoutKeyIsRefused() {
    LocalStorage local = new LocalStorage(dir, "lakesink");
    DeltaTable missing = new DeltaTable(KernelEngine.create(local), local.tableLocation("items"));
    ConfigurationException none = assertThrows(ConfigurationException.class, () -> new Backfill(merge, missing,
        new ListSource(List.of(typed(1, "a"))), new Backfill.Settings("b", 10, false, false), BackfillProgress.NONE, Clock.systemUTC()).run());
    assertTrue(none.getMessage().contains("does not exist") && none.getMessage().contains("Start the worker first"), none.getMessage());

    MergeDelivery w = worker(local);
    w.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "name", "a")));
    w.flush();
    Subscription keyless = new Subscription("t", "items", DeliveryMode.MERGE, List.of(), SourceFormat.JSON, true);
    ConfigurationException noKey = assertThrows(ConfigurationException.class, () -> new Backfill(keyless, missing,
        new ListSource(List.of(typed(1, "a"))), new Backfill.Settings("b", 10, false, false), BackfillProgress.NONE, Clock.systemUTC()).run());
    assertTrue(noKey.getMessage().contains("Set primary_key"), noKey.getMessage());
  }
}
