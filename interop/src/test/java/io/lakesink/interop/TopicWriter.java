package io.lakesink.interop;

import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends records one at a time and returns the offset the broker gave each, so expected rows carry
 * real positions rather than positions the test assumes.
 */
final class TopicWriter implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;

  TopicWriter(String bootstrapServers, String topic) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer = new KafkaProducer<>(p);
    this.topic = topic;
  }

  /** Sends and waits; returns the record's offset. A null value is a tombstone. */
  long send(int partition, byte[] key, byte[] value) {
    try {
      return producer.send(new ProducerRecord<>(topic, partition, key, value)).get().offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Could not send to " + topic + "-" + partition + ": " + e.getCause(), e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
