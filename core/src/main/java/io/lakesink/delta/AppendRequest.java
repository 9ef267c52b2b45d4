package io.lakesink.delta;

import io.lakesink.event.Column;
import java.util.List;
import java.util.Map;

/**
 * Rows to append to a Delta table in one commit, with the source positions they cover.
 *
 * @param columns the table's full schema as the rows need it; new columns (at the end) are
 *     added to the table in the same commit
 * @param partitionColumns partition columns, used when the table is created
 * @param partitionValues one value per partition column: every row of a request shares them
 * @param rows values aligned with {@code columns}; rows may be shorter (missing tail is null)
 * @param offsets the source offsets the rows cover, committed atomically with them
 * @param tableProperties Delta table properties, used when the table is created
 */
public record AppendRequest(
    List<Column> columns,
    List<String> partitionColumns,
    Map<String, Object> partitionValues,
    List<Object[]> rows,
    CommitOffsets offsets,
    Map<String, String> tableProperties) {}
