package io.lakesink.backfill;

import io.lakesink.event.ColumnType;
import io.lakesink.types.Casts;
import io.lakesink.types.ValueCoercion;
import java.math.BigDecimal;

/**
 * Text from a source without types (CSV, JSON lines) read in the type of the table column it
 * lands in. Parsing is the column mapping's casts ({@link Casts}: numbers, booleans, dates,
 * timestamps without an offset read as UTC), then the stream's lossless fit into the column
 * ({@link ValueCoercion}), so a value that would not fit is refused, never rounded.
 */
final class TextValues {
  private TextValues() {}

  /** @throws IllegalArgumentException when the text is not a value of {@code type} */
  static Object read(String text, ColumnType type) {
    try {
      return switch (type.kind()) {
        case STRING -> text;
        case BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP -> Casts.cast(text, type);
        case INT -> ValueCoercion.coerce(Casts.cast(text, ColumnType.BIGINT), ColumnType.BIGINT, type);
        case FLOAT -> {
          double d = (Double) Casts.cast(text, ColumnType.DOUBLE);
          float f = (float) d;
          if (Double.isFinite(d) && Double.compare(f, d) != 0 && new BigDecimal(Float.toString(f)).compareTo(new BigDecimal(text.trim())) != 0) {
            throw new IllegalArgumentException("the value does not fit a float column without loss");
          }
          yield f;
        }
        case DECIMAL -> ValueCoercion.coerce(new BigDecimal(text.trim()), ColumnType.STRING, type);
      };
    } catch (ValueCoercion.DoesNotFit e) {
      throw new IllegalArgumentException("the value does not fit a " + type + " column without loss");
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cannot read a String of " + text.length() + " characters as " + type);
    }
  }
}
