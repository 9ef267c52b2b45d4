package io.lakesink.types;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Fits a value into an existing column of another type, when that loses nothing. Columns are
 * never retyped, so a source whose type changes keeps flowing as long as its values fit.
 */
public final class ValueCoercion {
  private ValueCoercion() {}

  /** Thrown when the value cannot be stored in the column without loss. */
  public static final class DoesNotFit extends Exception {
    public DoesNotFit() {
      super(null, null, false, false);
    }
  }

  private static final DoesNotFit DOES_NOT_FIT = new DoesNotFit();

  public static Object coerce(Object value, ColumnType from, ColumnType to) throws DoesNotFit {
    if (value == null || from.equals(to)) {
      return value;
    }
    switch (to.kind()) {
      case STRING:
        if (value instanceof BigDecimal d && !Decimals.withinBounds(d)) break; // its plain text is too long
        return render(value);
      case BIGINT:
        if (value instanceof Integer i) return i.longValue();
        if (value instanceof BigDecimal d) return exact(() -> d.longValueExact());
        break;
      case INT:
        if (value instanceof Long l && l == l.intValue()) return l.intValue();
        if (value instanceof BigDecimal d) return exact(() -> d.intValueExact());
        break;
      case DOUBLE:
        if (value instanceof Float f) return f.doubleValue();
        if (value instanceof Integer i) return i.doubleValue();
        break;
      case DECIMAL:
        BigDecimal d = null;
        if (value instanceof BigDecimal b) d = b;
        if (value instanceof Integer i) d = BigDecimal.valueOf(i);
        if (value instanceof Long l) d = BigDecimal.valueOf(l);
        if (d != null && Decimals.withinBounds(d)) { // otherwise setScale could allocate gigabytes
          BigDecimal unscaled = d;
          BigDecimal scaled = exact(() -> unscaled.setScale(to.scale()));
          if (scaled.precision() <= to.precision()) return scaled;
        }
        break;
      case TIMESTAMP:
        if (value instanceof LocalDate date) {
          Instant t = date.atStartOfDay().toInstant(java.time.ZoneOffset.UTC);
          if (TypeMapping.storable(t)) return t;
        }
        break;
      default:
        break;
    }
    throw DOES_NOT_FIT;
  }

  /**
   * How a typed value reads in a string column. A decimal beyond {@link Decimals#MAX_DIGITS} reads
   * in scientific notation: its plain text would take gigabytes (callers refuse such values first).
   */
  public static String render(Object value) {
    if (value instanceof BigDecimal d) return Decimals.withinBounds(d) ? d.toPlainString() : d.toString();
    if (value instanceof Instant t) return t.toString();
    return value.toString();
  }

  private interface Exact<T> {
    T get() throws ArithmeticException;
  }

  private static <T> T exact(Exact<T> f) throws DoesNotFit {
    try {
      return f.get();
    } catch (ArithmeticException e) {
      throw DOES_NOT_FIT;
    }
  }
}
