package io.lakesink.delivery.modes;

import io.delta.kernel.engine.Engine;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.Subscription;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delta.DeltaTable;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.storage.TableStorage;

/**
 * The delivery of a subscription's mode, shared by the standalone worker and the Kafka Connect
 * task so both write the same tables the same way.
 */
public final class Deliveries {
  private Deliveries() {}

  /**
   * Each mode reads offsets from the other mode's table too, so switching modes continues
   * exactly where the other stopped.
   */
  public static BufferedDelivery of(
      Subscription s, TableStorage storage, Engine engine, DeliveryContext context, MergeSettings merge) {
    return of(s, storage, engine, context, merge, false);
  }

  /**
   * @param keepsTable whether a changelog subscription also keeps its current-state table
   *     ({@code current_state.object: table}) at the path a MERGE table would have
   */
  public static BufferedDelivery of(
      Subscription s, TableStorage storage, Engine engine, DeliveryContext context, MergeSettings merge, boolean keepsTable) {
    String name = TableNames.sanitize(s.table());
    DeltaTable changelog = new DeltaTable(engine, storage.tableLocation(TableNames.changelog(name)));
    DeltaTable merged = new DeltaTable(engine, storage.tableLocation(name));
    if (keepsTable && s.mode() == io.lakesink.config.DeliveryMode.CHANGELOG && s.primaryKey().isEmpty()) {
      // The view can rank on each record's key; a kept table needs one key known before any record.
      // Refused as the kept table's quarantine record: the changelog is delivered all the same.
      return ChangelogDelivery.refusingKeptTable(s, changelog, merged, context, name,
          io.lakesink.error.Errors.currentStateTableWithoutKey(name));
    }
    return switch (s.mode()) {
      case CHANGELOG -> new ChangelogDelivery(s, changelog, merged, context, keepsTable
          ? new CurrentStateTable(name, new DeltaTable(engine, changelog.location()), new DeltaTable(engine, merged.location()),
              s.primaryKey(), CurrentStateTable.Hook.NONE, context.clock())
          : null);
      case MERGE -> new MergeDelivery(s, merged, changelog, context, merge);
    };
  }
}
