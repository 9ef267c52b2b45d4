package io.lakesink.merge;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A key value as the table stores it, so a batch key equals the same key read back: Delta keeps
 * timestamps in microseconds (a nanosecond source time loses its last digits), and a decimal
 * column holds its own scale ({@code 1.5} is stored as {@code 1.50}, and {@link BigDecimal#equals}
 * tells them apart). Other types are stored as they are: time columns are text already, at the
 * width of their source's unit (docs/types.md, Times).
 */
final class StorageForm {
  private StorageForm() {}

  static Object of(Object value, ColumnType type) {
    if (value instanceof Instant t && type.kind() == ColumnType.Kind.TIMESTAMP) {
      return t.truncatedTo(ChronoUnit.MICROS);
    }
    if (value instanceof BigDecimal d && type.kind() == ColumnType.Kind.DECIMAL && d.scale() != type.scale()) {
      try {
        return d.setScale(type.scale(), RoundingMode.UNNECESSARY);
      } catch (ArithmeticException moreDigitsThanTheColumn) {
        return d; // cannot be stored as such either; left for the write to refuse
      }
    }
    return value;
  }
}
