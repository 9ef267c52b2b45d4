package io.lakesink.iceberg;

import io.lakesink.delta.TableFile;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A file's Delta statistics as Iceberg metrics, so Iceberg engines skip files by value as Delta
 * readers do. Only bounds Delta keeps exactly are carried: integers and dates. Delta truncates
 * string bounds (a truncated maximum is below the real one), keeps timestamps to the
 * millisecond, and its JSON carries decimals and doubles as approximate numbers; a wrong bound
 * would make an engine skip a file holding matching rows, so those columns get none.
 */
final class FileBounds {
  private FileBounds() {}

  static Metrics metrics(Schema schema, TableFile file, long rows) {
    Map<Integer, ByteBuffer> lower = new HashMap<>();
    Map<Integer, ByteBuffer> upper = new HashMap<>();
    for (Types.NestedField field : schema.columns()) {
      Object min = exact(field.type(), file.min().get(field.name()));
      Object max = exact(field.type(), file.max().get(field.name()));
      if (min != null && max != null) {
        lower.put(field.fieldId(), Conversions.toByteBuffer(field.type(), min));
        upper.put(field.fieldId(), Conversions.toByteBuffer(field.type(), max));
      }
    }
    return new Metrics(rows, null, null, null, null, lower, upper);
  }

  /** The statistic as Iceberg's value of {@code type}, or null when it is not exact. */
  private static Object exact(Type type, Object value) {
    try {
      return switch (type.typeId()) {
        case INTEGER -> value instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? (Object) l.intValue() : null;
        case LONG -> value instanceof Long l ? l : null;
        case DATE -> value instanceof String s ? (Object) (int) LocalDate.parse(s).toEpochDay() : null;
        default -> null;
      };
    } catch (DateTimeParseException e) {
      return null; // unreadable statistics only cost pruning
    }
  }
}
