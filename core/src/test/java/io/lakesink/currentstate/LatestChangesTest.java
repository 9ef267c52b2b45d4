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
    LatestChanges latest = new LatestChanges(List.of("id"));
    latest.addAll(List.of(change(0, 0, 10L, 1), change(0, 1, 11L, 2), change(0, 2, 12L, 1), change(1, 0, 5L, 1),
        change(0, 3, 13L, 1)));
    assertEquals(List.of("p0@1", "p1@0", "p0@3"), names(latest.changes()), "in the order they came");
    assertEquals(5, latest.added());
  }

  @Test
  void keepsTheEarlierChangeWhoseTimeRaisesTheLastOnesRank() {
    LatestChanges latest = new LatestChanges(List.of("id"));
    // A snapshot row stamped at 50, then changes stamped earlier: the last one ranks at 50.
    latest.addAll(List.of(change(0, 0, 50L, 1), change(0, 1, 20L, 1), change(0, 2, 30L, 1), change(0, 3, 25L, 1)));
    assertEquals(List.of("p0@0", "p0@3"), names(latest.changes()));
    // A later change stamped above them all: it alone ranks highest.
    latest.addAll(List.of(change(0, 4, 60L, 1)));
    assertEquals(List.of("p0@4"), names(latest.changes()));
  }

  @Test
  void aChangeReadOutOfOffsetOrderStaysEarlier() {
    LatestChanges latest = new LatestChanges(List.of("id"));
    // Files packed by the changelog's optimize may be read after later ones.
    latest.addAll(List.of(change(0, 5, 10L, 1), change(0, 2, 40L, 1), change(0, 3, 20L, 1), change(0, 5, 10L, 1)));
    assertEquals(List.of("p0@5", "p0@2"), names(latest.changes()), "the last by offset, and the one stamped 40 before it");
  }

  @Test
  void truncatesChangesWithoutAPositionAndWithoutAKeyAreKeptAsTheyAre() {
    LatestChanges latest = new LatestChanges(List.of("id"));
    ChangeEvent backfill1 = event("t", ChangelogChanges.NO_PARTITION, ChangelogChanges.NO_OFFSET, Operation.READ, 5L,
        row("id", 1L, "v", "backfill 1"));
    ChangeEvent backfill2 = event("t", ChangelogChanges.NO_PARTITION, ChangelogChanges.NO_OFFSET, Operation.READ, 6L,
        row("id", 1L, "v", "backfill 2"));
    ChangeEvent noKey = event("t", 0, 7, Operation.UPDATE, 7L, row("v", "no key"));
    latest.addAll(List.of(backfill1, change(0, 0, 10L, 1), ChangeEvent.truncate(new SourcePosition("t", 0, 1), 11L, 0),
        backfill2, change(0, 2, 12L, 1), noKey, ChangeEvent.truncate(new SourcePosition("t", 0, 3), 13L, 0)));
    assertEquals(List.of("backfill 1", "truncate", "backfill 2", "p0@2", "no key", "truncate"), names(latest.changes()));
  }

  /**
   * What a follow counts in the worker's buffer budget: the estimate of the changes it keeps,
   * moved as later changes replace earlier ones, plus an entry per key.
   */
  @Test
  void itsHeapEstimateIsThatOfTheChangesItKeeps() {
    java.util.Random random = new java.util.Random(11);
    LatestChanges latest = new LatestChanges(List.of("id"));
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      int partition = random.nextInt(3);
      long id = random.nextInt(300);
      keys.add(partition + "/" + id);
      // Offsets out of order sometimes (a packed file read late), times that go back: every branch of the reduction.
      latest.add(change(partition, random.nextInt(5_000), (long) random.nextInt(100), id));
      long kept = latest.changes().stream().mapToLong(io.lakesink.event.HeapEstimate::of).sum();
      assertEquals(kept + 80L * keys.size(), latest.heapBytes(), "after " + (i + 1) + " changes");
    }
  }
}
