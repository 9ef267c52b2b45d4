package io.lakesink.currentstate;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a follow keeps of a commit's changes: per key and partition the last change and the
 * earlier one that raises its rank. (That the kept table stays the view's with it: {@link
 * CurrentStateTableModelTest}.)
 */
class LatestChangesTest {
  static ChangeEvent change(int partition, long offset, Long ts, long id) {
    return event("t", partition, offset, Operation.UPDATE, ts, row("id", id, "v", "p" + partition + "@" + offset));
  }

  static List<String> names(List<ChangeEvent> changes) {
    return changes.stream().map(e -> e.isTruncate() ? "truncate" : (String) e.value("v")).toList();
  }

  @Test
  void keepsTheLastChangeOfAKeyInAPartition() {
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    latest.addAll(List.of(change(0, 0, 10L, 1), change(0, 1, 11L, 2), change(0, 2, 12L, 1), change(1, 0, 5L, 1),
        change(0, 3, 13L, 1)));
    assertEquals(List.of("p0@1", "p1@0", "p0@3"), names(latest.changes()), "in the order they came");
    assertEquals(5, latest.added());
    assertEquals(3, latest.held(), "a commit's size is what it keeps");
  }

  @Test
  void keepsTheEarlierChangeWhoseTimeRaisesTheLastOnesRank() {
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    // A snapshot row stamped at 50, then changes stamped earlier: the last one ranks at 50.
    latest.addAll(List.of(change(0, 0, 50L, 1), change(0, 1, 20L, 1), change(0, 2, 30L, 1), change(0, 3, 25L, 1)));
    assertEquals(List.of("p0@0", "p0@3"), names(latest.changes()));
    assertEquals(2, latest.held());
    // A later change stamped above them all: it alone ranks highest.
    latest.addAll(List.of(change(0, 4, 60L, 1)));
    assertEquals(List.of("p0@4"), names(latest.changes()));
    assertEquals(1, latest.held(), "the earlier one let go");
  }

  /**
   * Text keys that are an integer's text are held by that integer: still one key per text, so
   * {@code "7"} and {@code "07"} stay two keys, and a bigint key 7 a third.
   */
  @Test
  void anIntegersTextIsOneKeyAndNoOtherTextNorTheNumberIsThatKey() {
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    Object[] ids = {"7", "07", 7L, "7", "07", 7L, "-7", "x7", "-7"};
    for (int i = 0; i < ids.length; i++) {
      latest.add(event("t", 0, i, Operation.UPDATE, 10L, row("id", ids[i], "v", "p0@" + i)));
    }
    assertEquals(List.of("p0@3", "p0@4", "p0@5", "p0@7", "p0@8"), names(latest.changes()));
    assertEquals(5, latest.keys());
  }

  @Test
  void aChangeReadOutOfOffsetOrderStaysEarlier() {
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    // Files packed by the changelog's optimize may be read after later ones.
    latest.addAll(List.of(change(0, 5, 10L, 1), change(0, 2, 40L, 1), change(0, 3, 20L, 1), change(0, 5, 10L, 1)));
    assertEquals(List.of("p0@5", "p0@2"), names(latest.changes()), "the last by offset, and the one stamped 40 before it");
    assertEquals(2, latest.held());
  }

  @Test
  void truncatesChangesWithoutAPositionAndWithoutAKeyAreKeptAsTheyAre() {
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    ChangeEvent backfill1 = event("t", ChangelogChanges.NO_PARTITION, ChangelogChanges.NO_OFFSET, Operation.READ, 5L,
        row("id", 1L, "v", "backfill 1"));
    ChangeEvent backfill2 = event("t", ChangelogChanges.NO_PARTITION, ChangelogChanges.NO_OFFSET, Operation.READ, 6L,
        row("id", 1L, "v", "backfill 2"));
    ChangeEvent noKey = event("t", 0, 7, Operation.UPDATE, 7L, row("v", "no key"));
    latest.addAll(List.of(backfill1, change(0, 0, 10L, 1), ChangeEvent.truncate(new SourcePosition("t", 0, 1), 11L, 0),
        backfill2, change(0, 2, 12L, 1), noKey, ChangeEvent.truncate(new SourcePosition("t", 0, 3), 13L, 0)));
    assertEquals(List.of("backfill 1", "truncate", "backfill 2", "p0@2", "no key", "truncate"), names(latest.changes()));
    assertEquals(6, latest.held());
  }

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

