package io.lakesink.ownership;

import io.lakesink.storage.StateFiles;
import io.lakesink.storage.TableStorage;
import java.util.Optional;

/**
 * Hand-off journals as small JSON files at {@code <prefix>/_lakesink/handoff/<table>.json}, beside
 * the tables in the same storage (as the quarantine records): where a crashed hand-off resumes.
 * Delta readers and vacuum ignore names starting with {@code _}.
 */
public final class HandOffJournal {
  private final StateFiles<HandOffRecord> files;

  public HandOffJournal(TableStorage storage) {
    this.files = new StateFiles<>(storage, "handoff", HandOffRecord.class, "hand-off journal");
  }

  public String location(String table) {
    return files.location(table);
  }

  public Optional<HandOffRecord> load(String table) {
    return files.load(table);
  }

  /** Replaces the table's journal atomically: a reader sees the previous step or this one. */
  public void save(HandOffRecord record) {
    files.save(record.table(), record);
  }
}
