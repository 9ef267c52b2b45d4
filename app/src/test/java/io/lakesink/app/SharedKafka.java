package io.lakesink.app;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * One real KRaft broker per test JVM (starting one costs seconds), with unique topic names.
 *
 * <p>The broker stops when the JUnit session ends ({@link StopAtSessionEnd}), while the JVM is
 * still whole. Stopping it from a shutdown hook raced Kafka's own hook that deletes the broker's
 * temporary directory: the broker saw its log directory vanish, halted the JVM with status 1, and
 * Surefire failed a build whose tests had all passed.
 */
final class SharedKafka {
  private static LocalKafkaBroker broker;
  private static final AtomicInteger counter = new AtomicInteger();

  private SharedKafka() {}

  static synchronized LocalKafkaBroker broker() {
    if (broker == null) {
      broker = LocalKafkaBroker.start();
    }
    return broker;
  }

  static synchronized void stop() {
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }

  /** Registered in META-INF/services: the launcher calls it once, after the last test class. */
  public static final class StopAtSessionEnd implements LauncherSessionListener {
    @Override
    public void launcherSessionClosed(LauncherSession session) {
      stop();
    }
  }

  static String bootstrap() {
    return broker().bootstrapServers();
  }

  /** A fresh topic name (and group id) per test, so tests never see each other's data. */
  static String uniqueName(String base) {
    return base + "-" + counter.incrementAndGet();
  }

  static String newTopic(String base, int partitions) {
    String name = uniqueName(base);
    broker().createTopic(name, partitions);
    return name;
  }

  static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p);
  }

  static void send(KafkaProducer<byte[], byte[]> producer, String topic, int partition, String key, String value) {
    producer.send(
        new ProducerRecord<>(topic, partition, key == null ? null : key.getBytes(), value == null ? null : value.getBytes()),
        (metadata, e) -> {
          if (e != null) {
            // A test that expects this record would wait for it in vain: say why, loudly.
            System.err.println("TEST HARNESS: producing to " + topic + "-" + partition + " failed: " + e);
          }
        });
  }
}
