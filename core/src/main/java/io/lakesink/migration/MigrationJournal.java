package io.lakesink.migration;

import io.lakesink.storage.StateFiles;
import io.lakesink.storage.TableStorage;
import java.time.Instant;
import java.util.Optional;

/**
 * The step each subscription's MERGE → changelog migration reached, as small JSON files at
 * {@code <prefix>/_lakesink/migration/<table>.json} beside the tables (where quarantine records
 * live too): the migration's state belongs with the data it describes, so any worker that picks
 * the subscription up resumes it.
 */
public final class MigrationJournal {
  /**
   * @param table the subscription's (sanitized) table name
   * @param step the last step that took effect
   * @param mergeVersion the MERGE table's version whose rows were copied
   * @param at when the step was recorded
   */
  public record Entry(String table, MigrationStep step, long mergeVersion, Instant at) {}

  private final StateFiles<Entry> files;

  public MigrationJournal(TableStorage storage) {
    this.files = new StateFiles<>(storage, "migration", Entry.class, "migration journal");
  }

  public String location(String table) {
    return files.location(table);
  }

  public Optional<Entry> load(String table) {
    return files.load(table);
  }

  public void save(Entry entry) {
    files.save(entry.table(), entry);
  }
}
