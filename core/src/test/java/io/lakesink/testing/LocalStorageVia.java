package io.lakesink.testing;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;

/** Local storage's locations, read and written through another FileIO (one that counts, or Hadoop's). */
public final class LocalStorageVia implements TableStorage {
  private final LocalStorage local;
  private final FileIO fileIO;
  private final String description;

  public LocalStorageVia(LocalStorage local, FileIO fileIO, String description) {
    this.local = local;
    this.fileIO = fileIO;
    this.description = description;
  }

  @Override
  public String tableLocation(String tableName) {
    return local.tableLocation(tableName);
  }

  @Override
  public FileIO fileIO() {
    return fileIO;
  }

  @Override
  public String describe() {
    return description;
  }
}
