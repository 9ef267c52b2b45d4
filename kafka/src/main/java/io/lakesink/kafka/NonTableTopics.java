package io.lakesink.kafka;

import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.NonTableTopic;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Finds subscribed topics that carry no table changes (Debezium's heartbeat, transaction-metadata
 * and schema-change topics) before anything is delivered: by name where Debezium's naming is
 * unambiguous, else by the first record of the topic, decoded as the subscription would decode it.
 * A topic whose first record cannot be had (empty, unreadable, the registry down) is passed: the
 * decoders refuse such records one by one as well, so nothing is ever delivered from it.
 */
public final class NonTableTopics {
  /** A topic found, with how it was recognised. */
  public record Found(String topic, NonTableTopic kind, String evidence) {}

  private NonTableTopics() {}

  /**
   * @param consumerProperties the worker's consumer settings (bootstrap, security); no group is joined
   * @param decoders each subscribed topic's decoder, in the order the topics are reported in
   * @param timeout what reading the first records may take in all
   */
  public static List<Found> find(
      Map<String, Object> consumerProperties, Map<String, Supplier<RecordDecoder>> decoders, Duration timeout) {
    List<Found> found = new ArrayList<>();
    Map<String, Supplier<RecordDecoder>> toRead = new LinkedHashMap<>();
    decoders.forEach((topic, decoder) -> NonTableTopic.byName(topic).ifPresentOrElse(
        kind -> found.add(new Found(topic, kind, "by its name")), () -> toRead.put(topic, decoder)));
    if (!toRead.isEmpty()) {
      firstRecords(consumerProperties, toRead.keySet(), timeout).forEach(r -> classify(r, toRead.get(r.topic()).get())
          .ifPresent(kind -> found.add(new Found(r.topic(), kind,
              "by its first record (partition " + r.partition() + ", offset " + r.offset() + ")"))));
    }
    // In the order given (the subscriptions'), not the order the records arrived in.
    List<String> order = new ArrayList<>(decoders.keySet());
    found.sort(Comparator.comparingInt(f -> order.indexOf(f.topic())));
    return found;
  }

  private static Optional<NonTableTopic> classify(ConsumerRecord<byte[], byte[]> r, RecordDecoder decoder) {
    try {
      decoder.decode(new SourcePosition(r.topic(), r.partition(), r.offset()), r.key(), r.value());
      return Optional.empty();
    } catch (DecodeException e) {
      return e.nonTableTopic(); // any other problem is the record's, reported when it is delivered
    } catch (RetryableException | ConfigurationException e) {
      return Optional.empty(); // the registry cannot say now: delivery will
    }
  }

  /** The earliest record of each topic that has one (of its lowest partition holding records). */
  static List<ConsumerRecord<byte[], byte[]>> firstRecords(Map<String, Object> consumerProperties, Iterable<String> topics,
      Duration timeout) {
    Map<String, Object> props = new HashMap<>(consumerProperties);
    props.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned, not subscribed: no group to join or commit to
    props.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // looking must not create a topic
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // as the worker reads
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long deadline = System.nanoTime() + timeout.toNanos();
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> all = new ArrayList<>();
      for (String topic : topics) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, remaining(deadline));
        if (partitions != null) {
          partitions.forEach(p -> all.add(new TopicPartition(p.topic(), p.partition())));
        }
      }
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(all, remaining(deadline));
      Map<TopicPartition, Long> end = consumer.endOffsets(all, remaining(deadline));
      Map<String, TopicPartition> chosen = new LinkedHashMap<>();
      all.stream()
          .filter(tp -> end.getOrDefault(tp, 0L) > begin.getOrDefault(tp, 0L))
          .sorted(Comparator.comparingInt(TopicPartition::partition))
          .forEach(tp -> chosen.putIfAbsent(tp.topic(), tp));
      consumer.assign(chosen.values());
      chosen.values().forEach(tp -> consumer.seek(tp, begin.get(tp)));
      while (!chosen.isEmpty() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(Math.min(500, remaining(deadline).toMillis())))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (tp.equals(chosen.get(r.topic()))) {
            out.add(r);
            chosen.remove(r.topic());
            consumer.pause(List.of(tp));
          }
        }
      }
    } catch (TimeoutException e) {
      // Kafka did not answer in time: what was read is classified, the rest left to delivery.
    }
    return out;
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }
}
