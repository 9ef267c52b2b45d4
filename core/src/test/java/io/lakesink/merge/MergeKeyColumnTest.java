package io.lakesink.merge;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Column;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key columns at any table size, through the merge paths of issue 25 (known keys, key filters,
 * many files): a key column whose type changes fails the table with the column named, nothing
 * written; rows whose key is null — a change without one, or stored rows another writer left —
 * never match a key, and are never taken for one.
 */
class MergeKeyColumnTest {
  @TempDir Path dir;

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table() {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation("items"));
  }

  MergeDelivery worker() {
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())),
        MergeSettings.DEFAULT);
  }

  /** Three files of 300 ids each, overlapping ranges (a scrambled snapshot), by one worker. */
  long load(MergeDelivery d) {
    long offset = 0;
    for (int file = 0; file < 3; file++) {
      for (long id = file; id < 900; id += 3) {
        d.accept(event("t", 0, offset++, Operation.READ, 1L, row("id", id, "v", "snap")));
      }
      d.flush();
    }
    return offset;
  }

  @Test
  void aKeyColumnWhoseTypeChangesFailsTheTableWithTheColumnNamed() {
    MergeDelivery d = worker();
    long offset = load(d);
    long version = table().version();
    d.accept(event("t", 0, offset, Operation.UPDATE, 2L, row("id", "A-17", "v", "text key")));
    TableFailureException e = assertThrows(TableFailureException.class, d::flush);
    assertTrue(e.getMessage().contains("Column id of table items") && e.getMessage().contains("offset " + offset),
        e.getMessage());
    assertFalse(d.state().delivering(), "the table is quarantined, not the worker");
    assertEquals(version, table().version(), "nothing written");
  }

  @Test
  void storedRowsWithANullKeyAreNeverMatchedAndChangesWithoutAKeyAreDropped() {
    MergeDelivery d = worker();
    long offset = load(d);
    // Another writer appends rows whose key is null (lakesink never writes one).
    DeltaTable other = table();
    List<Column> columns = other.columns().orElseThrow();
    List<Object[]> nullKeyed = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Object[] r = new Object[columns.size()];
      r[columns.indexOf(columns.stream().filter(c -> c.name().equals("v")).findFirst().orElseThrow())] = "no key " + i;
      nullKeyed.add(r);
    }
    other.commit(other.prepareAppend(new AppendRequest(columns, List.of(), Map.of(), nullKeyed, CommitOffsets.NONE, Map.of())));

    MergeDelivery restarted = worker(); // reads the files: no known keys, filters built
    restarted.accept(event("t", 0, offset++, Operation.UPDATE, 2L, row("id", 5L, "v", "five")));
    restarted.accept(event("t", 0, offset++, Operation.CREATE, 2L, row("id", null, "v", "dropped")));
    restarted.accept(event("t", 0, offset++, Operation.DELETE, 2L, row("id", 7L, "v", null)));
    restarted.flush();
    d.accept(event("t", 0, offset++, Operation.UPDATE, 3L, row("id", 8L, "v", "eight"))); // the first worker, now behind
    d.flush();

    List<Map<String, Object>> rows = DeltaTableReader.readAll(table());
    assertEquals(900 - 1 + 2, rows.size());
    assertEquals(2, rows.stream().filter(r -> r.get("id") == null).count(), "the null-keyed rows stay as they are");
    assertTrue(rows.stream().noneMatch(r -> "dropped".equals(r.get("v"))));
    assertEquals(1, rows.stream().filter(r -> Long.valueOf(5).equals(r.get("id"))).count());
    assertEquals("five", rows.stream().filter(r -> Long.valueOf(5).equals(r.get("id"))).findFirst().orElseThrow().get("v"));
    assertEquals("eight", rows.stream().filter(r -> Long.valueOf(8).equals(r.get("id"))).findFirst().orElseThrow().get("v"));
    assertTrue(rows.stream().noneMatch(r -> Long.valueOf(7).equals(r.get("id"))));
  }
}
