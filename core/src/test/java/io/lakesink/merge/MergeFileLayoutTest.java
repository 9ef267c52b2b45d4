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
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a copy-on-write merge lays out the files it writes: each touched file rewritten on its own
 * with the changed rows of its keys, and the inserts in a file of their own, sorted by the key, so
 * that the files keep narrow, disjoint key ranges and later merges read only the files their keys
 * fall in.
 */
class MergeFileLayoutTest {
  static final List<Column> COLUMNS = List.of(
      new Column("id", ColumnType.BIGINT), new Column("v", ColumnType.STRING), new Column("__op", ColumnType.STRING),
      new Column("__ts_ms", ColumnType.BIGINT), new Column("__partition", ColumnType.INT), new Column("__offset", ColumnType.BIGINT));

  @TempDir Path dir;

  DeltaTable table() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    return new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
  }

  MergeDelivery delivery() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, table(), null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
  }

  /** Three files of 50 rows each, ids 0-49, 100-149, 200-249, each written in descending id order. */
  void threeUnsortedFiles() {
    DeltaTable t = table();
    for (int file = 0; file < 3; file++) {
      List<Object[]> rows = new ArrayList<>();
      for (long id = file * 100 + 49; id >= file * 100; id--) {
        rows.add(new Object[] {id, "a", "c", 1L, 0, id});
      }
      t.commit(t.prepareAppend(new AppendRequest(COLUMNS, List.of(), Map.of(), rows, CommitOffsets.NONE, Map.of())));
    }
  }

  static List<Long> ids(DeltaTable t, TableFile f) {
    return t.read(f).stream().map(r -> (Long) r.get("id")).toList();
  }

  @Test
  void eachTouchedFileIsRewrittenOnItsOwnKeepingItsKeyRangeAndInsertsGetAFileOfTheirOwn() {
    threeUnsortedFiles();
    Set<String> before = table().files().stream().map(TableFile::path).collect(Collectors.toSet());
    MergeDelivery d = delivery();
    d.accept(event("t", 0, 1000, Operation.UPDATE, 2L, row("id", 20L, "v", "b")));
    d.accept(event("t", 0, 1001, Operation.CREATE, 2L, row("id", 305L, "v", "new")));
    d.accept(event("t", 0, 1002, Operation.DELETE, 2L, row("id", 230L)));
    d.accept(event("t", 0, 1003, Operation.CREATE, 2L, row("id", 301L, "v", "new")));
    d.flush();

    DeltaTable t = table();
    List<TableFile> written = t.files().stream().filter(f -> !before.contains(f.path()))
        .sorted(Comparator.comparing(f -> ((Number) f.min().get("id")).longValue())).toList();
    assertEquals(3, written.size(), "the two touched files rewritten one by one, and one file of inserts: " + written);
    assertEquals(4, t.files().size(), "the untouched file stays");
    List<List<Long>> contents = written.stream().map(f -> ids(t, f)).toList();
    // A rewrite is streamed: the file's rows in their order, less the replaced ones, then the
    // changed rows of its keys (no file is sorted in memory); the inserts are sorted by key.
    List<Long> first = new ArrayList<>();
    for (long id = 49; id >= 0; id--) {
      if (id != 20) {
        first.add(id);
      }
    }
    first.add(20L);
    assertEquals(first, contents.get(0));
    assertEquals(50, contents.get(0).size());
    assertEquals(0L, written.get(0).min().get("id"));
    assertEquals(49L, written.get(0).max().get("id"));
    assertEquals(49, contents.get(1).size());
    assertEquals(200L, written.get(1).min().get("id"));
    assertEquals(249L, written.get(1).max().get("id"));
    assertEquals(List.of(301L, 305L), contents.get(2), "the keys the table did not hold");
    Map<Long, Object> v = DeltaTableReader.readAll(t).stream().collect(Collectors.toMap(r -> (Long) r.get("id"), r -> r.get("v")));
    assertEquals(151, v.size());
    assertEquals("b", v.get(20L));

    // The files keep disjoint key ranges: a later batch of one key reads one file and rewrites it.
    Set<String> beforeSecond = t.files().stream().map(TableFile::path).collect(Collectors.toSet());
    d.accept(event("t", 0, 1004, Operation.UPDATE, 3L, row("id", 240L, "v", "c")));
    d.flush();
    Set<String> after = table().files().stream().map(TableFile::path).collect(Collectors.toSet());
    Set<String> removed = new HashSet<>(beforeSecond);
    removed.removeAll(after);
    assertEquals(Set.of(written.get(1).path()), removed, "only the file of ids 200-249 was rewritten");
  }
}
