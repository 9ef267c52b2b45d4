package io.lakesink.backfill;

import io.lakesink.error.Errors;
import io.lakesink.event.RowSchema;

/**
 * One row read from a backfill source, before it is rendered into the table.
 *
 * @param schema its columns; a typed schema holds values as the stream's decoders produce them
 *     (Boolean, Integer, Long, Float, Double, BigDecimal, LocalDate, Instant, String), an untyped
 *     one only text, which is read in the type of the table column it lands in
 * @param values aligned with {@code schema}
 * @param origin where the row is in its source, for messages; null when the source cannot tell
 */
public record SourceRow(RowSchema schema, Object[] values, Origin origin) {
  public SourceRow(RowSchema schema, Object[] values) {
    this(schema, values, null);
  }

  /**
   * A row's place, as a user finds it again: a file's 1-based line (CSV, JSON lines: where the
   * row starts) or 1-based row (Parquet, a query's result, which have no lines).
   *
   * @param source a file's path, or what a query reads
   * @param line whether {@code number} is a line of a text file rather than a row
   */
  public record Origin(String source, boolean line, long number) {
    @Override
    public String toString() {
      return Errors.backfillRowPlace(source, line, number);
    }
  }
}
