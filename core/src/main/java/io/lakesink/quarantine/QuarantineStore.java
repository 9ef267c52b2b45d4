package io.lakesink.quarantine;

import io.lakesink.storage.StateFiles;
import io.lakesink.storage.TableStorage;
import java.util.List;
import java.util.Optional;

/**
 * Quarantine records as small JSON files at {@code <prefix>/_lakesink/quarantine/<table>.json},
 * beside the tables in the same storage.
 */
public final class QuarantineStore {
  private final StateFiles<QuarantineRecord> files;

  public QuarantineStore(TableStorage storage) {
    this.files = new StateFiles<>(storage, "quarantine", QuarantineRecord.class, "quarantine record");
  }

  public String location(String table) {
    return files.location(table);
  }

  public Optional<QuarantineRecord> load(String table) {
    return files.load(table);
  }

  public void save(QuarantineRecord record) {
    files.save(record.table(), record);
  }

  /** Deletes the record; returns whether there was one. */
  public boolean release(String table) {
    return files.delete(table);
  }

  public List<QuarantineRecord> list() {
    return files.list();
  }
}
