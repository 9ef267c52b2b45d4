package io.lakesink.delta;

import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The log side of deleting rows with deletion vectors: per file, the new vector (its current one's
 * rows plus the new positions, written by {@link DeletionVectorFile}), and the pair of actions
 * Delta's protocol asks for: {@code remove} of the file's current add (with its old vector) and
 * an {@code add} of the same path, size and statistics naming the new one.
 */
final class DeletionVectorUpdate {

  private DeletionVectorUpdate() {}

  /** Sorted distinct positions of both. */
  static long[] union(long[] a, long[] b) {
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    Arrays.sort(all);
    int n = 0;
    for (int i = 0; i < all.length; i++) {
      if (n == 0 || all[i] != all[n - 1]) {
        all[n++] = all[i];
      }
    }
    return Arrays.copyOf(all, n);
  }

  /**
   * The remove and add actions of every file in {@code deletes}; writes one deletion vector file.
   * A file whose every row is then deleted is only removed, as Delta's own DML does: no vector
   * is written for it, and no reader (nor the next merge) opens a file of which it would keep
   * nothing. A busy table's older files end that way, one merge after another.
   */
  static List<Row> actions(Engine engine, String location, Map<TableFile, long[]> deletes, long now) {
    if (deletes.isEmpty()) {
      return List.of();
    }
    List<Row> actions = new ArrayList<>(deletes.size() * 2);
    List<TableFile> files = new ArrayList<>(deletes.size());
    List<long[]> positions = new ArrayList<>(deletes.size());
    for (Map.Entry<TableFile, long[]> e : deletes.entrySet()) {
      TableFile f = e.getKey();
      // Read already when the merge skipped the file's deleted rows: not read again on this thread.
      long[] all = union(DeletionVectorFile.deletedPositions(engine, location, f), e.getValue());
      AddFile add = new AddFile(f.scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
      actions.add(SingleAction.createRemoveFileSingleAction(add.toRemoveFileRow(true, Optional.of(now))));
      if (!deletesEveryRow(f, all)) {
        files.add(f);
        positions.add(all);
      }
    }
    if (!files.isEmpty()) {
      List<DeletionVectorDescriptor> written = DeletionVectorFile.write(engine, location, positions);
      for (int i = 0; i < files.size(); i++) {
        AddFile add = new AddFile(files.get(i).scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
        actions.add(SingleAction.createAddFileSingleAction(withDeletionVector(add, written.get(i))));
      }
    }
    return actions;
  }

  /**
   * Whether {@code positions} (sorted, distinct) delete every row of the file: as many as the
   * Parquet file holds, by its statistics' {@code numRecords}. Unknown without statistics: the
   * file then keeps a vector.
   */
  static boolean deletesEveryRow(TableFile file, long[] positions) {
    long physical = file.physicalRows();
    return physical > 0 && positions.length == physical && positions[0] == 0 && positions[positions.length - 1] == physical - 1;
  }

  /** The positions below {@code physicalRows} that are not in {@code keep} (sorted, distinct), sorted. */
  static long[] complement(long[] keep, long physicalRows) {
    long[] out = new long[Math.toIntExact(physicalRows - keep.length)];
    int n = 0;
    int k = 0;
    for (long p = 0; p < physicalRows; p++) {
      if (k < keep.length && keep[k] == p) {
        k++;
      } else {
        out[n++] = p;
      }
    }
    if (k != keep.length || n != out.length) {
      throw new IllegalArgumentException("positions to keep not sorted, distinct and below " + physicalRows);
    }
    return out;
  }

  /** A new file's add action (unpartitioned, a data change), with its statistics and deletion vector when given. */
  static Row addAction(String path, long size, long modificationTime, String stats, Optional<Row> deletionVector) {
    Map<Integer, Object> fields = new HashMap<>();
    fields.put(AddFile.FULL_SCHEMA.indexOf("path"), path);
    fields.put(AddFile.FULL_SCHEMA.indexOf("partitionValues"), io.delta.kernel.internal.util.VectorUtils.stringStringMapValue(Map.of()));
    fields.put(AddFile.FULL_SCHEMA.indexOf("size"), size);
    fields.put(AddFile.FULL_SCHEMA.indexOf("modificationTime"), modificationTime);
    fields.put(AddFile.FULL_SCHEMA.indexOf("dataChange"), true);
    if (stats != null) {
      fields.put(AddFile.FULL_SCHEMA.indexOf("stats"), stats);
    }
    deletionVector.ifPresent(dv -> fields.put(AddFile.FULL_SCHEMA.indexOf("deletionVector"), dv));
    return new GenericRow(AddFile.FULL_SCHEMA, fields);
  }

  /**
   * The same file with another deletion vector. Its statistics stay those of the Parquet file
   * ({@code numRecords} counts deleted rows too, as the protocol says), marked {@code
   * tightBounds: false}: the min/max may now be wider than the live rows'.
   */
  private static Row withDeletionVector(AddFile add, DeletionVectorDescriptor dv) {
    Map<Integer, Object> fields = new HashMap<>();
    fields.put(AddFile.FULL_SCHEMA.indexOf("path"), add.getPath());
    fields.put(AddFile.FULL_SCHEMA.indexOf("partitionValues"), add.getPartitionValues());
    fields.put(AddFile.FULL_SCHEMA.indexOf("size"), add.getSize());
    fields.put(AddFile.FULL_SCHEMA.indexOf("modificationTime"), add.getModificationTime());
    fields.put(AddFile.FULL_SCHEMA.indexOf("dataChange"), true);
    add.getStatsJson().ifPresent(stats -> fields.put(AddFile.FULL_SCHEMA.indexOf("stats"), FileStats.restricted(stats, null, false)));
    add.getTags().ifPresent(tags -> fields.put(AddFile.FULL_SCHEMA.indexOf("tags"), tags));
    add.getBaseRowId().ifPresent(id -> fields.put(AddFile.FULL_SCHEMA.indexOf("baseRowId"), id));
    add.getDefaultRowCommitVersion().ifPresent(v -> fields.put(AddFile.FULL_SCHEMA.indexOf("defaultRowCommitVersion"), v));
    fields.put(AddFile.FULL_SCHEMA.indexOf("deletionVector"), dv.toRow());
    return new GenericRow(AddFile.FULL_SCHEMA, fields);
  }
}
