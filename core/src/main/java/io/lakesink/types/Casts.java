package io.lakesink.types;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The casts of a column mapping. Unlike {@link ValueCoercion}, a cast converts on purpose (text
 * is parsed, a timestamp keeps its day), but it never invents a value: what cannot be converted
 * is refused.
 */
public final class Casts {
  private Casts() {}

  /** @throws IllegalArgumentException when the value cannot be converted */
  public static Object cast(Object value, ColumnType to) {
    if (value == null) {
      return null;
    }
    try {
      return switch (to.kind()) {
        case STRING -> toText(value);
        case BIGINT -> toLong(value);
        case DOUBLE -> toDouble(value);
        case BOOLEAN -> toBoolean(value);
        case DATE -> toDate(value);
        case TIMESTAMP -> toTimestamp(value);
        default -> throw new IllegalArgumentException("no cast to " + to);
      };
    } catch (ArithmeticException | NumberFormatException | java.time.DateTimeException e) {
      throw new IllegalArgumentException("cannot cast " + describe(value) + " to " + to, e);
    }
  }

  private static String toText(Object v) {
    if (v instanceof BigDecimal d && !Decimals.withinBounds(d)) {
      throw new IllegalArgumentException(
          "cannot cast a decimal of more than " + Decimals.MAX_DIGITS + " digits in plain notation to string");
    }
    return ValueCoercion.render(v);
  }

  /**
   * Text read as a number: refused beyond MAX_DIGITS characters, as parsing a longer one costs
   * time quadratic in its length and no bigint has that many digits.
   */
  private static BigDecimal number(String s) {
    return new BigDecimal(numeral(s));
  }

  private static String numeral(String s) {
    String t = s.trim();
    if (t.length() > Decimals.MAX_DIGITS) {
      throw new IllegalArgumentException("cannot cast a String of " + t.length() + " characters to a number");
    }
    return t;
  }

  private static long toLong(Object v) {
    if (v instanceof Integer i) return i;
    if (v instanceof Long l) return l;
    if (v instanceof BigDecimal d) return d.longValueExact();
    if (v instanceof Float || v instanceof Double) return new BigDecimal(v.toString()).longValueExact();
    if (v instanceof String s) return number(s).longValueExact(); // cheap for 1e999999999: refused by its digit count
    throw new IllegalArgumentException("cannot cast " + describe(v) + " to bigint");
  }

  private static double toDouble(Object v) {
    if (v instanceof Number n) return n.doubleValue();
    if (v instanceof String s) return Double.parseDouble(numeral(s)); // keeps NaN, Infinity, 1.5f

    throw new IllegalArgumentException("cannot cast " + describe(v) + " to double");
  }

  private static boolean toBoolean(Object v) {
    if (v instanceof Boolean b) return b;
    String s = v.toString().trim().toLowerCase(Locale.ROOT);
    return switch (s) {
      case "true", "t", "1", "yes", "y" -> true;
      case "false", "f", "0", "no", "n" -> false;
      default -> throw new IllegalArgumentException("cannot cast " + describe(v) + " to boolean");
    };
  }

  private static LocalDate toDate(Object v) {
    LocalDate d = parseDate(v);
    if (!TypeMapping.storable(d)) {
      throw new IllegalArgumentException("cannot cast " + describe(v) + " to date: beyond the dates Delta stores");
    }
    return d;
  }

  private static LocalDate parseDate(Object v) {
    if (v instanceof LocalDate d) return d;
    if (v instanceof Instant t) return LocalDate.ofInstant(t, ZoneOffset.UTC);
    if (v instanceof String s) return LocalDate.parse(s.trim().length() > 10 ? s.trim().substring(0, 10) : s.trim());
    throw new IllegalArgumentException("cannot cast " + describe(v) + " to date");
  }

  private static Instant toTimestamp(Object v) {
    Instant t = parseTimestamp(v);
    if (!TypeMapping.storable(t)) {
      throw new IllegalArgumentException("cannot cast " + describe(v) + " to timestamp: beyond the range Delta stores");
    }
    return t;
  }

  private static Instant parseTimestamp(Object v) {
    if (v instanceof Instant t) return t;
    if (v instanceof LocalDate d) return d.atStartOfDay().toInstant(ZoneOffset.UTC);
    if (v instanceof Long || v instanceof Integer) return Instant.ofEpochMilli(((Number) v).longValue());
    if (v instanceof String s) {
      String t = s.trim().replace(' ', 'T');
      try {
        return OffsetDateTime.parse(t).toInstant();
      } catch (DateTimeParseException noOffset) {
        return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC); // no zone given: read as UTC
      }
    }
    throw new IllegalArgumentException("cannot cast " + describe(v) + " to timestamp");
  }

  /** The value's type and size, never the value: messages reach logs and /status. */
  private static String describe(Object v) {
    if (v instanceof CharSequence s) {
      return "a String of " + s.length() + " characters";
    }
    return "a " + v.getClass().getSimpleName();
  }
}
