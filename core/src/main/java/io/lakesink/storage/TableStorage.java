package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.FileIO;

/**
 * Where Delta tables live. Implementations: {@link LocalStorage} here, Azure Blob / ADLS Gen2 in
 * the storage-azure module. The core only sees this interface.
 */
public interface TableStorage extends AutoCloseable {

  /** The table's root as readers and catalogs see it, e.g. {@code file:/data/lakesink/t}. */
  String tableLocation(String tableName);

  /** Delta Kernel file access for every location {@link #tableLocation} returns. */
  FileIO fileIO();

  /** A short description for logs and status, never containing a secret. */
  String describe();

  @Override
  default void close() {}
}
