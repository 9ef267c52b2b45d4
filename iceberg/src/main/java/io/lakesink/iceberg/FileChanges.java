package io.lakesink.iceberg;

import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.TableFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Transaction;

/** The data files to add to and remove from the Iceberg table so that it lists exactly the Delta table's. */
record FileChanges(List<DataFile> added, List<DataFile> removed) {

  /**
   * @param current the Iceberg table's files by location
   * @param wanted the Delta table's files by absolute location
   */
  static FileChanges between(Map<String, DataFile> current, Map<String, TableFile> wanted, BiFunction<String, TableFile, DataFile> toDataFile) {
    List<DataFile> added = new ArrayList<>();
    wanted.forEach((path, file) -> {
      if (!current.containsKey(path)) {
        added.add(toDataFile.apply(path, file));
      }
    });
    List<DataFile> removed = current.entrySet().stream().filter(e -> !wanted.containsKey(e.getKey())).map(Map.Entry::getValue).toList();
    return new FileChanges(added, removed);
  }

  boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty();
  }

  /**
   * Only new files: an append (incremental Iceberg readers pick it up). Files a changelog
   * table's OPTIMIZE replaced, with as many rows as their replacements: a rewrite, which those
   * readers skip (the rows are not new). Any other removal (a MERGE, or OPTIMIZE and new rows
   * in one sync): an overwrite, which tells them rows changed. The snapshot summary also
   * carries the Delta version.
   */
  void commit(Transaction tx, long version, DeliveryMode mode) {
    String deltaVersion = Long.toString(version);
    if (removed.isEmpty()) {
      if (!added.isEmpty()) {
        AppendFiles append = tx.newAppend();
        added.forEach(append::appendFile);
        append.set(IcebergMetadataSync.DELTA_VERSION, deltaVersion).commit();
      }
    } else if (mode == DeliveryMode.CHANGELOG && rows(removed) == rows(added)) {
      RewriteFiles rewrite = tx.newRewrite();
      removed.forEach(rewrite::deleteFile);
      added.forEach(rewrite::addFile);
      rewrite.set(IcebergMetadataSync.DELTA_VERSION, deltaVersion).commit();
    } else {
      OverwriteFiles overwrite = tx.newOverwrite();
      removed.forEach(overwrite::deleteFile);
      added.forEach(overwrite::addFile);
      overwrite.set(IcebergMetadataSync.DELTA_VERSION, deltaVersion).commit();
    }
  }

  private static long rows(List<DataFile> files) {
    return files.stream().mapToLong(DataFile::recordCount).sum();
  }
}
