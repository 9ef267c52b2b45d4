package io.lakesink.app;

import io.delta.kernel.engine.Engine;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.Errors;
import io.lakesink.ownership.OwnerGuard;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.util.Optional;

/**
 * Tables the commands that write outside the worker ({@code backfill}, {@code maintain}) open:
 * with the same ownership rule as delivery. A table owned by another catalog entry, or fenced by
 * a hand-off, is refused before anything is written; and the guard stays on the handle, so a
 * hand-off that fences the table while the command runs stops its next commit.
 */
final class OwnedTables {
  private OwnedTables() {}

  /**
   * @param command the command's name, for the message
   * @throws io.lakesink.error.ConfigurationException when the table is not this configuration's to write
   */
  static DeltaTable open(String command, TableStorage storage, Engine engine, Subscription s, Catalogs catalogs) {
    return guarded(command, Pipeline.table(storage, engine, s), s.targetTable(), catalogs.of(s));
  }

  /**
   * The current-state table lakesink keeps for a changelog subscription, when there is one, under
   * the same rule (its owner is the entry {@code <table>} of the subscription's catalog).
   */
  static Optional<DeltaTable> openKept(String command, TableStorage storage, Engine engine, Subscription s, Catalogs catalogs) {
    return Pipeline.keptTable(storage, engine, s)
        .map(kept -> guarded(command, kept, TableNames.sanitize(s.table()), catalogs.of(s)));
  }

  private static DeltaTable guarded(String command, DeltaTable table, String name, TableCatalog catalog) {
    OwnerIdentity identity = catalog.entryName(name).map(e -> new OwnerIdentity(catalog.catalogName(), e)).orElse(null);
    TableOwner.of(table.properties()).ifPresent(o -> {
      boolean handingOff = o.state() == TableOwner.State.HANDING_OFF;
      if (handingOff || identity == null || !o.is(identity)) {
        throw Errors.commandOnTableOwnedElsewhere(command, name, o.describe(), identity == null ? null : identity.target(),
            handingOff);
      }
    });
    table.guard(new OwnerGuard(name, identity));
    return table;
  }
}
