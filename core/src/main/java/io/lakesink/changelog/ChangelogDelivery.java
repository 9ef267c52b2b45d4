package io.lakesink.changelog;

import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.CommitOffsets;
import io.lakesink.delta.DeltaTable;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * Changelog delivery: every change appended to {@code <table>_APPEND}, one Delta commit per
 * flush carrying the next offset of every partition it covers. Files are only ever added.
 */
public final class ChangelogDelivery extends BufferedDelivery {
  /** What a changelog table is created with (also by the MERGE → changelog migration's copy). */
  public static final Map<String, String> TABLE_PROPERTIES = Map.of(
      // Changelog files are only ever added; Delta readers and writers enforce it too.
      "delta.appendOnly", "true",
      "delta.checkpointInterval", "10");

  /**
   * @param sibling the table the subscription writes in merge mode, whose offsets a switch to
   *     changelog continues from; may be null
   */
  public ChangelogDelivery(Subscription subscription, DeltaTable table, DeltaTable sibling, DeliveryContext context) {
    super(subscription, table, sibling, context);
  }

  public ChangelogDelivery(Subscription subscription, DeltaTable table, DeliveryContext context) {
    this(subscription, table, null, context);
  }

  /** A changelog write reads nothing buffering changes: it runs on a writer thread. */
  @Override
  protected boolean writesBesidePolling() {
    return true;
  }

  @Override
  protected long write(List<ChangeEvent> events, CommitOffsets offsets) {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    List<Column> existing = table.columns().orElse(List.of());
    ChangelogRows rows = new ChangelogRows(tableName(), existing, events);
    AppendRequest request = rows.request(events, today, offsets, tableProperties());
    DeltaTable.PreparedAppend prepared = table.prepareAppend(request);
    beforeCommit();
    return table.commit(prepared);
  }

  @Override
  protected Map<String, String> tableProperties() {
    return TABLE_PROPERTIES;
  }
}
