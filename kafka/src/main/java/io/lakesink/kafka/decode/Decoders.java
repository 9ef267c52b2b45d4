package io.lakesink.kafka.decode;

import io.lakesink.config.Subscription;
import io.lakesink.kafka.avro.AvroDebeziumDecoder;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import java.util.Map;
import java.util.function.Supplier;

/** The decoder of a subscription's format, shared by the standalone worker and the Kafka Connect task. */
public final class Decoders {
  private Decoders() {}

  /**
   * Builds the decoders of a subscription (the worker keeps one per thread decoding it); one
   * registry client (and schema cache) per registry, kept in {@code registries} across calls.
   *
   * @param registry the schema registry, or null when none is configured
   */
  public static Supplier<RecordDecoder> of(
      Subscription s, SchemaRegistrySettings registry, Map<SchemaRegistrySettings, SchemaRegistryClient> registries) {
    // Decoders are built on decoder threads (a topic has one per thread decoding it, and format
    // auto builds its Avro one on the first Avro record): the shared map is guarded.
    Supplier<AvroDebeziumDecoder> avro = () -> {
      if (registry == null) {
        return null;
      }
      synchronized (registries) {
        return new AvroDebeziumDecoder(registries.computeIfAbsent(registry, SchemaRegistryClient::new));
      }
    };
    return switch (s.format()) {
      case JSON -> DebeziumJsonDecoder::new;
      case AVRO -> avro::get; // the configuration guarantees a registry for avro
      case AUTO -> () -> new DetectingDecoder(avro);
    };
  }
}
