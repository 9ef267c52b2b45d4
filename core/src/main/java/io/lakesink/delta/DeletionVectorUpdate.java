package io.lakesink.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import java.io.IOException;
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
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /** The remove and add actions of every file in {@code deletes}; writes one deletion vector file. */
  static List<Row> actions(Engine engine, String location, Map<TableFile, long[]> deletes, long now) {
    if (deletes.isEmpty()) {
      return List.of();
    }
    List<TableFile> files = new ArrayList<>(deletes.keySet());
    List<long[]> positions = new ArrayList<>(files.size());
    for (TableFile f : files) {
      // Read already when the merge skipped the file's deleted rows: not read again on this thread.
      positions.add(union(DeletionVectorFile.deletedPositions(engine, location, f), deletes.get(f)));
    }
    List<DeletionVectorDescriptor> written = DeletionVectorFile.write(engine, location, positions);
    List<Row> actions = new ArrayList<>(files.size() * 2);
    for (int i = 0; i < files.size(); i++) {
      AddFile add = new AddFile(files.get(i).scanRow.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
      actions.add(SingleAction.createRemoveFileSingleAction(add.toRemoveFileRow(true, Optional.of(now))));
      actions.add(SingleAction.createAddFileSingleAction(withDeletionVector(add, written.get(i))));
    }
    return actions;
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
    add.getStatsJson().ifPresent(stats -> fields.put(AddFile.FULL_SCHEMA.indexOf("stats"), wideBounds(stats)));
    add.getTags().ifPresent(tags -> fields.put(AddFile.FULL_SCHEMA.indexOf("tags"), tags));
    add.getBaseRowId().ifPresent(id -> fields.put(AddFile.FULL_SCHEMA.indexOf("baseRowId"), id));
    add.getDefaultRowCommitVersion().ifPresent(v -> fields.put(AddFile.FULL_SCHEMA.indexOf("defaultRowCommitVersion"), v));
    fields.put(AddFile.FULL_SCHEMA.indexOf("deletionVector"), dv.toRow());
    return new GenericRow(AddFile.FULL_SCHEMA, fields);
  }

  private static String wideBounds(String stats) {
    try {
      JsonNode node = JSON.readTree(stats);
      if (node instanceof ObjectNode o) {
        o.put("tightBounds", false);
        return JSON.writeValueAsString(o);
      }
    } catch (IOException e) {
      // unreadable statistics are kept as they are: readers ignore what they cannot parse
    }
    return stats;
  }
}
