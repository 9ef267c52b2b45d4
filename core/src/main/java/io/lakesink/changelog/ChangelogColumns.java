package io.lakesink.changelog;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.List;
import java.util.Set;

/** The metadata columns every changelog row carries after the source columns. */
public final class ChangelogColumns {
  private ChangelogColumns() {}

  public static final String OP = "__op";
  public static final String DELETED = "__deleted";
  public static final String TS_MS = "__ts_ms";
  public static final String PARTITION = "__partition";
  public static final String OFFSET = "__offset";
  public static final String INGEST_DATE = "__ingest_date";
  /**
   * Not a changelog column: what a MERGE table or a kept current-state table stores beside a
   * row's {@code __ts_ms}, the rank time of the change that wrote it ({@link
   * io.lakesink.view.RankTimes}), which its key's earlier changes in its partition may have raised
   * above its own time. Null (a row written before the column existed) reads as {@code __ts_ms}.
   */
  public static final String RANK_TS_MS = "__rank_ts_ms";

  public static final List<Column> METADATA =
      List.of(
          new Column(OP, ColumnType.STRING),
          new Column(DELETED, ColumnType.BOOLEAN),
          new Column(TS_MS, ColumnType.BIGINT),
          new Column(PARTITION, ColumnType.INT),
          new Column(OFFSET, ColumnType.BIGINT),
          new Column(INGEST_DATE, ColumnType.DATE));

  /** Every metadata column lakesink writes (into a changelog, a MERGE or a kept table): never a source column. */
  public static final Set<String> NAMES = Set.of(OP, DELETED, TS_MS, PARTITION, OFFSET, INGEST_DATE, RANK_TS_MS);

  /** The table is partitioned by the UTC day its rows were written. */
  public static final List<String> PARTITION_COLUMNS = List.of(INGEST_DATE);
}
