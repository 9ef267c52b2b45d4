package io.lakesink.kafka;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delta.DeltaTable;
import io.lakesink.kafka.avro.AvroDebeziumDecoder;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import io.lakesink.kafka.decode.DetectingDecoder;
import io.lakesink.kafka.decode.RecordDecoder;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.storage.TableStorage;
import java.util.Map;
import java.util.function.Supplier;

/**
 * How a subscription becomes a delivery and a decoder, shared by the standalone worker and the
 * Kafka Connect task so both write the same tables the same way.
 */
public final class Routes {
  private Routes() {}

  /**
   * The delivery of a subscription's mode. Each reads offsets from the other mode's table too,
   * so switching modes continues exactly where the other stopped.
   */
  public static BufferedDelivery delivery(
      Subscription s, TableStorage storage, Engine engine, DeliveryContext context, MergeSettings merge) {
    String name = TableNames.sanitize(s.table());
    DeltaTable changelog = new DeltaTable(engine, storage.tableLocation(TableNames.changelog(name)));
    DeltaTable merged = new DeltaTable(engine, storage.tableLocation(name));
    return switch (s.mode()) {
      case CHANGELOG -> new ChangelogDelivery(s, changelog, merged, context);
      case MERGE -> new MergeDelivery(s, merged, changelog, context, merge);
    };
  }

  /**
   * One decoder per subscription; one registry client (and schema cache) per registry, kept in
   * {@code registries} across calls.
   *
   * @param registry the schema registry, or null when none is configured
   */
  public static Supplier<RecordDecoder> decoder(
      Subscription s, SchemaRegistrySettings registry, Map<SchemaRegistrySettings, SchemaRegistryClient> registries) {
    Supplier<AvroDebeziumDecoder> avro = () -> registry == null
        ? null
        : new AvroDebeziumDecoder(registries.computeIfAbsent(registry, SchemaRegistryClient::new));
    return switch (s.format()) {
      case JSON -> DebeziumJsonDecoder::new;
      case AVRO -> avro::get; // the configuration guarantees a registry for avro
      case AUTO -> () -> new DetectingDecoder(avro);
    };
  }
}
