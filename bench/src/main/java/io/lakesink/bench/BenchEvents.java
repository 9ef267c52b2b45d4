package io.lakesink.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.BitSet;
import java.util.Properties;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The benchmark's change stream: Debezium envelopes as the JSON converter writes them with
 * {@code schemas.enable=false}, for a 10-column {@code orders} table. 70% creates, 25% updates
 * (no {@code before}, as with Postgres' default replica identity), 5% deletes (a {@code before}
 * image, no tombstone: {@code tombstones.on.delete=false}), with a realistic {@code source} block.
 * About 750 bytes per event. Deterministic for a given count.
 *
 * <p>With a bounded key space ({@code keys > 0}, the workload of a kept current-state table):
 * first a create of every key 1..keys, then each event draws a key uniformly; a live key is
 * updated (90%) or deleted (10%), a deleted one created again. In the steady state about 91% of
 * the keys are live and the events after the creates are about 82% updates, 9% deletes and 9%
 * re-inserts.
 */
final class BenchEvents {
  static final long T0 = 1_762_077_600_000L; // 2025-11-02T10:00:00Z
  private static final String[] STATUS = {"pending", "paid", "shipped", "delivered", "cancelled", "refunded"};
  private static final String[] CURRENCY = {"EUR", "USD", "GBP", "NOK", "CHF"};
  private static final String NOTE = "leave at the door, ring twice; fragile items inside: glassware & ceramics";

  private BenchEvents() {}

  /** Produces {@code count} events to every partition of {@code topic} round-robin by key; returns bytes sent. */
  static long produce(String bootstrapServers, String topic, int partitions, long count) {
    return produce(bootstrapServers, topic, partitions, false, count);
  }

  /** @param hot whether one partition takes {@link #HOT_PERCENT} % of the keys and the others share the rest */
  static long produce(String bootstrapServers, String topic, int partitions, boolean hot, long count) {
    return produce(bootstrapServers, topic, partitions, hot, 0, count);
  }

