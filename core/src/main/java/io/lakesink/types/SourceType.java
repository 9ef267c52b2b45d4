package io.lakesink.types;

import java.util.Map;

/**
 * A field's type as a source schema describes it: Kafka Connect's base type ({@code int32},
 * {@code bytes}, {@code struct}, …; Avro primitives map onto these), the semantic name
 * ({@code io.debezium.time.Date}, {@code org.apache.kafka.connect.data.Decimal}, or an Avro
 * logical type such as {@code timestamp-micros}) and the schema parameters.
 */
public record SourceType(String baseType, String semanticName, Map<String, String> parameters) {
  public SourceType {
    parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
  }

  public static SourceType of(String baseType) {
    return new SourceType(baseType, null, Map.of());
  }
}
