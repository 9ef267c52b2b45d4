package io.lakesink.types;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
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
          break; // a name whose values are the base type's (SemanticNames): the base type decides
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

  /** Whether the name has a rule of its own here (the type it maps to is not its base type's). */
  static boolean hasOwnRule(String name) {
    return switch (name) {
      case DATE, CONNECT_DATE, "date", TIMESTAMP, MICRO_TIMESTAMP, NANO_TIMESTAMP, ZONED_TIMESTAMP, CONNECT_TIMESTAMP,
          "timestamp-millis", "timestamp-micros", "timestamp-nanos",
          "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos",
          TIME, MICRO_TIME, NANO_TIME, CONNECT_TIME, "time-millis", "time-micros",
          CONNECT_DECIMAL, "decimal", VARIABLE_SCALE_DECIMAL -> true;
      default -> false;
    };
  }

  private static ColumnType decimalType(Map<String, String> params) {
    String precision = params.get("connect.decimal.precision");
    if (precision == null) {
      precision = params.get("precision");
    }
    Integer p = precision == null ? null : intOrNull(precision);
    Integer scale = intOrNull(params.getOrDefault("scale", "0"));
    // Without a usable precision and scale, the column is text; converting a value then needs
    // the scale, so an unreadable one refuses the record rather than the schema.
    return p != null && scale != null && p <= ColumnType.MAX_DECIMAL_PRECISION && p > 0 && scale >= 0 && scale <= p
        ? ColumnType.decimal(p, scale)
        : ColumnType.STRING;
  }

  private static Integer intOrNull(String s) {
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The earliest and latest instants Delta stores: microseconds since 1970 in a signed long. */
  private static final Instant MIN_TIMESTAMP = Instant.ofEpochSecond(Long.MIN_VALUE / 1_000_000L + 1);
  private static final Instant MAX_TIMESTAMP = Instant.ofEpochSecond(Long.MAX_VALUE / 1_000_000L - 1);

  /** Whether Delta can store the instant (as microseconds since 1970 in 64 bits). */
  public static boolean storable(Instant t) {
    return !t.isBefore(MIN_TIMESTAMP) && !t.isAfter(MAX_TIMESTAMP);
  }

  /** Whether Delta can store the date (as days since 1970 in 32 bits). */
  public static boolean storable(LocalDate d) {
    long day = d.toEpochDay();
    return day == (int) day;
  }

  /**
   * Converts a wire value (Boolean, Integer, Long, Float, Double, String, BigDecimal,
   * byte[]/ByteBuffer, or a Map with {@code scale} and {@code value} for VariableScaleDecimal) to
   * the value of a column of {@code target}.
   *
   * @throws DecimalOutOfBoundsException when a decimal is too wide to render or rescale safely
   * @throws UnconvertibleValueException when the value does not fit the source type, or Delta
   *     cannot store it (a timestamp beyond ±292,000 years, …)
   */
  public static Object convert(SourceType source, ColumnType target, Object wire) throws UnconvertibleValueException {
    if (wire == null) {
      return null;
    }
    String name = source.semanticName() == null ? "" : source.semanticName();
    try {
      return switch (target.kind()) {
        case BOOLEAN -> {
          if (!(wire instanceof Boolean b)) {
            throw mismatch("a boolean", wire);
          }
          yield b;
        }
        case INT -> integral(wire).intValue();
        case BIGINT -> integral(wire).longValue();
        case FLOAT -> number(wire).floatValue();
        case DOUBLE -> number(wire).doubleValue();
        case DECIMAL -> decimal(wire, target);
        case DATE -> date(integral(wire).longValue());
        case TIMESTAMP -> timestamp(name, wire);
        case STRING -> string(source, name, wire);
      };
    } catch (DateTimeException | ArithmeticException e) {
      throw new UnconvertibleValueException(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), e);
    }
  }

  private static UnconvertibleValueException mismatch(String expected, Object wire) {
    return new UnconvertibleValueException("expected " + expected + ", got " + wire.getClass().getSimpleName());
  }

  private static Number number(Object wire) throws UnconvertibleValueException {
    if (wire instanceof Number n) {
      return n;
    }
    throw mismatch("a number", wire);
  }

  private static Number integral(Object wire) throws UnconvertibleValueException {
    if (wire instanceof Integer || wire instanceof Long || wire instanceof Short || wire instanceof Byte) {
      return (Number) wire;
    }
    throw mismatch("an integer", wire);
  }

  private static LocalDate date(long epochDay) throws UnconvertibleValueException {
    if (epochDay != (int) epochDay) {
      throw new UnconvertibleValueException("day " + epochDay + " since 1970 is beyond the dates Delta stores");
    }
    return LocalDate.ofEpochDay(epochDay);
  }

  /** A decimal for a decimal(p, s) column: rescaled exactly to s, at most p digits. */
  private static BigDecimal decimal(Object wire, ColumnType target) throws UnconvertibleValueException {
    BigDecimal d = wire instanceof BigDecimal b
        ? Decimals.rescale(b, target.scale()) // a JSON number (decimal.format=NUMERIC)
        : Decimals.of(new BigInteger(bytes(wire)), target.scale());
    if (d.precision() > target.precision()) {
      throw new UnconvertibleValueException(
          "a decimal of " + d.precision() + " digits does not fit the schema's " + target.sqlName());
    }
    return d;
  }

  /** A decimal at the scale its schema gives, for a string column (too wide for Delta's decimal). */
  private static BigDecimal decimal(Object wire, String scaleParameter) throws UnconvertibleValueException {
    Integer scale = intOrNull(scaleParameter);
    if (scale == null) {
      throw new UnconvertibleValueException("the decimal's schema has scale '" + scaleParameter + "', not an integer");
    }
    return wire instanceof BigDecimal b ? Decimals.rescale(b, scale) : Decimals.of(new BigInteger(bytes(wire)), scale);
  }

  private static Instant timestamp(String name, Object wire) throws UnconvertibleValueException {
    Instant t;
    if (wire instanceof String s) {
      try {
        t = OffsetDateTime.parse(s).toInstant();
      } catch (DateTimeParseException e) {
        throw new UnconvertibleValueException("expected an ISO-8601 timestamp with an offset", e);
      }
    } else {
      long v = integral(wire).longValue();
      t = switch (name) {
        case MICRO_TIMESTAMP, "timestamp-micros", "local-timestamp-micros" -> micros(v);
        case NANO_TIMESTAMP, "timestamp-nanos", "local-timestamp-nanos" ->
            Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
        default -> Instant.ofEpochMilli(v);
      };
    }
    if (!storable(t)) {
      throw new UnconvertibleValueException("the timestamp is beyond the range Delta stores (about ±292,000 years)");
    }
    return t;
  }

  private static Instant micros(long v) {
    return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000);
  }

  private static String string(SourceType source, String name, Object wire) throws UnconvertibleValueException {
    switch (name) {
      case TIME, CONNECT_TIME, "time-millis":
        return TimeText.of(integral(wire).longValue(), 3);
      case MICRO_TIME, "time-micros":
        return TimeText.of(integral(wire).longValue(), 6);
      case NANO_TIME:
        return TimeText.of(integral(wire).longValue(), 9);
      case CONNECT_DECIMAL, "decimal":
        // Wider than Delta's 38 digits, or without a precision: the exact value as text.
        return decimal(wire, source.parameters().getOrDefault("scale", "0")).toPlainString();
      case VARIABLE_SCALE_DECIMAL:
        if (wire instanceof Map<?, ?> m) {
          if (!(m.get("scale") instanceof Integer scale) || m.get("value") == null) {
            throw new UnconvertibleValueException("expected a VariableScaleDecimal with an int 'scale' and bytes 'value'");
          }
          return Decimals.of(new BigInteger(bytes(m.get("value"))), scale).toPlainString();
        }
        break;
      default:
        break;
    }
    if (wire instanceof byte[] || wire instanceof ByteBuffer) {
      return Base64.getEncoder().encodeToString(bytes(wire));
    }
    if (wire instanceof BigDecimal d) {
      return Decimals.plain(d);
    }
    return wire.toString();
  }

  private static byte[] bytes(Object wire) throws UnconvertibleValueException {
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
      try {
        return Base64.getDecoder().decode(s); // Kafka Connect's JSON converter base64-encodes bytes
      } catch (IllegalArgumentException e) {
        throw new UnconvertibleValueException("expected base64-encoded bytes", e);
      }
    }
    throw mismatch("bytes", wire);
  }
}
