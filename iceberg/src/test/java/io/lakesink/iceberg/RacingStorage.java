package io.lakesink.iceberg;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.TableStorage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A storage that runs a test's action once, just before a sync writes the metadata version it is
 * about to commit: another process's sync then commits first, at the exact point where two syncs
 * race, without timing.
 */
final class RacingStorage implements TableStorage {
  private final TableStorage storage;
  private final AtomicReference<Runnable> beforeMetadataWrite = new AtomicReference<>();
  private volatile boolean ran;

  RacingStorage(TableStorage storage) {
    this.storage = storage;
  }

  void beforeMetadataWrite(Runnable action) {
    beforeMetadataWrite.set(action);
  }

  boolean raceRan() {
    return ran;
  }

  @Override
  public String tableLocation(String tableName) {
    return storage.tableLocation(tableName);
  }

  @Override
  public FileIO fileIO() {
    return new ForwardingFileIO(storage.fileIO()) {
      @Override
      public OutputFile newOutputFile(String path) {
        if (path.matches(".*/metadata/v\\d+\\.metadata\\.json")) {
          Runnable action = beforeMetadataWrite.getAndSet(null);
          if (action != null) {
            action.run();
            ran = true;
          }
        }
        return super.newOutputFile(path);
      }
    };
  }

  @Override
  public String describe() {
    return "racing " + storage.describe();
  }
}
