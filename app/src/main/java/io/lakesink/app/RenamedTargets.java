package io.lakesink.app;

import io.delta.kernel.engine.Engine;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.config.Subscription;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.Errors;
import io.lakesink.error.LakesinkException;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a worker starts: a subscription whose configured catalog entry differs from the one its
 * table records as owner in the same catalog was renamed (catalog.catalog, catalog.schema or the
 * table). Registering the new name would leave two entries owning one table, so the worker
 * refuses to start (a configuration error) with the hand-off that moves the entry instead.
 */
final class RenamedTargets {
  private static final Logger log = LoggerFactory.getLogger(RenamedTargets.class);
  private RenamedTargets() {}

  /** @throws io.lakesink.error.ConfigurationException for the first renamed subscription */
  static void refuse(WorkerConfig config, TableStorage storage, Catalogs catalogs, Path configFile) {
    Engine engine = KernelEngine.create(storage);
    for (Subscription s : config.subscriptions()) {
      TableCatalog catalog = catalogs.of(s);
      Optional<String> entry = catalog.entryName(s.targetTable());
      if (entry.isEmpty()) {
        continue;
      }
      OwnerIdentity configured = new OwnerIdentity(catalog.catalogName(), entry.get());
      Optional<TableOwner> owner;
      try {
        owner = TableOwner.of(Pipeline.table(storage, engine, s).properties());
      } catch (LakesinkException e) {
        throw e;
      } catch (RuntimeException e) {
        // Storage unreachable at start: the worker starts and retries as it always did; its
        // first registration checks the owner again and stops the table if it was renamed.
        log.warn("Cannot read the owner of {} yet ({}); it is checked again before its first registration", s.targetTable(),
            e.toString());
        continue;
      }
      owner.filter(o -> o.renamedTo(configured)).ifPresent(o -> {
        throw Errors.renamedTarget(s.table(), s.targetTable(), o.describe(), configured.target(), configFile.toString());
      });
    }
  }
}
