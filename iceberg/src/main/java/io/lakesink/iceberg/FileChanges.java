package io.lakesink.iceberg;

import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.TableFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Transaction;

/**
 * The data files to add to and remove from the Iceberg table so that it lists exactly the Delta
 * table's, and the position-delete files to add and remove so that it hides exactly the rows
 * Delta's deletion vectors hide.
 */
record FileChanges(List<DataFile> added, List<DataFile> removed, List<DeleteFile> deletesAdded, List<DeleteFile> deletesRemoved) {

  /** Writes the position-delete file of a data file's current deletion vector. */
  interface DeleteWriter {
    DeleteFile write(DataFile data, TableFile file, String key);
  }

  /**
   * @param current the Iceberg table's files
   * @param wanted the Delta table's files by absolute location
   */
  static FileChanges between(IcebergFiles current, Map<String, TableFile> wanted, BiFunction<String, TableFile, DataFile> toDataFile,
      DeleteWriter deletes) {
    List<DataFile> added = new ArrayList<>();
    Map<String, DataFile> dataFiles = new HashMap<>(current.data());
    wanted.forEach((path, file) -> {
      if (!current.data().containsKey(path)) {
        DataFile data = toDataFile.apply(path, file);
        added.add(data);
        dataFiles.put(path, data);
      }
    });
    List<DataFile> removed = current.data().entrySet().stream().filter(e -> !wanted.containsKey(e.getKey())).map(Map.Entry::getValue).toList();

    // A vector that changed has another key: its old delete file goes, a new one comes.
    Map<String, String> wantedKeys = new HashMap<>(); // key → data file path
    wanted.forEach((path, file) -> {
      String vector = file.deletionVectorId();
      if (vector != null) {
        wantedKeys.put(PositionDeletes.key(path, vector), path);
      }
    });
    List<DeleteFile> deletesRemoved = current.deletes().entrySet().stream()
        .filter(e -> !wantedKeys.containsKey(e.getKey())).map(Map.Entry::getValue).toList();
    List<DeleteFile> deletesAdded = new ArrayList<>();
    wantedKeys.forEach((key, path) -> {
      if (!current.deletes().containsKey(key)) {
        deletesAdded.add(deletes.write(dataFiles.get(path), wanted.get(path), key));
      }
    });
    return new FileChanges(added, removed, deletesAdded, deletesRemoved);
  }

  boolean isEmpty() {
    return added.isEmpty() && removed.isEmpty() && deletesAdded.isEmpty() && deletesRemoved.isEmpty();
  }

  /**
   * Only new files: an append (incremental Iceberg readers pick it up). Files a changelog
   * table's OPTIMIZE replaced, with as many rows as their replacements: a rewrite, which those
   * readers skip (the rows are not new). Any other removal (a MERGE, or OPTIMIZE and new rows
   * in one sync): an overwrite, which tells them rows changed. Deletion vectors that came or
   * went: a row delta, which adds and removes data and delete files in the same snapshot. The
   * snapshot summary also carries the Delta version.
   */
  void commit(Transaction tx, long version, DeliveryMode mode) {
    String deltaVersion = Long.toString(version);
    if (!deletesAdded.isEmpty() || !deletesRemoved.isEmpty()) {
      RowDelta delta = tx.newRowDelta();
      added.forEach(delta::addRows);
      removed.forEach(delta::removeRows);
      deletesAdded.forEach(delta::addDeletes);
      deletesRemoved.forEach(delta::removeDeletes);
      delta.set(IcebergMetadataSync.DELTA_VERSION, deltaVersion).commit();
    } else if (removed.isEmpty()) {
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
