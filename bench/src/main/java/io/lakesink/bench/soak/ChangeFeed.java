package io.lakesink.bench.soak;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Feeds the same Debezium change stream to two topics (one per delivery mode) at a steady rate,
 * on its own thread, and keeps the model the soak checks against: which (partition, offset) of
 * the changelog topic carry a change (tombstones have no row), and the last change per key.
 *
 * <p>A key always goes to the same partition and source timestamps only grow, so the last
 * change sent for a key is its current state. A delete is followed by a tombstone, as Debezium
 * does.
 */
final class ChangeFeed implements AutoCloseable {
  static final int KEYS = 600;

  private final KafkaProducer<byte[], byte[]> producer;
  private final String changelogTopic;
  private final String mergeTopic;
  private final int partitions;
  private final int eventsPerSecond;
  private final Random random;
  private final Thread thread;
  private volatile boolean running = true;

  // Written by the feed thread only; read after stop() joined it.
  private final Map<Long, String> current = new HashMap<>();
  private long ts = 1_000_000L;
  private volatile long changes; // read by the driver for progress lines
  private long tombstones;

  // Written by the producer's callbacks.
  private final Map<Integer, BitSet> rowOffsets = new HashMap<>();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

  ChangeFeed(String bootstrap, String changelogTopic, String mergeTopic, int partitions, int eventsPerSecond, long seed) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // Idempotent: no duplicate and no reordering within a partition, so the model is the topic.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    this.producer = new KafkaProducer<>(p);
    this.changelogTopic = changelogTopic;
    this.mergeTopic = mergeTopic;
    this.partitions = partitions;
    this.eventsPerSecond = eventsPerSecond;
    this.random = new Random(seed);
    this.thread = new Thread(this::feed, "soak-feed");
  }

  void start() {
    thread.start();
  }

  /** Stops feeding and waits until every event sent is acknowledged. */
  void stop() throws InterruptedException {
    running = false;
    thread.join();
    producer.flush();
    if (failures.get() > 0) {
      throw new IllegalStateException(failures.get() + " sends failed; the model no longer matches the topics", firstFailure.get());
    }
  }

  private void feed() {
    // Paced in ticks of 100 ms; the pacing is the point (a steady stream), not a synchronization.
    double owed = 0;
    while (running) {
      owed += eventsPerSecond / 10.0;
      for (; owed >= 1; owed--) {
        sendOne();
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void sendOne() {
    long id = random.nextInt(KEYS);
    int partition = (int) (id % partitions);
    String op = !current.containsKey(id) ? "c" : random.nextInt(8) == 0 ? "d" : "u";
    String name = "v" + changes;
    if (op.equals("d")) {
      name = current.remove(id);
    } else {
      current.put(id, name);
    }
    byte[] key = ("{\"id\":" + id + "}").getBytes();
    byte[] value = envelope(op, id, name, ts++).getBytes();
    changes++;
    producer.send(new ProducerRecord<>(changelogTopic, partition, key, value), (md, e) -> {
      if (e != null) {
        failed(e);
      } else {
        synchronized (rowOffsets) {
          rowOffsets.computeIfAbsent(md.partition(), x -> new BitSet()).set(Math.toIntExact(md.offset()));
        }
      }
    });
    producer.send(new ProducerRecord<>(mergeTopic, partition, key, value), (md, e) -> failed(e));
    if (op.equals("d")) {
      tombstones++;
      producer.send(new ProducerRecord<>(changelogTopic, partition, key, null), (md, e) -> failed(e));
      producer.send(new ProducerRecord<>(mergeTopic, partition, key, null), (md, e) -> failed(e));
    }
  }

  private void failed(Exception e) {
    if (e != null) {
      failures.incrementAndGet();
      firstFailure.compareAndSet(null, e);
    }
  }

  static String envelope(String op, long id, String name, long ts) {
    String image = "{\"id\":" + id + ",\"name\":\"" + name + "\",\"qty\":" + (id * 3) + "}";
    String before = op.equals("d") ? image : "null";
    String after = op.equals("d") ? "null" : image;
    return "{\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"ts_ms\":" + ts + ",\"db\":\"soak\"},\"op\":\""
        + op + "\",\"ts_ms\":" + (ts + 5) + "}";
  }

  /** Change events sent so far (tombstones not counted). */
  long changes() {
    return changes;
  }

  long tombstones() {
    return tombstones;
  }

  /** The changelog topic's offsets that carry a change, per partition; after {@link #stop}. */
  Map<Integer, BitSet> rowOffsets() {
    synchronized (rowOffsets) {
      Map<Integer, BitSet> copy = new TreeMap<>();
      rowOffsets.forEach((p, bits) -> copy.put(p, (BitSet) bits.clone()));
      return copy;
    }
  }

  /** Key → name of its last change, for keys whose last change is not a delete; after {@link #stop}. */
  Map<String, String> lastChangePerKey() {
    Map<String, String> m = new TreeMap<>();
    current.forEach((k, v) -> m.put(String.valueOf(k), v));
    return m;
  }

  @Override
  public void close() {
    running = false;
    producer.close();
  }
}
