package io.lakesink.types;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.Map;

/**
 * Source types to Delta types, and source wire values to lakesink values. One table for every
 * format (JSON with a schema, Avro), following the "Column Types" table of docs/types.md.
 */
public final class TypeMapping {
  public static final String DATE = "io.debezium.time.Date";
  public static final String TIMESTAMP = "io.debezium.time.Timestamp";
  public static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
  public static final String NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp";
  public static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
  public static final String TIME = "io.debezium.time.Time";
  public static final String MICRO_TIME = "io.debezium.time.MicroTime";
  public static final String NANO_TIME = "io.debezium.time.NanoTime";
  public static final String CONNECT_DECIMAL = "org.apache.kafka.connect.data.Decimal";
  public static final String CONNECT_DATE = "org.apache.kafka.connect.data.Date";
  public static final String CONNECT_TIMESTAMP = "org.apache.kafka.connect.data.Timestamp";
  public static final String CONNECT_TIME = "org.apache.kafka.connect.data.Time";
  public static final String VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";

  private TypeMapping() {}

  /** The Delta type a column of this source type gets. */
  public static ColumnType columnType(SourceType source) {
    String name = source.semanticName();
    if (name != null) {
      switch (name) {
        case DATE, CONNECT_DATE, "date":
          return ColumnType.DATE;
        case TIMESTAMP, MICRO_TIMESTAMP, NANO_TIMESTAMP, ZONED_TIMESTAMP, CONNECT_TIMESTAMP,
            "timestamp-millis", "timestamp-micros", "timestamp-nanos",
            "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos":
          return ColumnType.TIMESTAMP;
        case TIME, MICRO_TIME, NANO_TIME, CONNECT_TIME, "time-millis", "time-micros":
          return ColumnType.STRING;
        case CONNECT_DECIMAL, "decimal":
          return decimalType(source.parameters());
        case VARIABLE_SCALE_DECIMAL:
          return ColumnType.STRING;
        default:
          break; // an unknown semantic name: the base type decides
      }
    }
    return switch (source.baseType()) {
      case "boolean" -> ColumnType.BOOLEAN;
      case "int8", "int16", "int32", "int" -> ColumnType.INT;
      case "int64", "long" -> ColumnType.BIGINT;
      case "float32", "float" -> ColumnType.FLOAT;
      case "float64", "double" -> ColumnType.DOUBLE;
      default -> ColumnType.STRING; // string, bytes, enum, fixed, struct/record, array, map
    };
  }

  private static ColumnType decimalType(Map<String, String> params) {
    String precision = params.get("connect.decimal.precision");
    if (precision == null) {
      precision = params.get("precision");
    }
    int scale = Integer.parseInt(params.getOrDefault("scale", "0"));
    if (precision == null) {
      return ColumnType.STRING;
    }
    int p = Integer.parseInt(precision);
    return p <= ColumnType.MAX_DECIMAL_PRECISION && p > 0 && scale >= 0 && scale <= p
        ? ColumnType.decimal(p, scale)
        : ColumnType.STRING;
  }

  /**
   * Converts a wire value (Boolean, Integer, Long, Float, Double, String, byte[]/ByteBuffer, or
   * a Map for VariableScaleDecimal) to the value of a column of {@code target}.
   *
   * @throws IllegalArgumentException when the value does not fit the source type
   */
  public static Object convert(SourceType source, ColumnType target, Object wire) {
    if (wire == null) {
      return null;
    }
    String name = source.semanticName() == null ? "" : source.semanticName();
    switch (target.kind()) {
      case BOOLEAN:
        return (Boolean) wire;
      case INT:
        return ((Number) wire).intValue();
      case BIGINT:
        return ((Number) wire).longValue();
      case FLOAT:
        return ((Number) wire).floatValue();
      case DOUBLE:
        return ((Number) wire).doubleValue();
      case DECIMAL:
        return decimal(wire, target.scale());
      case DATE:
        return LocalDate.ofEpochDay(((Number) wire).longValue());
      case TIMESTAMP:
        return timestamp(name, wire);
      case STRING:
        return string(source, name, wire);
      default:
        throw new IllegalStateException("unhandled type " + target);
    }
  }

  private static BigDecimal decimal(Object wire, int scale) {
    if (wire instanceof BigDecimal d) {
      return d.setScale(scale);
    }
    return new BigDecimal(new BigInteger(bytes(wire)), scale);
  }

  private static Instant timestamp(String name, Object wire) {
    if (wire instanceof String s) {
      return OffsetDateTime.parse(s).toInstant();
    }
    long v = ((Number) wire).longValue();
    return switch (name) {
      case MICRO_TIMESTAMP, "timestamp-micros", "local-timestamp-micros" -> micros(v);
      case NANO_TIMESTAMP, "timestamp-nanos", "local-timestamp-nanos" ->
          Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
      default -> Instant.ofEpochMilli(v);
    };
  }

  private static Instant micros(long v) {
    return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000);
  }

  private static String string(SourceType source, String name, Object wire) {
    switch (name) {
      case TIME, CONNECT_TIME, "time-millis":
        return timeOfDay(((Number) wire).longValue() * 1_000_000L);
      case MICRO_TIME, "time-micros":
        return timeOfDay(((Number) wire).longValue() * 1_000L);
      case NANO_TIME:
        return timeOfDay(((Number) wire).longValue());
      case CONNECT_DECIMAL, "decimal":
        // Wider than Delta's 38 digits, or without a precision: the exact value as text.
        return decimal(wire, Integer.parseInt(source.parameters().getOrDefault("scale", "0"))).toPlainString();
      case VARIABLE_SCALE_DECIMAL:
        if (wire instanceof Map<?, ?> m) {
          int scale = ((Number) m.get("scale")).intValue();
          return new BigDecimal(new BigInteger(bytes(m.get("value"))), scale).toPlainString();
        }
        break;
      default:
        break;
    }
    if (wire instanceof byte[] || wire instanceof ByteBuffer) {
      return Base64.getEncoder().encodeToString(bytes(wire));
    }
    return wire.toString();
  }

  private static final long DAY_NANOS = 86_400_000_000_000L;

  /** {@code HH:mm:ss[.fraction]}; PostgreSQL's {@code 24:00:00} is kept as such. */
  private static String timeOfDay(long nanos) {
    if (nanos == DAY_NANOS) {
      return "24:00:00";
    }
    String s = LocalTime.ofNanoOfDay(nanos).toString();
    return s.length() == 5 ? s + ":00" : s; // LocalTime drops ":00" seconds
  }

  private static byte[] bytes(Object wire) {
    if (wire instanceof byte[] b) {
      return b;
    }
    if (wire instanceof ByteBuffer buf) {
      ByteBuffer dup = buf.duplicate();
      byte[] b = new byte[dup.remaining()];
      dup.get(b);
      return b;
    }
    if (wire instanceof String s) {
      return Base64.getDecoder().decode(s); // Kafka Connect's JSON converter base64-encodes bytes
    }
    throw new IllegalArgumentException("expected bytes, got " + wire.getClass().getSimpleName());
  }
}
