package io.lakesink.merge;

import io.lakesink.error.Errors;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import java.util.List;
import java.util.Set;

/**
 * Which columns each record is merged on: the configured primary key, else the fields of the
 * record's own Kafka key (the key may change with the source table's, so no record speaks for
 * another). A table is keyed once a key is configured or a record carried one; from then on a
 * record without a usable key fails the table instead of being appended next to the row it
 * should replace. Only a table that never had a key is written append-only.
 *
 * <p>"Never had a key" is what this worker has seen since it started: the table itself does not
 * record it. Configuring {@code primary_key} makes the rule hold across restarts.
 */
final class RecordKeys {
  private final String table;
  private final List<String> configured;
  private boolean recordKeySeen;

  RecordKeys(String table, List<String> configured) {
    this.table = table;
    this.configured = List.copyOf(configured);
  }

  /** Whether the batch is appended: no key configured, and no record key seen, this batch included. */
  boolean appendOnly(List<ChangeEvent> events) {
    if (!configured.isEmpty()) {
      return false;
    }
    recordKeySeen |= events.stream().anyMatch(e -> !e.recordKeyFields().isEmpty());
    return !recordKeySeen;
  }

  /**
   * The key columns of one record of a keyed table.
   *
   * @param tableColumns the columns of the table, batch included
   * @throws TableFailureException when the configured key names a column the table lacks, or
   *     the record has no usable key of its own
   */
  List<String> of(ChangeEvent e, Set<String> tableColumns) {
    if (!configured.isEmpty()) {
      // Indexed: called per change, and its iterator was allocated each time (JFR).
      for (int i = 0; i < configured.size(); i++) {
        if (!tableColumns.contains(configured.get(i))) {
          throw Errors.keyColumnMissing(table, configured.get(i), e.position());
        }
      }
      return configured;
    }
    List<String> fields = e.recordKeyFields();
    if (fields.isEmpty() || fields.stream().anyMatch(f -> e.schema().indexOf(f) < 0)) {
      throw Errors.recordWithoutKey(table, fields, e.position());
    }
    return fields;
  }
}
