package io.lakesink.delivery;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventBufferTest {
  static final SourcePartition P0 = new SourcePartition("t", 0);
  static final SourcePartition P1 = new SourcePartition("t", 1);
  static final SourcePartition P2 = new SourcePartition("t", 2);

  static ChangeEvent at(int partition, long offset) {
    return event("t", partition, offset, Operation.UPDATE, 1000L + offset, row("id", offset));
  }

  static List<String> positions(EventBuffer b) {
    return b.events().stream().map(e -> e.position().partition() + ":" + e.position().offset()).toList();
  }

  /**
   * A batch split off at flush_rows and the rest commit ranges that meet exactly: no offset is in
   * both (a duplicate) or in neither (a gap the next commit's fence would refuse).
   */
  @Test
  void theFirstEventsSplitOffWithRangesThatMeetWhereTheRestStarts() {
    EventBuffer buffer = new EventBuffer();
    buffer.add(at(0, 10), 1);
    buffer.cover(new SourcePosition("t", 0, 11)); // a tombstone
    buffer.add(at(1, 5), 2);
    buffer.add(at(0, 12), 3);
    buffer.add(at(1, 6), 4);
    buffer.cover(new SourcePosition("t", 2, 40)); // a partition of tombstones only
    buffer.add(at(0, 13), 5);

    EventBuffer batch = buffer.takeFirst(3);

    assertEquals(List.of("0:10", "1:5", "0:12"), positions(batch));
    assertEquals(List.of("1:6", "0:13"), positions(buffer));
    // Partition 0: the batch covers 10..12 (the tombstone at 11 included), the rest 13.
    // Partition 1: the batch covers 5, the rest 6. Partition 2 has nothing left: the batch moves past it.
    assertEquals(Map.of(P0, 13L, P1, 6L, P2, 41L), batch.next());
    assertEquals(Map.of("lakesink/t/0", 10L, "lakesink/t/1", 5L, "lakesink/t/2", 40L), batch.offsets().from());
    assertEquals(Map.of(P0, 14L, P1, 7L), buffer.next());
    assertEquals(Map.of("lakesink/t/0", 13L, "lakesink/t/1", 6L), buffer.offsets().from());
    assertEquals(1, batch.oldestMillis());
    assertEquals(1, buffer.oldestMillis(), "the rest stays as due as the buffer it came from");
  }

  /**
   * A batch split off carries its events' sizes and the rest keeps the others': the two add up to
   * what the buffer held, and each equals its own events counted afresh (the rest's are the
   * buffer's less the batch's, not counted again), also after a failed batch is put back.
   */
  @Test
  void aBatchSplitOffAndTheRestEachHoldTheirOwnEventsSizes() {
    EventBuffer buffer = new EventBuffer();
    for (int i = 0; i < 40; i++) {
      // Rows of different widths, so that no two batches of the same length hold the same size.
      buffer.add(event("t", i % 3, 100 + i, Operation.UPDATE, 1L, row("id", (long) i, "name", "x".repeat(i))), 1);
    }
    long bytes = buffer.bytes();
    long heap = buffer.heapBytes();

    EventBuffer batch = buffer.takeFirst(15);

    assertEquals(15, batch.size());
    assertEquals(25, buffer.size());
    assertEquals(bytes, batch.bytes() + buffer.bytes());
    assertEquals(heap, batch.heapBytes() + buffer.heapBytes());
    assertSizesOfItsEvents(batch);
    assertSizesOfItsEvents(buffer);

    buffer.prepend(batch);
    assertEquals(bytes, buffer.bytes());
    assertEquals(heap, buffer.heapBytes());
    assertSizesOfItsEvents(buffer);
  }

  private static void assertSizesOfItsEvents(EventBuffer b) {
    assertEquals(b.events().stream().mapToLong(ChangeEvent::sizeBytes).sum(), b.bytes());
    assertEquals(b.events().stream().mapToLong(io.lakesink.event.HeapEstimate::of).sum(), b.heapBytes());
  }

  /**
   * Positions alone (a tombstone read after its delete's batch was taken) make a buffer with
   * something to commit, as old as the first of them; an event read after them does not make it
   * younger, and a failed batch put back in front keeps its own age.
   */
  @Test
  void positionsAloneAreDueFromTheFirstOfThem() {
    EventBuffer buffer = new EventBuffer();
    assertFalse(buffer.positionsOnly(), "nothing read");
    buffer.skip(new SourcePosition("t", 0, 7), 100);
    buffer.skip(new SourcePosition("t", 1, 3), 200);
    assertTrue(buffer.isEmpty());
    assertTrue(buffer.positionsOnly());
    assertEquals(100, buffer.oldestMillis());
    assertEquals(Map.of(P0, 8L, P1, 4L), buffer.next());
    buffer.add(at(0, 8), 300);
    assertFalse(buffer.positionsOnly());
    assertEquals(100, buffer.oldestMillis(), "as old as the first position it must commit");

    EventBuffer later = new EventBuffer();
    later.add(at(0, 20), 500);
    EventBuffer failed = new EventBuffer();
    failed.skip(new SourcePosition("t", 0, 19), 400);
    later.prepend(failed);
    assertEquals(400, later.oldestMillis(), "the batch put back was read first");
    assertEquals(Map.of("lakesink/t/0", 19L), later.offsets().from());
  }

  @Test
  void aPartitionWhoseEventsAllStayIsLeftOutOfTheBatch() {
    EventBuffer buffer = new EventBuffer();
    buffer.add(at(0, 1), 1);
    buffer.add(at(0, 2), 1);
    buffer.add(at(1, 7), 1);

    EventBuffer batch = buffer.takeFirst(2);

    assertEquals(Map.of(P0, 3L), batch.next());
    assertEquals(Map.of(P1, 8L), buffer.next());
    assertEquals(Map.of("lakesink/t/1", 7L), buffer.offsets().from());
  }

  /**
   * Partitions with the same number in two topics, read interleaved: each keeps a range of its
   * own (the buffer reuses the key of the partition it last saw), and a position read again
   * moves no range back.
   */
  @Test
  void interleavedPartitionsOfTwoTopicsKeepRangesOfTheirOwn() {
    EventBuffer buffer = new EventBuffer();
    buffer.add(event("a", 0, 5, Operation.UPDATE, 1L, row("id", 5L)), 1);
    buffer.cover(new SourcePosition("b", 0, 100));
    buffer.add(event("a", 0, 6, Operation.UPDATE, 1L, row("id", 6L)), 1);
    buffer.cover(new SourcePosition("b", 0, 101));
    buffer.cover(new SourcePosition("a", 0, 3));
    buffer.cover(new SourcePosition("a", 1, 9));

    assertEquals(Map.of(new SourcePartition("a", 0), 7L, new SourcePartition("b", 0), 102L, new SourcePartition("a", 1), 10L),
        buffer.next());
    assertEquals(Map.of("lakesink/a/0", 5L, "lakesink/b/0", 100L, "lakesink/a/1", 9L), buffer.offsets().from());
  }

  /**
   * A batch split off keeps ranges of its own while the buffer reads on, and put back in front
   * (its flush failed) its ranges and the buffer's meet: each partition from the batch's start to
   * the buffer's next offset.
   */
  @Test
  void aBatchPutBackMeetsWhatWasReadSince() {
    EventBuffer buffer = new EventBuffer();
    buffer.add(at(0, 1), 1);
    buffer.add(at(0, 2), 1);
    buffer.cover(new SourcePosition("t", 1, 4)); // tombstones only: the partition goes with the batch
    buffer.add(at(0, 3), 1);
    EventBuffer batch = buffer.takeFirst(2);
    buffer.add(at(0, 4), 2);
    buffer.cover(new SourcePosition("t", 1, 5));

    assertEquals(Map.of(P0, 3L, P1, 5L), batch.next());
    buffer.prepend(batch);
    assertEquals(List.of("0:1", "0:2", "0:3", "0:4"), positions(buffer));
    assertEquals(Map.of(P0, 5L, P1, 6L), buffer.next());
    assertEquals(Map.of("lakesink/t/0", 1L, "lakesink/t/1", 4L), buffer.offsets().from());
    assertEquals(Map.of("lakesink/t/0", 5L, "lakesink/t/1", 6L), buffer.offsets().next());
  }
}
