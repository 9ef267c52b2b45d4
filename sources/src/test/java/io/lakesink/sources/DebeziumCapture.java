package io.lakesink.sources;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.ChangeEvent;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's MySQL connector in its embedded engine, writing each change into the test broker once
 * per converter setup. One connector run serves every format: what differs between the setups is
 * only the converter that turns Debezium's Connect record into bytes, so each record is converted by
 * each and sent to the format's own topic ({@code <format>.<Debezium's topic>}), which the test
 * creates (the broker does not create topics on demand: a send to a missing one would block).
 */
final class DebeziumCapture implements AutoCloseable {
  /** A converter setup: the topic prefix it writes under and how it turns Connect data into bytes. */
  interface Format {
    String name();

    byte[] key(String topic, SourceRecord r);

    byte[] value(String topic, SourceRecord r);
  }

  private final DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine;
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Set<String> topics;

  /**
   * @param topics Debezium's topics to copy into Kafka, each once per format
   * @param seen told of every record once its batch is in Kafka
   */
  DebeziumCapture(Properties connector, String bootstrap, Set<String> topics, List<Format> formats, Consumer<SourceRecord> seen) {
    this.topics = Set.copyOf(topics);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"); // one copy of each change, in order
    this.producer = new KafkaProducer<>(p);
    this.engine = DebeziumEngine.create(Connect.class)
        .using(connector)
        .using((success, message, error) -> {
          if (!success) {
            failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
          }
        })
        .notifying((records, committer) -> {
          try {
            deliver(records, formats);
          } catch (RuntimeException | Error e) { // the engine may retry or log it only: the test must hear of it
            failure.compareAndSet(null, e);
            throw e;
          }
          for (ChangeEvent<SourceRecord, SourceRecord> event : records) {
            committer.markProcessed(event);
          }
          for (ChangeEvent<SourceRecord, SourceRecord> event : records) {
            seen.accept(event.value());
          }
          committer.markBatchFinished();
        })
        .build();
    executor.execute(engine);
  }

  private void deliver(List<ChangeEvent<SourceRecord, SourceRecord>> records, List<Format> formats) {
    for (ChangeEvent<SourceRecord, SourceRecord> event : records) {
      SourceRecord r = event.value();
      if (topics.contains(r.topic())) { // not the marker table's, nor Debezium's own topics
        for (Format f : formats) {
          String topic = f.name() + "." + r.topic();
          producer.send(new ProducerRecord<>(topic, 0, f.key(topic, r), f.value(topic, r)), (metadata, e) -> {
            if (e != null) {
              failure.compareAndSet(null, e);
            }
          });
        }
      }
    }
    producer.flush(); // every change of the batch is in Kafka before anyone hears of it
  }

  /** Why the engine stopped on its own, if it did. */
  Throwable failure() {
    return failure.get();
  }

  @Override
  public void close() throws IOException {
    engine.close();
    executor.shutdown();
    try {
      executor.awaitTermination(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close();
  }

  /** The connector settings lakesink's documentation recommends, against the given server. */
  static Properties mySqlConnector(MariaDbServer server, String database, String tables, java.nio.file.Path history) {
    Properties c = new Properties();
    c.putAll(Map.of(
        "name", "mariadb-e2e",
        "connector.class", "io.debezium.connector.mysql.MySqlConnector",
        "offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore",
        "offset.flush.interval.ms", "1000",
        "schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename", history.toString(),
        "topic.prefix", "shop",
        "database.include.list", database,
        "table.include.list", tables));
    c.putAll(Map.of(
        "database.hostname", "127.0.0.1",
        "database.port", Integer.toString(server.port),
        "database.user", "root",
        "database.password", "",
        "database.server.id", "5400",
        // MariaDB's own driver: MySQL Connector/J 9 asks for a variable MariaDB lacks.
        "database.jdbc.driver", "org.mariadb.jdbc.Driver",
        "database.protocol", "jdbc:mariadb",
        "database.ssl.mode", "disabled"));
    c.putAll(Map.of(
        "include.schema.changes", "false",
        "bigint.unsigned.handling.mode", "precise", // unsigned BIGINT as an exact decimal, not a wrapped long
        "decimal.handling.mode", "precise",
        "time.precision.mode", "adaptive_time_microseconds",
        "skipped.operations", "none", // the connector's default skips truncates
        // The adjuster reads a two-digit year as 19xx/20xx, and also year 0001 written in full
        // (it arrives as 2001): off, the values are the database's.
        "enable.time.adjuster", "false",
        "snapshot.mode", "initial",
        "poll.interval.ms", "100"));
    return c;
  }
}
