package io.lakesink.delivery;

import io.lakesink.delta.CommitOffsets;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.HeapEstimate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The events one table buffered since its last commit, and the source range they cover per
 * partition: from the first position read to the next offset to read. Positions that need no row
 * (tombstones) are covered too, so a commit's offsets move past them.
 *
 * <p>Ranges are contiguous by construction: a partition is read in order from where the table's
 * log (or the group) says, and a range only ever loses its head (what the log already holds) or
 * all of it (a partition given up). A flush takes the buffer as its batch (at most
 * {@code flush_rows} events of it, {@link #takeFirst}) and the rest starts where the batch ends;
 * a batch that fails is put back in front ({@link #prepend}).
 *
 * <p>Not thread-safe: the poll thread owns the buffer, a writer thread owns a batch in flight.
 */
final class EventBuffer {
  private final List<ChangeEvent> events = new ArrayList<>();
  private final Map<SourcePartition, Long> from = new LinkedHashMap<>();
  private final Map<SourcePartition, NextOffset> next = new LinkedHashMap<>();
  private final PartitionKeys keys = new PartitionKeys();
  private long bytes;
  private long heapBytes;
  private long oldestMillis;

  void add(ChangeEvent event, long nowMillis) {
    if (events.isEmpty() && next.isEmpty()) {
      oldestMillis = nowMillis;
    }
    events.add(event);
    bytes += event.sizeBytes();
    heapBytes += HeapEstimate.of(event);
    cover(event.position());
  }

  /**
   * A partition's next offset to read, raised in place: this runs once per event, and a new key
   * and boxed offsets for each were about 4 % of the worker's allocation.
   */
  private static final class NextOffset {
    long value;

    NextOffset(long value) {
      this.value = value;
    }
  }

  /**
   * Records that a position needing no row was read (a tombstone): a buffer of nothing else is
   * still due, as old as its first such position ({@link #positionsOnly}).
   */
  void skip(SourcePosition p, long nowMillis) {
    if (events.isEmpty() && next.isEmpty()) {
      oldestMillis = nowMillis;
    }
    cover(p);
  }

  /** Records that a position was read, with or without a row. */
  void cover(SourcePosition p) {
    SourcePartition partition = keys.of(p);
    long after = p.offset() + 1;
    NextOffset n = next.get(partition);
    if (n == null) {
      from.putIfAbsent(partition, p.offset());
      next.put(partition, new NextOffset(after));
    } else if (after > n.value) {
      n.value = after;
    }
  }

  List<ChangeEvent> events() {
    return events;
  }

  /** No events (there may still be {@link #positionsOnly positions} to commit). */
  boolean isEmpty() {
    return events.isEmpty();
  }

  /**
   * No events, but positions read that need no row: a tombstone read after its delete's batch
   * was taken. Committed on their own once due, or the partition's stored offset (and the group's
   * committed offset, which lag monitors read) would stay one short until its next event.
   */
  boolean positionsOnly() {
    return events.isEmpty() && !next.isEmpty();
  }

  int size() {
    return events.size();
  }

  long bytes() {
    return bytes;
  }

  /** What the buffered events hold on the heap (an estimate, see {@link HeapEstimate}). */
  long heapBytes() {
    return heapBytes;
  }

  long oldestMillis() {
    return oldestMillis;
  }

  /** Next offset to read per partition covered. */
  Map<SourcePartition, Long> next() {
    Map<SourcePartition, Long> out = new LinkedHashMap<>();
    next.forEach((p, n) -> out.put(p, n.value));
    return Map.copyOf(out);
  }

  /** What a commit of this buffer stores, and where its ranges start (the commit's fence). */
  CommitOffsets offsets() {
    Map<String, Long> nextIds = new LinkedHashMap<>();
    Map<String, Long> fromIds = new LinkedHashMap<>();
    next.forEach((p, n) -> nextIds.put(p.applicationId(), n.value));
    from.forEach((p, f) -> fromIds.put(p.applicationId(), f));
    return new CommitOffsets(nextIds, fromIds);
  }

  /**
   * Drops what the log already holds: events below the stored offset of their partition; a range
   * the log covers entirely disappears, the others now start at the stored offset.
   */
  void dropStored(Map<SourcePartition, Long> stored) {
    events.removeIf(e -> {
      Long s = stored.get(partitionOf(e));
      return s != null && e.position().offset() < s;
    });
    for (Map.Entry<SourcePartition, Long> s : stored.entrySet()) {
      NextOffset n = next.get(s.getKey());
      if (n == null) {
        continue;
      }
      if (s.getValue() >= n.value) {
        next.remove(s.getKey());
        from.remove(s.getKey());
      } else {
        from.merge(s.getKey(), s.getValue(), Math::max);
      }
    }
    recount();
  }

  /**
   * Puts an earlier batch back in front of what was read since (its flush failed): its events
   * were read first and keep their place, and each partition's range starts where the earlier
   * one did, so the ranges stay contiguous.
   */
  void prepend(EventBuffer earlier) {
    if (earlier.next.isEmpty()) {
      return;
    }
    List<ChangeEvent> all = new ArrayList<>(earlier.events.size() + events.size());
    all.addAll(earlier.events);
    all.addAll(events);
    events.clear();
    events.addAll(all);
    Map<SourcePartition, Long> starts = new LinkedHashMap<>(earlier.from);
    from.forEach(starts::putIfAbsent);
    from.clear();
    from.putAll(starts);
    earlier.next.forEach((p, n) -> {
      NextOffset mine = next.get(p);
      if (mine == null) {
        next.put(p, new NextOffset(n.value)); // not shared: each buffer raises its own
      } else {
        mine.value = Math.max(mine.value, n.value);
      }
    });
    oldestMillis = earlier.oldestMillis; // read before anything here: events or positions only
    bytes += earlier.bytes;
    heapBytes += earlier.heapBytes;
  }

  /**
   * Splits off the first {@code n} events as a batch of their own and keeps the rest. Per
   * partition the batch's range ends where this buffer's next event of the partition starts, and
   * what is left starts there: both stay contiguous. A partition with no event left (tombstones
   * only, or all its events taken) goes with the batch, so its commit moves past it.
   *
   * <p>Its cost follows the batch, not the buffer: catching up with {@code flush_rows} below what
   * the budget holds, each flush took a batch off a buffer several times larger, and looking at
   * every event left (its partition, its heap estimate again) cost the poll thread about as much
   * per flush as buffering the batch had. The rest's sizes are the buffer's less the batch's, and
   * the rest is read only until each partition's first event left is found.
   */
  EventBuffer takeFirst(int n) {
    EventBuffer head = new EventBuffer();
    if (n >= events.size()) {
      throw new IllegalArgumentException("takeFirst(" + n + ") of " + events.size() + " events: take the whole buffer");
    }
    List<ChangeEvent> taken = events.subList(0, n);
    head.events.addAll(taken);
    head.oldestMillis = oldestMillis;
    for (ChangeEvent e : head.events) {
      head.bytes += e.sizeBytes();
      head.heapBytes += HeapEstimate.of(e);
    }
    taken.clear();
    bytes -= head.bytes;
    heapBytes -= head.heapBytes;
    Map<SourcePartition, Long> restStarts = new LinkedHashMap<>();
    PartitionKeys restKeys = new PartitionKeys();
    SourcePartition previous = null;
    for (int i = 0; i < events.size() && restStarts.size() < from.size(); i++) {
      SourcePosition p = events.get(i).position();
      SourcePartition key = restKeys.of(p); // the same key along a run of one partition: looked up once per run
      if (key != previous) {
        restStarts.putIfAbsent(key, p.offset());
        previous = key;
      }
    }
    for (Map.Entry<SourcePartition, Long> range : from.entrySet()) {
      SourcePartition p = range.getKey();
      Long restStart = restStarts.get(p);
      if (restStart == null) {
        head.from.put(p, range.getValue());
        head.next.put(p, new NextOffset(next.get(p).value));
      } else if (restStart > range.getValue()) {
        head.from.put(p, range.getValue());
        head.next.put(p, new NextOffset(restStart));
      }
    }
    for (Map.Entry<SourcePartition, NextOffset> h : head.next.entrySet()) {
      if (restStarts.containsKey(h.getKey())) {
        from.put(h.getKey(), h.getValue().value);
      } else {
        from.remove(h.getKey());
        next.remove(h.getKey());
      }
    }
    // The events left were read after the batch's: their age is at most the batch's, which keeps
    // them due as soon as the batch was (they came from a buffer that was due).
    return head;
  }

  /** Forgets everything read from these partitions. */
  void discard(Collection<SourcePartition> partitions) {
    events.removeIf(e -> partitions.contains(partitionOf(e)));
    partitions.forEach(p -> {
      next.remove(p);
      from.remove(p);
    });
    recount();
  }

  void clear() {
    events.clear();
    next.clear();
    from.clear();
    bytes = 0;
    heapBytes = 0;
  }

  private void recount() {
    bytes = events.stream().mapToLong(ChangeEvent::sizeBytes).sum();
    heapBytes = events.stream().mapToLong(HeapEstimate::of).sum();
  }

  private static SourcePartition partitionOf(ChangeEvent e) {
    return new SourcePartition(e.position().topic(), e.position().partition());
  }
}
