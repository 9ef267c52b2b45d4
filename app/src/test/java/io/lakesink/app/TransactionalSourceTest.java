package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records of an aborted producer transaction never reach a table (the consumer reads
 * committed records only). Fails on the previous worker, which read uncommitted records.
 */
@Timeout(180)
class TransactionalSourceTest {
  @TempDir Path data;

  @Test
  void abortedTransactionsAreNeverDelivered() {
    String topic = SharedKafka.newTopic("txn", 1);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, SharedKafka.uniqueName("txn-producer"));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      producer.beginTransaction();
      send(producer, topic, 1, "kept");
      producer.commitTransaction();
      producer.beginTransaction();
      send(producer, topic, 1, "aborted");
      send(producer, topic, 2, "aborted");
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      send(producer, topic, 3, "kept");
      producer.commitTransaction();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    assertEquals(0, w.runToEnd());
    Map<String, String> names = new TreeMap<>();
    w.rows("t").forEach(r -> names.merge(String.valueOf(r.get("id")), String.valueOf(r.get("name")), (a, b) -> a + "," + b));
    assertEquals(Map.of("1", "kept", "3", "kept"), names);
  }

  static void send(KafkaProducer<byte[], byte[]> producer, String topic, long id, String name) {
    producer.send(new ProducerRecord<>(topic, 0, ("{\"id\":" + id + "}").getBytes(),
        ChangelogEndToEndTest.envelope("c", id, name, id).getBytes()));
  }
}
