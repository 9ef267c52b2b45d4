package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.kafka.NonTableTopics;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.kafka.decode.Decoders;
import io.lakesink.kafka.decode.RecordDecoder;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Subscribed topics that carry no table changes, refused by {@code check} and at start (docs/tables.md,
 * "Topics that carry no table changes"): by name, else by each topic's first record. Reading them
 * takes one short-lived consumer that joins no group.
 */
final class SourceTopics {
  /** What reading the first record of every subscribed topic may take at start. */
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private SourceTopics() {}

  static List<NonTableTopics.Found> find(WorkerConfig config) {
    Map<String, Object> props = new HashMap<>(config.kafka().properties());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
    Map<SchemaRegistrySettings, SchemaRegistryClient> registries = new HashMap<>();
    Map<String, Supplier<RecordDecoder>> decoders = new LinkedHashMap<>();
    for (Subscription s : config.subscriptions()) {
      decoders.put(s.topic(), Decoders.of(s, config.schemaRegistry(), registries));
    }
    return NonTableTopics.find(props, decoders, TIMEOUT);
  }

  /** @throws ConfigurationException naming every subscription whose topic carries no table changes */
  static void refuse(WorkerConfig config) {
    List<NonTableTopics.Found> found = find(config);
    if (!found.isEmpty()) {
      throw Errors.all(found.stream().map(f -> error(config, f)).toList());
    }
  }

  static ConfigurationException error(WorkerConfig config, NonTableTopics.Found f) {
    List<Subscription> subs = config.subscriptions();
    int index = 0;
    while (index < subs.size() && !subs.get(index).topic().equals(f.topic())) {
      index++;
    }
    return Errors.nonTableTopic("subscriptions[" + index + "].topic", f.topic(), f.kind(), f.evidence());
  }
}
