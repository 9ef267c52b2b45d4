package io.lakesink.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Decoding on several threads gives, record by record and in offset order, what one decoder
 * on one thread gives: the same events (with schemas that change along the partition), the same
 * "no change" and the same refusals at the same positions.
 */
class DecodePoolTest {
  static final String TOPIC = "db.t";

  /** Records whose schemas change along a partition, with and without Connect schemas, and broken ones. */
  static String value(int i) {
    return switch (i % 11) {
      case 0, 1, 2 -> "{\"before\":null,\"after\":{\"id\":" + i + ",\"name\":\"n" + i + "\"},\"source\":{\"ts_ms\":" + i
          + "},\"op\":\"c\"}";
      case 3 -> "{\"before\":null,\"after\":{\"id\":" + i + ",\"name\":\"n\",\"added\":" + i + ".5},\"source\":{\"ts_ms\":1},\"op\":\"u\"}";
      case 4 -> "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":"
          + "[{\"type\":\"int64\",\"field\":\"id\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"v\"}]},{\"type\":\"string\",\"field\":\"op\"}]},"
          + "\"payload\":{\"after\":{\"id\":" + i + ",\"v\":" + (i % 7) + "},\"op\":\"c\"}}";
      case 5 -> "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":"
          + "[{\"type\":\"int64\",\"field\":\"id\"},{\"type\":\"string\",\"optional\":true,\"field\":\"v\"}]},{\"type\":\"string\",\"field\":\"op\"}]},"
          + "\"payload\":{\"after\":{\"id\":" + i + ",\"v\":\"s" + i + "\"},\"op\":\"c\"}}";
      case 6 -> "{\"id\":" + i + ",\"flat\":\"f\",\"__op\":\"d\",\"__deleted\":\"true\"}";
      case 7 -> i % 3 == 0 ? "{not json" : "{\"before\":{\"id\":" + i + "},\"after\":null,\"op\":\"d\"}";
      case 8 -> i % 2 == 0 ? null : "{\"after\":{\"id\":" + i + "},\"op\":\"q\"}"; // a tombstone, an unknown op
      case 9 -> "{\"before\":null,\"after\":{\"id\":" + i + ",\"name\":\"n\"},\"op\":\"m\"}";
      default -> "{\"before\":null,\"after\":{\"id\":" + i + ",\"name\":null,\"more\":[1,2]},\"op\":\"r\"}";
    };
  }

