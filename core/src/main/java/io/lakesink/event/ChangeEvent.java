package io.lakesink.event;

import io.lakesink.error.SourcePosition;
import java.util.List;

/**
 * One decoded change: what happened to which row, when, and where it was read. This is the
 * boundary between the source side (Kafka, decoders) and the delivery side (Delta tables).
 *
 * @param position topic, partition and offset it was read at
 * @param op the operation, or null when the record did not say (flattened records without
 *     {@code __op})
 * @param tsMs when the change happened at the source (epoch ms), or null when unknown
 * @param schema the columns of {@code values}
 * @param values the row image ({@code after}; {@code before} or at least the key for deletes),
 *     aligned with {@code schema}
 * @param recordKeyFields field names of the Kafka record key, the primary key when none is
 *     configured
 * @param sizeBytes the encoded size of the record, used for byte-based flushing
 * @param snapshotEnd whether the source marked this event the last of an initial snapshot
 *     ({@code source.snapshot = last})
 */
public record ChangeEvent(
    SourcePosition position,
    Operation op,
    Long tsMs,
    RowSchema schema,
    Object[] values,
    List<String> recordKeyFields,
    int sizeBytes,
    boolean snapshotEnd) {

  public ChangeEvent(
      SourcePosition position, Operation op, Long tsMs, RowSchema schema, Object[] values, List<String> recordKeyFields, int sizeBytes) {
    this(position, op, tsMs, schema, values, recordKeyFields, sizeBytes, false);
  }

  /** The columns of a truncate, which has no row image. */
  private static final RowSchema NO_COLUMNS = new RowSchema(List.of(), true);

  /**
   * A truncate: no row, no key; it ranks ({@code tsMs} and its position) like any change, and
   * removes every row of the table that ranks below it.
   */
  public static ChangeEvent truncate(SourcePosition position, Long tsMs, int sizeBytes) {
    return new ChangeEvent(position, Operation.TRUNCATE, tsMs, NO_COLUMNS, new Object[0], List.of(), sizeBytes);
  }

  public boolean isTruncate() {
    return op == Operation.TRUNCATE;
  }

  /** This event, marked as the last of an initial snapshot. */
  public ChangeEvent asSnapshotEnd() {
    return new ChangeEvent(position, op, tsMs, schema, values, recordKeyFields, sizeBytes, true);
  }

  public boolean isDelete() {
    return op == Operation.DELETE;
  }

  /** The value of a column, or null when the row has no such column. */
  public Object value(String column) {
    int i = schema.indexOf(column);
    return i < 0 ? null : values[i];
  }
}
