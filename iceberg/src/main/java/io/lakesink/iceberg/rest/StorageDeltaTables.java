package io.lakesink.iceberg.rest;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.engine.Engine;
import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.TableStorage;
import java.util.function.Function;

/**
 * The Delta tables of one storage (local or Azure), as an Iceberg REST catalog reads them: one
 * Kernel engine for all of them, and the storage's own file access for what the catalog's client
 * writes.
 *
 * @param modes how lakesink writes the table at a location
 */
public record StorageDeltaTables(TableStorage storage, Engine engine, Function<String, DeliveryMode> modes)
    implements IcebergRestCatalog.DeltaTables {

  public static StorageDeltaTables of(TableStorage storage, Function<String, DeliveryMode> modes) {
    return new StorageDeltaTables(storage, KernelEngine.create(storage), modes);
  }

  @Override
  public DeltaTable at(String location) {
    return new DeltaTable(engine, location);
  }

  @Override
  public DeliveryMode mode(String location) {
    return modes.apply(location);
  }

  @Override
  public FileIO fileIO() {
    return storage.fileIO();
  }
}