  /**
   * A follow reduces the changelog's rows as they are and makes changes of those it keeps only
   * ({@link ChangelogChanges}): the same changes as reducing the change events, truncates,
   * backfill rows and rows without a key included, and out-of-order offsets and times.
   */
  @Test
  void changelogRowsReduceToTheChangesTheirEventsReduceTo() {
    io.lakesink.storage.LocalStorage storage = new io.lakesink.storage.LocalStorage(dir, "lakesink");
    io.lakesink.delta.DeltaTable changelog =
        new io.lakesink.delta.DeltaTable(io.lakesink.delta.KernelEngine.create(storage), storage.tableLocation("t_APPEND"));
    io.lakesink.changelog.ChangelogDelivery d = new io.lakesink.changelog.ChangelogDelivery(
        new io.lakesink.config.Subscription("t", "t", io.lakesink.config.DeliveryMode.CHANGELOG, List.of("id"),
            io.lakesink.config.SourceFormat.JSON, true),
        changelog, io.lakesink.delivery.DeliveryContext.of(io.lakesink.delivery.FlushPolicy.DEFAULT,
            new io.lakesink.quarantine.QuarantineStore(storage)));
    d.accept(change(0, 0, 1L, 1));
    d.flush();
    changelog.refresh();
    List<io.lakesink.event.Column> columns = changelog.columns().orElseThrow();
    ChangelogChanges rows = new ChangelogChanges("t", changelog, columns, List.of("id"), null);

    java.util.Random random = new java.util.Random(5);
    List<ChangeEvent> events = new java.util.ArrayList<>();
    for (int i = 0; i < 400; i++) {
      int kind = random.nextInt(20);
      if (kind == 0) {
        events.add(ChangeEvent.truncate(new SourcePosition("t", random.nextInt(2), random.nextInt(500)), (long) random.nextInt(50), 0));
      } else if (kind == 1) {
        events.add(event("t", ChangelogChanges.NO_PARTITION, ChangelogChanges.NO_OFFSET, Operation.READ, (long) random.nextInt(50),
            row("id", (long) random.nextInt(10), "v", "backfill " + i)));
      } else if (kind == 2) {
        events.add(event("t", 0, random.nextInt(500), Operation.UPDATE, 7L, row("v", "no key " + i)));
      } else {
        ChangeEvent c = change(random.nextInt(2), random.nextInt(500), random.nextInt(9) == 0 ? null : (long) random.nextInt(50),
            random.nextInt(10));
        events.add(kind == 3 ? event("t", c.position().partition(), c.position().offset(), Operation.DELETE, c.tsMs(),
            row("id", c.value("id"), "v", "deleted " + i)) : c);
      }
    }
    LatestChanges<ChangeEvent> byEvents = LatestChanges.ofEvents(List.of("id"));
    byEvents.addAll(events);
    LatestChanges<Object[]> byRows = new LatestChanges<>(rows);
    events.forEach(e -> byRows.add(changelogRow(e, columns)));
    List<String> expected = byEvents.changes().stream().map(LatestChangesTest::describe).toList();
    assertEquals(expected, byRows.changes().stream().map(rows::change).map(LatestChangesTest::describe).toList());
    org.junit.jupiter.api.Assertions.assertTrue(expected.size() < events.size() && expected.stream().anyMatch(x -> x.startsWith("TRUNCATE"))
        && expected.stream().anyMatch(x -> x.contains("backfill")) && expected.stream().anyMatch(x -> x.contains("no key")));
  }

  /** A change as the changelog stores it: its values by column name, the metadata columns from its envelope. */
  private static Object[] changelogRow(ChangeEvent e, List<io.lakesink.event.Column> columns) {
    Object[] out = new Object[columns.size()];
    for (int i = 0; i < out.length; i++) {
      String name = columns.get(i).name();
      out[i] = switch (name) {
        case io.lakesink.changelog.ChangelogColumns.OP -> e.op().code();
        case io.lakesink.changelog.ChangelogColumns.DELETED -> e.isDelete();
        case io.lakesink.changelog.ChangelogColumns.TS_MS -> e.tsMs();
        case io.lakesink.changelog.ChangelogColumns.PARTITION ->
            e.position().partition() == ChangelogChanges.NO_PARTITION ? null : e.position().partition();
        case io.lakesink.changelog.ChangelogColumns.OFFSET -> e.position().offset() == ChangelogChanges.NO_OFFSET ? null : e.position().offset();
        default -> e.isTruncate() || e.schema().indexOf(name) < 0 ? null : e.value(name);
      };
    }
    return out;
  }

  private static String describe(ChangeEvent e) {
    return e.op() + "@" + e.position().partition() + "/" + e.position().offset() + "/" + e.tsMs()
        + (e.isTruncate() ? "" : " " + e.value("v"));
  }

  /**
   * What a follow counts in the worker's buffer budget: the estimate of the changes it keeps,
   * moved as later changes replace earlier ones, plus an entry per key and partition (a map node
   * and the entry with its changes' numbers and times: 120 bytes).
   */
  @Test
  void itsHeapEstimateIsThatOfTheChangesItKeeps() {
    java.util.Random random = new java.util.Random(11);
    LatestChanges<ChangeEvent> latest = LatestChanges.ofEvents(List.of("id"));
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      int partition = random.nextInt(3);
      long id = random.nextInt(300);
      keys.add(partition + "/" + id);
      // Offsets out of order sometimes (a packed file read late), times that go back: every branch of the reduction.
      latest.add(change(partition, random.nextInt(5_000), (long) random.nextInt(100), id));
      long kept = latest.changes().stream().mapToLong(io.lakesink.event.HeapEstimate::of).sum();
      assertEquals(kept + 120L * keys.size(), latest.heapBytes(), "after " + (i + 1) + " changes");
    }
  }
}
