package io.lakesink.migration;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.config.TableNames;
import io.lakesink.error.Errors;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A catalog whose current-state builds first finish the MERGE → changelog migration of the
 * changelogs that have one under way: the RENAME and the view then run on the catalog thread
 * with the view's own retries ({@link io.lakesink.catalog.RetrySchedule}), and a failed RENAME
 * degrades the table as a failed build does, while its data keeps flowing.
 */
public final class MigratingCatalog implements TableCatalog {
  private final TableCatalog catalog;
  /** By changelog table name; filled while the worker starts, read on the catalog thread. */
  private final Map<String, ChangelogMigration> migrations = new ConcurrentHashMap<>();

  public MigratingCatalog(TableCatalog catalog) {
    this.catalog = catalog;
  }

  /** Lets the migration's RENAME and view steps run with this changelog's builds. */
  public void add(ChangelogMigration migration) {
    migrations.put(TableNames.changelog(migration.table()), migration);
  }

  @Override
  public void register(CatalogTable table) {
    catalog.register(table);
  }

  @Override
  public CurrentStateResult buildCurrentState(CatalogTable changelog) {
    ChangelogMigration migration = migrations.get(changelog.name());
    if (migration == null) {
      return catalog.buildCurrentState(changelog);
    }
    try {
      return migration.advance(catalog, changelog);
    } catch (RuntimeException e) {
      // The journal could not be read or written (storage trouble): a failed build, retried on
      // the schedule; the step that took effect is found done at the next attempt.
      return new CurrentStateResult.Failed(Errors.migrationStepNotRecorded(migration.table(), e.getMessage()), false);
    }
  }

  @Override
  public CurrentStateResult moveFormerMergeTable(CatalogTable changelog) {
    return catalog.moveFormerMergeTable(changelog);
  }

  @Override
  public String describe() {
    return catalog.describe();
  }

  @Override
  public void close() {
    catalog.close();
  }
}