  static ConsumerRecord<byte[], ByteBuffer> record(int partition, long offset) {
    String v = value((int) offset + partition * 5);
    return new ConsumerRecord<>(TOPIC, partition, offset, ("{\"id\":" + offset + "}").getBytes(StandardCharsets.UTF_8),
        v == null ? null : inFetchBuffer(v.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The value as the consumer hands it over: a slice of a larger fetch buffer, other records'
   * bytes on either side (here: bytes that are not JSON, so reading past the slice would fail).
   */
  static ByteBuffer inFetchBuffer(byte[] value) {
    byte[] fetch = new byte[value.length + 16];
    java.util.Arrays.fill(fetch, (byte) '#');
    System.arraycopy(value, 0, fetch, 7, value.length);
    return ByteBuffer.wrap(fetch, 7, value.length).slice();
  }

  static byte[] copy(ByteBuffer value) {
    if (value == null) {
      return null;
    }
    byte[] bytes = new byte[value.remaining()];
    value.duplicate().get(bytes);
    return bytes;
  }

  /** A hot partition of many runs, two quiet ones, and one of exactly one run. */
  static ConsumerRecords<byte[], ByteBuffer> poll() {
    Map<TopicPartition, List<ConsumerRecord<byte[], ByteBuffer>>> byPartition = new LinkedHashMap<>();
    int[] sizes = {DecodePool.RUN * 7 + 13, 3, 1, DecodePool.RUN};
    for (int p = 0; p < sizes.length; p++) {
      List<ConsumerRecord<byte[], ByteBuffer>> records = new ArrayList<>();
      for (int o = 0; o < sizes[p]; o++) {
        records.add(record(p, 1000 + o));
      }
      byPartition.put(new TopicPartition(TOPIC, p), records);
    }
    return new ConsumerRecords<>(byPartition);
  }

  /** What one outcome says, comparable across decoder instances (arrays by content). */
  static String describe(Object outcome) {
    if (outcome instanceof DecodePool.Failure f) {
      return "failure " + f.cause().getClass().getSimpleName() + ": " + f.cause().getMessage();
    }
    if (outcome == null) {
      return "no change";
    }
    ChangeEvent e = (ChangeEvent) outcome;
    return e.position() + " " + e.op() + " " + e.tsMs() + " " + e.schema() + " typed=" + e.schema().typed() + " "
        + Arrays.deepToString(e.values()) + " key=" + e.recordKeyFields() + " " + e.sizeBytes() + " " + e.snapshotEnd();
  }

  static String serially(ConsumerRecord<byte[], ByteBuffer> r, RecordDecoder decoder) {
    try {
      // The record's own array, as a decoder reads a record it was given whole.
      return describe(decoder.decode(new SourcePosition(r.topic(), r.partition(), r.offset()), r.key(), copy(r.value())));
    } catch (DecodeException | RuntimeException e) {
      return describe(new DecodePool.Failure(e));
    }
  }

  @Test
  void severalThreadsDecodeEveryRecordAsOneDecoderInOrder() {
    ConsumerRecords<byte[], ByteBuffer> records = poll();
    DecodePool pool = new DecodePool(4);
    pool.add(TOPIC, DebeziumJsonDecoder::new);

    DecodePool.Batch batch = pool.start(records, tp -> true);

    RecordDecoder one = new DebeziumJsonDecoder();
    List<TopicPartition> order = new ArrayList<>();
    int failures = 0;
    for (DecodePool.PartitionRuns p : batch.partitions()) {
      order.add(p.partition());
      assertEquals(records.records(p.partition()), p.records(), "a partition's records in offset order");
      for (int i = 0; i < p.records().size(); i++) {
        Object outcome = p.outcome(i);
        failures += outcome instanceof DecodePool.Failure ? 1 : 0;
        assertEquals(serially(p.records().get(i), one), describe(outcome), "record " + p.records().get(i).offset());
      }
    }
    assertEquals(List.copyOf(records.partitions()), order, "partitions in the poll's order");
    assertTrue(failures > 10, "the mix holds refusals: " + failures);
  }

  @Test
  void aRefusalStaysAtItsRecordAndAnErrorReachesThePollThread() {
    DecodePool pool = new DecodePool(2);
    pool.add(TOPIC, () -> (position, key, value) -> {
      if (position.offset() == 1000 + DecodePool.RUN + 5) {
        throw new DecodeException("broken at " + position.offset());
      }
      if (position.offset() == 1000 + DecodePool.RUN * 3) {
        throw new StackOverflowError("deep");
      }
      return null;
    });

    DecodePool.PartitionRuns hot = pool.start(poll(), tp -> true).partitions().get(0);

    for (int i = 0; i < DecodePool.RUN * 3; i++) {
      Object outcome = hot.outcome(i);
      if (i == DecodePool.RUN + 5) {
        assertEquals("broken at " + (1000 + i), assertInstanceOf(DecodePool.Failure.class, outcome).cause().getMessage());
      } else {
        assertSame(null, outcome, "record " + i);
      }
    }
    assertThrows(StackOverflowError.class, () -> hot.outcome(DecodePool.RUN * 3));
    assertSame(null, hot.outcome(DecodePool.RUN * 3 + 1), "the records after it are decoded as usual");
  }

  @Test
  void partitionsNotReadAreNotDecoded() {
    AtomicInteger decoded = new AtomicInteger();
    DecodePool pool = new DecodePool(2);
    pool.add(TOPIC, () -> (position, key, value) -> {
      decoded.incrementAndGet();
      return null;
    });

    DecodePool.Batch batch = pool.start(poll(), tp -> tp.partition() == 1);

    for (DecodePool.PartitionRuns p : batch.partitions()) {
      for (int i = 0; i < p.records().size(); i++) {
        if (p.partition().partition() == 1) {
          assertSame(null, p.outcome(i));
        } else {
          assertSame(DecodePool.NOT_DECODED, p.outcome(i));
        }
      }
    }
    assertEquals(3, decoded.get());
  }

  @Test
  void noDecoderIsUsedByTwoThreadsAtOnce() {
    AtomicBoolean overlap = new AtomicBoolean();
    AtomicInteger built = new AtomicInteger();
    DecodePool pool = new DecodePool(4);
    pool.add(TOPIC, () -> {
      built.incrementAndGet();
      AtomicBoolean busy = new AtomicBoolean();
      return (position, key, value) -> {
        if (!busy.compareAndSet(false, true)) {
          overlap.set(true);
        }
        for (int i = 0; i < 200; i++) {
          Thread.onSpinWait(); // keeps the decoder busy long enough for a second thread to collide
        }
        busy.set(false);
        return null;
      };
    });

    for (int round = 0; round < 5; round++) {
      for (DecodePool.PartitionRuns p : pool.start(poll(), tp -> true).partitions()) {
        for (int i = 0; i < p.records().size(); i++) {
          p.outcome(i);
        }
      }
    }

    assertFalse(overlap.get(), "a decoder instance was used by two threads at once");
    assertTrue(built.get() >= 1 && built.get() <= 4, "at most one decoder per thread: " + built.get());
  }

  @Test
  void withoutThreadsThePollThreadDecodes() {
    DecodePool pool = new DecodePool(0);
    pool.add(TOPIC, DebeziumJsonDecoder::new);
    RecordDecoder one = new DebeziumJsonDecoder();
    DecodePool.PartitionRuns hot = pool.start(poll(), tp -> true).partitions().get(0);
    for (int i = 0; i < hot.records().size(); i++) {
      assertTrue(hot.runs().get(i / DecodePool.RUN).isDone(), "decoded before start returned");
      assertEquals(serially(hot.records().get(i), one), describe(hot.outcome(i)));
    }
    assertEquals(0, pool.threads());
    assertEquals(serially(record(0, 1000), new DebeziumJsonDecoder()), describe(pool.decodeNow(record(0, 1000))));
  }
}
