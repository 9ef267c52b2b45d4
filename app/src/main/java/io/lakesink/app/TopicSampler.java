package io.lakesink.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the first record of each topic, from the beginning, for {@code lakesink init}. Partitions
 * are assigned, never subscribed: no consumer group is joined and no offset committed, so the
 * worker's group and its lag stay untouched.
 */
final class TopicSampler {
  enum Status {
    /** A record with a value (and its key). */
    READ,
    /** Only tombstones (a key, no value) to the end of every partition. */
    TOMBSTONES,
    /** The topic holds no record. */
    EMPTY,
    /** Records exist, but none arrived within the time bound. */
    NOT_READ
  }

  /** @param key and value as written, either may be null */
  record Sample(Status status, byte[] key, byte[] value) {}

  private TopicSampler() {}

  /**
   * @param bound how long to wait for records once the partitions are known; empty topics are
   *     known empty from their offsets and never waited for
   */
  static Map<String, Sample> sample(String bootstrap, Map<String, String> properties, Collection<String> topics, Duration bound) {
    Map<String, Sample> result = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(bootstrap, properties),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Map<String, List<PartitionInfo>> all = consumer.listTopics(KafkaCheck.TIMEOUT);
      List<TopicPartition> partitions = new ArrayList<>();
      for (String t : topics) {
        all.getOrDefault(t, List.of()).forEach(p -> partitions.add(new TopicPartition(t, p.partition())));
      }
      // Assigned before the offsets are asked: the consumer warns about offsets of partitions it does not hold.
      consumer.assign(partitions);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, KafkaCheck.TIMEOUT);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, KafkaCheck.TIMEOUT);
      Map<String, Set<TopicPartition>> open = new HashMap<>();
      for (TopicPartition tp : partitions) {
        if (end.get(tp) > begin.get(tp)) {
          open.computeIfAbsent(tp.topic(), t -> new HashSet<>()).add(tp);
          consumer.seek(tp, begin.get(tp));
        } else {
          consumer.pause(List.of(tp)); // empty: nothing to fetch
        }
      }
      topics.stream().filter(t -> !open.containsKey(t)).forEach(t -> result.put(t, new Sample(Status.EMPTY, null, null)));
      read(consumer, open, end, result, System.nanoTime() + bound.toNanos());
    }
    return result;
  }

  private static void read(KafkaConsumer<byte[], byte[]> consumer, Map<String, Set<TopicPartition>> open,
      Map<TopicPartition, Long> end, Map<String, Sample> result, long deadline) {
    Map<String, byte[]> tombstoneKeys = new HashMap<>();
    long left;
    while (!open.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofNanos(Math.min(left, 200_000_000L)))) {
        Set<TopicPartition> mine = open.get(r.topic());
        if (mine == null) {
          continue; // already sampled; the rest of its fetched batch is not needed
        }
        if (r.value() == null) {
          tombstoneKeys.putIfAbsent(r.topic(), r.key());
          continue;
        }
        result.put(r.topic(), new Sample(Status.READ, r.key(), r.value()));
        consumer.pause(mine);
        open.remove(r.topic());
      }
      // A partition read to its end without a value is done; a topic of only such partitions has only tombstones.
      for (var it = open.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        e.getValue().removeIf(tp -> consumer.position(tp) >= end.get(tp));
        if (e.getValue().isEmpty()) {
          result.put(e.getKey(), new Sample(Status.TOMBSTONES, tombstoneKeys.get(e.getKey()), null));
          it.remove();
        }
      }
    }
    open.keySet().forEach(t -> result.put(t, new Sample(Status.NOT_READ, tombstoneKeys.get(t), null)));
  }

  private static Map<String, Object> consumerProperties(String bootstrap, Map<String, String> properties) {
    Map<String, Object> p = new HashMap<>(properties);
    // No group: a group.id would let auto-commit move the worker's group offsets.
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "lakesink-init");
    // One record per topic is wanted: small fetches keep memory low with many partitions (a larger
    // first batch is still returned whole).
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 * 1024);
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 * 1024 * 1024);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) KafkaCheck.TIMEOUT.toMillis());
    return p;
  }
}
