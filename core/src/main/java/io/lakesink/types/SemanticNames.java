package io.lakesink.types;

import java.util.Set;

/**
 * The semantic names lakesink has a rule for. A name changes what a primitive wire value means
 * (an {@code int64} is a count of micro- or nanoseconds, a {@code bytes} is a decimal), so a
 * primitive field with a name outside this list is refused rather than stored as its bare base
 * type: a silently wrong column cannot be taken back. Structs, arrays and maps are exempt: their
 * names are record names chosen by the source (Connect's Avro converter names every struct), and
 * their value is stored whole as JSON text whatever the name says.
 */
public final class SemanticNames {
  /** Names whose value is rightly its base type's: text, an integer, a double, base64 bytes. */
  private static final Set<String> BASE_TYPE_IS_RIGHT = Set.of(
      "io.debezium.data.Json", // JSON text
      "io.debezium.data.Xml",
      "io.debezium.data.Uuid",
      "io.debezium.data.Enum",
      "io.debezium.data.EnumSet", // comma-separated text
      "io.debezium.data.Ltree",
      "io.debezium.data.TsVector",
      "io.debezium.data.Bits", // bytes, little-endian: stored base64 as any bytes
      "io.debezium.time.Year", // int32, the year itself
      "io.debezium.time.ZonedTime", // ISO-8601 text with an offset
      "io.debezium.time.IsoDate", // time.precision.mode=isostring: ISO-8601 text
      "io.debezium.time.IsoTime",
      "io.debezium.time.IsoTimestamp",
      "io.debezium.time.Interval", // interval.handling.mode=string: ISO-8601 duration text
      "io.debezium.time.MicroDuration", // float64 microseconds (months as 365.25/12 days)
      "io.debezium.time.NanoDuration", // int64 nanoseconds
      "uuid", // Avro logical type on string
      "duration"); // Avro logical type on fixed(12): bytes, stored base64

  private SemanticNames() {}

  /** Whether lakesink knows what this field's values mean. */
  public static boolean understood(SourceType source) {
    String name = source.semanticName();
    if (name == null || composite(source.baseType())) {
      return true;
    }
    return BASE_TYPE_IS_RIGHT.contains(name) || TypeMapping.hasOwnRule(name);
  }

  private static boolean composite(String baseType) {
    return switch (baseType) {
      case "struct", "record", "array", "map", "union" -> true;
      default -> false;
    };
  }
}
