package io.lakesink.currentstate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.modes.Deliveries;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follow applies the rows the changelog writer just wrote from memory instead of reading the
 * file back: the kept table must come out exactly as a follow that reads every file makes it, for
 * every column type, and a file whose key values would not read back equal must be read.
 */
class WrittenRowsTest {
  @TempDir Path dir;
  LocalStorage storage;
  Engine engine;

  static final RowSchema SCHEMA = new RowSchema(List.of(
      new Column("id", ColumnType.STRING), new Column("n", ColumnType.BIGINT), new Column("i", ColumnType.INT),
      new Column("f", ColumnType.FLOAT), new Column("x", ColumnType.DOUBLE), new Column("b", ColumnType.BOOLEAN),
      new Column("amount", ColumnType.decimal(10, 2)), new Column("day", ColumnType.DATE),
      new Column("at", ColumnType.TIMESTAMP), new Column("s", ColumnType.STRING)), true);

  @BeforeEach
  void setUp() {
    storage = new LocalStorage(dir, "lakesink");
    engine = KernelEngine.create(storage);
  }

  ChangelogDelivery delivery() {
    Subscription s = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    DeliveryContext context = DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage));
    return (ChangelogDelivery) Deliveries.of(s, storage, engine, context, MergeSettings.DEFAULT, true);
  }

  /** A table kept from the same changelog by a follower of its own: it never gets rows handed over, so it reads every file. */
  CurrentStateTable readingFollower() {
    return new CurrentStateTable("t", new DeltaTable(engine, storage.tableLocation("t_APPEND")),
        new DeltaTable(engine, storage.tableLocation("t_read")), List.of("id"), CurrentStateTable.Hook.NONE, Clock.systemUTC());
  }

  static ChangeEvent change(int partition, long offset, Operation op, long ts, Object... values) {
    return new ChangeEvent(new SourcePosition("t", partition, offset), op, ts, SCHEMA, values, List.of("id"), 100);
  }

  /** Values of every type, some that the writer stores less exactly than it is given them (nanoseconds, lone surrogates in values). */
  static Object[] values(SplittableRandom r, String id) {
    return new Object[] {
        id, r.nextLong(), r.nextInt(), (float) r.nextDouble(), r.nextDouble(), r.nextBoolean(),
        BigDecimal.valueOf(r.nextInt(1_000_000), 2), LocalDate.ofEpochDay(r.nextInt(40_000)),
        Instant.ofEpochSecond(1_700_000_000L + r.nextInt(1_000_000), r.nextInt(1_000_000_000)),
        r.nextInt(5) == 0 ? "lone \ud800 surrogate" : r.nextInt(5) == 0 ? null : "value-" + r.nextInt(100)};
  }

  static List<Map<String, Object>> rows(DeltaTable table) {
    List<Map<String, Object>> rows = new ArrayList<>(DeltaTableReader.readAll(table));
    rows.sort(Comparator.comparing(m -> (String) m.get("id")));
    return rows;
  }

  @Test
  void aTableKeptFromHandedOverRowsEqualsOneKeptByReadingEveryFile() {
    ChangelogDelivery d = delivery();
    CurrentStateTable kept = d.keptTable().orElseThrow();
    CurrentStateTable reading = readingFollower();
    SplittableRandom r = new SplittableRandom(7);
    long[] offsets = new long[3];
    int handed = 0;
    int read = 0;
    for (int commit = 0; commit < 12; commit++) {
      for (int n = 0; n < 40; n++) {
        int partition = r.nextInt(3);
        // Commits 5 and 7 carry a key that UTF-8 cannot carry (stored as "key ?"): taken from
        // memory, commit 7's update would not find the row commit 5 stored, and insert a second.
        boolean unpaired = (commit == 5 || commit == 7) && n == 0;
        String id = unpaired ? "key \udc00" : "key-" + r.nextInt(30);
        Operation op = unpaired ? (commit == 5 ? Operation.CREATE : Operation.UPDATE)
            : r.nextInt(6) == 0 ? Operation.DELETE : r.nextInt(3) == 0 ? Operation.CREATE : Operation.UPDATE;
        // Ties and times that go back within a partition: what the rank rules are about.
        d.accept(change(partition, offsets[partition]++, op, 1_000 + r.nextInt(50), values(r, id)));
      }
      d.flush();
      CurrentStateTableTest.followed(d);
      handed += kept.lastApplied().handed();
      read += kept.lastApplied().read();
      assertTrue(reading.follow());
    }
    assertEquals(0, kept.progress().lagVersions());
    assertEquals(0, d.heldHeapBytes(), "the delivery shows no follow holding changes once they are done");
    assertTrue(handed >= 10, "most commits applied from the rows handed over: " + handed);
    assertTrue(read >= 2, "the commits with a key UTF-8 cannot carry were read back: " + read);
    assertTrue(kept.rowsTakenOver() > 0, "rows of the commits handed over were taken over with the changelog's files");
    List<Map<String, Object>> fromMemory = rankTimes(rows(kept.table()));
    List<Map<String, Object>> fromFiles = rankTimes(rows(reading.table()));
    assertEquals(1, fromFiles.stream().filter(m -> m.get("id").equals("key ?")).count(), "one row of the unpaired key");
    assertEquals(fromFiles, fromMemory);
  }

  /**
   * Rows with {@code __rank_ts_ms} as it ranks them: a row taken over with the changelog's file
   * reads null there (the changelog has no such column), which ranks it at its {@code __ts_ms}.
   */
  static List<Map<String, Object>> rankTimes(List<Map<String, Object>> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      Map<String, Object> m = new java.util.LinkedHashMap<>(row);
      if (m.get("__rank_ts_ms") == null) {
        m.put("__rank_ts_ms", m.get("__ts_ms"));
      }
      out.add(m);
    }
    return out;
  }

  @Test
  void aKeyValueIsTakenFromMemoryOnlyWhenItReadsBackEqual() {
    assertTrue(ChangelogChanges.readsBackEqual("plain", ColumnType.STRING));
    assertFalse(ChangelogChanges.readsBackEqual("pair \ud83d\ude00", ColumnType.STRING),
        "a string with any surrogate is read back, paired or not (checked by char)");
    assertFalse(ChangelogChanges.readsBackEqual("lone \ud800", ColumnType.STRING));
    assertTrue(ChangelogChanges.readsBackEqual(Instant.ofEpochSecond(5, 123_000), ColumnType.TIMESTAMP));
    assertFalse(ChangelogChanges.readsBackEqual(Instant.ofEpochSecond(5, 123_456), ColumnType.TIMESTAMP));
    assertTrue(ChangelogChanges.readsBackEqual(new BigDecimal("1.50"), ColumnType.decimal(10, 2)));
    assertFalse(ChangelogChanges.readsBackEqual(new BigDecimal("1.5"), ColumnType.decimal(10, 2)));
    assertTrue(ChangelogChanges.readsBackEqual(7L, ColumnType.BIGINT));
    assertFalse(ChangelogChanges.readsBackEqual(7, ColumnType.BIGINT));
    assertTrue(ChangelogChanges.readsBackEqual(7, ColumnType.INT));
    assertTrue(ChangelogChanges.readsBackEqual(LocalDate.EPOCH, ColumnType.DATE));
    assertTrue(ChangelogChanges.readsBackEqual(null, ColumnType.DATE));
    assertFalse(ChangelogChanges.readsBackEqual(new byte[] {1}, ColumnType.STRING));
  }

  @Test
  void aTimestampKeyWithNanosecondsIsReadBackNotTakenFromMemory() {
    RowSchema schema = new RowSchema(List.of(new Column("id", ColumnType.TIMESTAMP), new Column("v", ColumnType.STRING)), true);
    Subscription s = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    ChangelogDelivery d = (ChangelogDelivery) Deliveries.of(s, storage, engine,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT, true);
    CurrentStateTable kept = d.keptTable().orElseThrow();
    Instant whole = Instant.ofEpochSecond(10, 5_000);
    d.accept(new ChangeEvent(new SourcePosition("t", 0, 0), Operation.CREATE, 1L, schema, new Object[] {whole, "a"}, List.of("id"), 10));
    d.flush();
    CurrentStateTableTest.followed(d);
    assertEquals(new CurrentStateTable.FilesApplied(1, 0), kept.lastApplied());
    // Stored as 10.000005 s: a key given as 10.000005001 s would not match it, nor its deletes, from memory.
    d.accept(new ChangeEvent(new SourcePosition("t", 0, 1), Operation.UPDATE, 2L, schema,
        new Object[] {whole.plusNanos(1), "b"}, List.of("id"), 10));
    d.flush();
    CurrentStateTableTest.followed(d);
    assertEquals(new CurrentStateTable.FilesApplied(0, 1), kept.lastApplied());
    List<Map<String, Object>> rows = DeltaTableReader.readAll(kept.table());
    assertEquals(1, rows.size(), "the update found the row it replaces: " + rows);
    assertEquals("b", rows.get(0).get("v"));
  }

  @Test
  void rowsAreNotHeldWhileTheFollowerIsBusyNorAfterThePartitionsAreRevoked() {
    ChangelogDelivery d = delivery();
    CurrentStateTable kept = d.keptTable().orElseThrow();
    CurrentStateFollower follower = d.keptFollower().orElseThrow();
    SplittableRandom r = new SplittableRandom(3);
    d.accept(change(0, 0, Operation.CREATE, 1, values(r, "a")));
    d.flush();
    CurrentStateTableTest.followed(d);
    assertEquals(new CurrentStateTable.FilesApplied(1, 0), kept.lastApplied(), "an idle follower takes the rows");
    // An optimize step of the table holds it: the follow this commit asks for waits, so its rows are not kept meanwhile.
    assertTrue(follower.tryHold());
    d.accept(change(0, 1, Operation.UPDATE, 2, values(r, "a")));
    d.flush();
    assertEquals(0, kept.heldRows(), "nothing held while the follower is busy");
    follower.release();
    CurrentStateTableTest.followed(d);
    assertEquals(new CurrentStateTable.FilesApplied(0, 1), kept.lastApplied(), "the follow read the file");
    // The partitions go to another worker: what is held is let go (no follow here takes it).
    d.storedOffsets(List.of(new SourcePartition("t", 0)));
    kept.changelogCommitted(99, List.of("x.parquet"), SCHEMA.columns(), List.<Object[]>of(new Object[0]));
    assertEquals(1, kept.heldRows());
    d.discard(List.of(new SourcePartition("t", 0)));
    assertEquals(0, kept.heldRows());
  }

  @Test
  void heldRowsAreBoundedOldestFirstAndForgottenOnceReflected() {
    WrittenRows held = new WrittenRows(5);
    List<Column> columns = List.of(new Column("id", ColumnType.BIGINT));
    List<Object[]> two = List.of(new Object[] {1L}, new Object[] {2L});
    held.offer(1, "a.parquet", columns, two);
    held.offer(2, "b.parquet", columns, two);
    assertEquals(4, held.heldRows());
    held.offer(3, "c.parquet", columns, two); // 6 > 5: the oldest goes
    assertNull(held.take("a.parquet"));
    assertEquals(4, held.heldRows());
    held.offer(4, "big.parquet", columns, java.util.Collections.nCopies(6, new Object[] {3L})); // more than the bound alone: not held
    assertNull(held.take("big.parquet"));
    held.forgetThrough(2);
    assertNull(held.take("b.parquet"));
    WrittenRows.Written c = held.take("c.parquet");
    assertSame(two, c.rows());
    assertEquals(3, c.version());
    assertEquals(0, held.heldRows());
  }
}
