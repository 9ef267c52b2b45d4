package io.lakesink.backfill;

import io.lakesink.event.RowSchema;

/**
 * One row read from a backfill source, before it is rendered into the table.
 *
 * @param schema its columns; a typed schema holds values as the stream's decoders produce them
 *     (Boolean, Integer, Long, Float, Double, BigDecimal, LocalDate, Instant, String), an untyped
 *     one only text, which is read in the type of the table column it lands in
 * @param values aligned with {@code schema}
 */
public record SourceRow(RowSchema schema, Object[] values) {}
