package io.lakesink.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The files an Iceberg table's current snapshot lists: data files by location, and the
 * position-delete files this module wrote by their key ({@link PositionDeletes#key}).
 */
record IcebergFiles(Map<String, DataFile> data, Map<String, DeleteFile> deletes) {

  static IcebergFiles of(Table table) {
    Map<String, DataFile> data = new HashMap<>();
    Map<String, DeleteFile> deletes = new HashMap<>();
    if (table.currentSnapshot() == null) {
      return new IcebergFiles(data, deletes);
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        data.put(task.file().location(), task.file().copy());
        for (DeleteFile delete : task.deletes()) {
          String key = PositionDeletes.keyOf(delete);
          if (key != null) { // delete files of other writers are left as they are
            deletes.put(key, delete.copy());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("listing the Iceberg files of " + table.location(), e);
    }
    return new IcebergFiles(data, deletes);
  }
}