  /** @param keys the size of the key space, 0 for the unbounded workload (every create a new key) */
  static long produce(String bootstrapServers, String topic, int partitions, boolean hot, long keys, long count) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "1");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L << 20);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    long[] bytes = {0};
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      generate(count, partitions, hot, keys, (partition, key, value) -> {
        producer.send(new ProducerRecord<>(topic, partition, key, value));
        bytes[0] += key.length + value.length;
      });
      producer.flush();
    }
    return bytes[0];
  }

  /** Receives the generated events, in order. */
  @FunctionalInterface
  interface Sink {
    void accept(int partition, byte[] key, byte[] value);
  }

  /**
   * Generates the {@code count} events {@link #produce} sends, each with the partition it goes to
   * (round-robin by key): the floor benchmark decodes the same bytes from memory.
   */
  static void generate(long count, int partitions, Sink sink) {
    generate(count, partitions, false, sink);
  }

  /** The share of the keys the hot partition (0) takes in a hot case; the other partitions share the rest. */
  static final int HOT_PERCENT = 97;

  /** Like {@link #generate(long, int, Sink)}, with one hot partition when {@code hot}: still partitioned by key. */
  static void generate(long count, int partitions, boolean hot, Sink sink) {
    generate(count, partitions, hot, 0, sink);
  }

  /** Like {@link #generate(long, int, boolean, Sink)}, on {@code keys} keys when {@code keys > 0}. */
  static void generate(long count, int partitions, boolean hot, long keys, Sink sink) {
    generate(count, partitions, hot, keys, (partition, op, id, key, value) -> sink.accept(partition, key, value));
  }

  /** Receives the generated events with what the verification of a kept table needs: the operation and key. */
  @FunctionalInterface
  interface Changes {
    void accept(int partition, String op, long id, byte[] key, byte[] value);
  }

  /** The events {@link #produce} sends, in order, each with its operation and id. */
  static void generate(long count, int partitions, boolean hot, long keys, Changes sink) {
    SplittableRandom random = new SplittableRandom(42);
    long liveIds = 0;
    BitSet deleted = keys > 0 ? new BitSet() : null;
    StringBuilder sb = new StringBuilder(1024);
    for (long i = 0; i < count; i++) {
      String op;
      long id;
      if (keys > 0) {
        if (liveIds < keys) {
          op = "c";
          id = ++liveIds;
        } else {
          id = 1 + random.nextLong(keys);
          op = deleted.get((int) id) ? "c" : random.nextInt(100) < 10 ? "d" : "u";
          deleted.set((int) id, op.equals("d"));
        }
      } else {
        int dice = random.nextInt(100);
        if (dice < 70 || liveIds < 10) {
          op = "c";
          id = ++liveIds;
        } else if (dice < 95) {
          op = "u";
          id = 1 + random.nextLong(liveIds);
        } else {
          op = "d";
          id = 1 + random.nextLong(liveIds);
        }
      }
      long ts = T0 + i; // one change per millisecond at the source
      sb.setLength(0);
      envelope(sb, op, id, ts, random);
      byte[] value = sb.toString().getBytes(StandardCharsets.UTF_8);
      byte[] key = ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
      int partition = !hot || partitions == 1 ? (int) (id % partitions)
          : id % 100 < HOT_PERCENT ? 0 : 1 + (int) (id % (partitions - 1));
      sink.accept(partition, op, id, key, value);
    }
  }

  private static void envelope(StringBuilder sb, String op, long id, long ts, SplittableRandom random) {
    sb.append("{\"before\":");
    if (op.equals("d")) {
      row(sb, id, ts - 5_000, random);
    } else {
      sb.append("null");
    }
    sb.append(",\"after\":");
    if (op.equals("d")) {
      sb.append("null");
    } else {
      row(sb, id, ts, random);
    }
    sb.append(",\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":\"bench\",\"ts_ms\":").append(ts)
        .append(",\"snapshot\":\"false\",\"db\":\"shop\",\"sequence\":\"[\\\"").append(24_023_128L + ts % 1_000_000).append("\\\",\\\"")
        .append(24_023_184L + ts % 1_000_000).append("\\\"]\",\"ts_us\":").append(ts * 1000).append(",\"ts_ns\":").append(ts * 1_000_000)
        .append(",\"schema\":\"public\",\"table\":\"orders\",\"txId\":").append(700 + ts % 100_000).append(",\"lsn\":").append(24_023_184L + ts % 1_000_000)
        .append(",\"xmin\":null},\"transaction\":null,\"op\":\"").append(op).append("\",\"ts_ms\":").append(ts + 35)
        .append(",\"ts_us\":").append((ts + 35) * 1000).append(",\"ts_ns\":").append((ts + 35) * 1_000_000).append('}');
  }

  /** The 10 columns: numbers, strings, an ISO timestamp and an epoch-micros one. */
  private static void row(StringBuilder sb, long id, long ts, SplittableRandom random) {
    long cents = random.nextLong(1_000_000);
    sb.append("{\"id\":").append(id)
        .append(",\"customer_id\":").append(1 + random.nextInt(50_000))
        .append(",\"status\":\"").append(STATUS[random.nextInt(STATUS.length)]).append('"')
        .append(",\"amount\":\"").append(cents / 100).append('.').append(cents % 100 < 10 ? "0" : "").append(cents % 100).append('"')
        .append(",\"currency\":\"").append(CURRENCY[random.nextInt(CURRENCY.length)]).append('"')
        .append(",\"sku\":\"SKU-").append(100_000 + random.nextInt(900_000)).append('"')
        .append(",\"quantity\":").append(1 + random.nextInt(20))
        .append(",\"note\":\"").append(NOTE, 0, 20 + random.nextInt(NOTE.length() - 20)).append('"')
        .append(",\"created_at\":\"").append(Instant.ofEpochMilli(ts - 86_400_000L)).append('"')
        .append(",\"updated_at\":").append(ts * 1000 + random.nextInt(1000))
        .append('}');
  }
}
