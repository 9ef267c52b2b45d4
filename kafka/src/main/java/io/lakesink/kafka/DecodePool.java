package io.lakesink.kafka;

import io.lakesink.error.SourcePosition;
import io.lakesink.delivery.IdleDaemonPool;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.decode.RecordDecoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Decodes a poll's records on every core while the poll thread only polls and applies outcomes.
 * A poll's records are cut into runs of at most {@link #RUN} consecutive records of one
 * partition; runs are decoded in parallel (records of different partitions, and disjoint runs of
 * a single hot partition alike) and handed back per partition in offset order ({@link Batch}).
 *
 * <p>Decoders are not thread-safe (they cache schemas), so each topic has a set of decoder
 * instances and a run borrows one for its whole length: no instance is used by two threads at
 * once, and taking it from and returning it to a concurrent queue orders one run's use before
 * the next's. A decoder's caches are memos of what records say, never of their order, so any
 * instance decodes a record to the same event (equal schemas; shared instances are an
 * optimisation only, see {@code RowSchema}).
 *
 * <p>Decoding is speculative and has no effect on its own: an outcome, an exception included, is
 * only acted on by the poll thread in offset order, with the same checks as before (a record
 * after a failing one of its partition is decoded, but its outcome is dropped).
 */
final class DecodePool {
  /** Decoder threads are named so; the benchmark adds up their CPU time by this prefix. */
  static final String THREAD_PREFIX = "lakesink-decoder-";
  /**
   * Records per run: large enough that handing a run over costs little beside decoding it,
   * small enough that the 5000 records of one partition's poll make several runs.
   */
  static final int RUN = 256;

  private final ThreadPoolExecutor pool; // null: decode on the calling thread
  private final Map<String, Lanes> byTopic = new ConcurrentHashMap<>();

  /** @param threads decoder threads; 0 decodes on the poll thread, as one core wants */
  DecodePool(int threads) {
    if (threads < 0) {
      throw new IllegalArgumentException("decoder threads must be 0 or more, not " + threads);
    }
    if (threads == 0) {
      this.pool = null;
      return;
    }
    this.pool = IdleDaemonPool.create(THREAD_PREFIX, threads);
  }

  /** One decoder thread per core: the poll thread mostly waits for them, the writers share the cores. */
  static DecodePool forThisMachine() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new DecodePool(cores <= 1 ? 0 : cores);
  }

  int threads() {
    return pool == null ? 0 : pool.getMaximumPoolSize();
  }

  void add(String topic, Supplier<RecordDecoder> factory) {
    byTopic.put(topic, new Lanes(factory));
  }

  /** Decodes one record on the calling thread: a record whose outcome was not decoded ahead. */
  Object decodeNow(ConsumerRecord<byte[], ByteBuffer> record) {
    return byTopic.get(record.topic()).decode(List.of(record), 0, 1)[0];
  }

  /**
   * Starts decoding {@code records}; records of partitions {@code wanted} refuses are not decoded
   * (their outcome is {@link #NOT_DECODED}).
   */
  Batch start(ConsumerRecords<byte[], ByteBuffer> records, Predicate<TopicPartition> wanted) {
    List<PartitionRuns> partitions = new ArrayList<>();
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<byte[], ByteBuffer>> theirs = records.records(tp);
      Lanes lanes = byTopic.get(tp.topic());
      List<CompletableFuture<Object[]>> runs = new ArrayList<>();
      boolean decode = lanes != null && wanted.test(tp);
      for (int from = 0; from < theirs.size(); from += RUN) {
        int to = Math.min(theirs.size(), from + RUN);
        if (!decode) {
          runs.add(CompletableFuture.completedFuture(notDecoded(to - from)));
        } else if (pool == null) {
          runs.add(CompletableFuture.completedFuture(lanes.decode(theirs, from, to)));
        } else {
          int f = from;
          runs.add(CompletableFuture.supplyAsync(() -> lanes.decode(theirs, f, to), pool));
        }
      }
      partitions.add(new PartitionRuns(tp, theirs, runs));
    }
    return new Batch(partitions);
  }

  private static Object[] notDecoded(int n) {
    Object[] out = new Object[n];
    java.util.Arrays.fill(out, NOT_DECODED);
    return out;
  }

  /** The outcome of a record that was not decoded ahead (its partition was not being read). */
  static final Object NOT_DECODED = new Object();

  /** A decoder's exception, kept for the poll thread to handle at the record's turn. */
  record Failure(Throwable cause) {}

  /** A poll's records with their outcomes, partition by partition in the poll's order. */
  record Batch(List<PartitionRuns> partitions) {}

  /** One partition's records in offset order, and the outcomes of their runs. */
  record PartitionRuns(TopicPartition partition, List<ConsumerRecord<byte[], ByteBuffer>> records,
      List<CompletableFuture<Object[]>> runs) {

    /**
     * The outcome of record {@code i} (waiting for its run): a {@link ChangeEvent}, null (no
     * change), a {@link Failure} or {@link #NOT_DECODED}. An {@link Error} in a decoder thread
     * is thrown here, on the poll thread, as it would have been without the pool.
     */
    Object outcome(int i) {
      Object o = runs.get(i / RUN).join()[i % RUN];
      if (o instanceof Failure f && f.cause() instanceof Error e) {
        throw e;
      }
      return o;
    }
  }

  /** One topic's decoder instances, each used by one run at a time. */
  private static final class Lanes {
    private final Supplier<RecordDecoder> factory;
    private final Queue<RecordDecoder> idle = new ConcurrentLinkedQueue<>();

    Lanes(Supplier<RecordDecoder> factory) {
      this.factory = factory;
    }

    Object[] decode(List<ConsumerRecord<byte[], ByteBuffer>> records, int from, int to) {
      RecordDecoder decoder = idle.poll();
      if (decoder == null) {
        synchronized (Lanes.class) { // factories share state between topics (registry clients): one at a time
          decoder = factory.get();
        }
      }
      Object[] out = new Object[to - from];
      try {
        for (int i = from; i < to; i++) {
          ConsumerRecord<byte[], ByteBuffer> r = records.get(i);
          try {
            out[i - from] = decoder.decode(new SourcePosition(r.topic(), r.partition(), r.offset()), r.key(), r.value());
          } catch (Throwable t) { // handed to the poll thread, which decides (Errors are rethrown there)
            out[i - from] = new Failure(t);
          }
        }
      } finally {
        idle.add(decoder);
      }
      return out;
    }
  }
}
