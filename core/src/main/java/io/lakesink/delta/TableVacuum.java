package io.lakesink.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.internal.snapshot.LogSegment;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Delta's VACUUM: finds the data files no version inside the retention references, and the
 * orphans of failed writes, and deletes them.
 *
 * <p>A file is kept when the latest snapshot holds it, or when a {@code remove} still inside the
 * retention names it (a reader time-travelling to a retained version needs it); anything else is
 * deleted only once it is older than the retention itself, so the files of a write still in
 * flight are never touched. A deletion vector file is kept as long as a kept file's add or
 * remove names it, and is otherwise an orphan like any other. Nothing under {@code _delta_log} is ever listed, and no name starting
 * with {@code _} or {@code .} is ever deleted. Listed: the table's root and every partition
 * directory the log names (files of a partition no commit ever reached are not found).
 */
public final class TableVacuum {
  private static final StructType REMOVES = new StructType()
      .add("remove", new StructType().add("path", StringType.STRING).add("deletionTimestamp", LongType.LONG)
          .add("deletionVector", DeletionVectorDescriptor.READ_SCHEMA));

  private TableVacuum() {}

  /** The table's own retention: {@code delta.deletedFileRetentionDuration}, 168 hours by default. */
  public static Duration retention(DeltaTable table) {
    return table.snapshot()
        .map(s -> Duration.ofMillis(TableConfig.TOMBSTONE_RETENTION.fromMetadata(((SnapshotImpl) s).getMetadata())))
        .orElse(Duration.ofHours(168));
  }

  /** A file vacuum deletes, by its path relative to the table. */
  public record Candidate(String path, long size) {}

  /**
   * @param live files of the latest version: data files and the deletion vector files they name
   * @param found data files in storage, live or not
   * @param delete what vacuum deletes
   * @param sidecars lakesink's files about data files that will be gone ({@link DataFileSidecars}),
   *     deleted after them
   */
  public record Plan(
      long version, int live, long liveBytes, int found, long foundBytes, List<Candidate> delete, List<Candidate> sidecars) {
    public long deleteBytes() {
      return delete.stream().mapToLong(Candidate::size).sum();
    }
  }

  public static Plan plan(DeltaTable table, Duration retention, Instant now) {
    Snapshot snapshot = table.snapshot().orElseThrow(() -> new IllegalStateException("no table at " + table.location()));
    Engine engine = table.engine();
    String root = table.location();
    long cutoff = now.toEpochMilli() - retention.toMillis();
    Set<String> keep = new HashSet<>();
    Set<String> directories = new TreeSet<>(List.of(""));
    long liveBytes = 0;
    List<TableFile> files = DeltaTable.files(engine, snapshot, root);
    Set<String> liveVectors = new HashSet<>();
    for (TableFile f : files) {
      String p = relative(root, f.path());
      keep.add(p);
      directories.add(parent(p));
      liveBytes += f.size();
      // A live file's deletion vector file is as live as the file (several files may share one).
      deletionVectorFile(root, DeletionVectorFile.descriptor(f)).ifPresent(dv -> {
        keep.add(dv);
        liveVectors.add(dv);
        directories.add(parent(dv));
      });
    }
    for (Removed removed : removes(engine, ((SnapshotImpl) snapshot).getLogSegment())) {
      String p = relative(root, removed.path());
      directories.add(parent(p));
      Optional<String> dv = deletionVectorFile(root, removed.deletionVector());
      dv.ifPresent(d -> directories.add(parent(d)));
      long deletedAt = removed.deletionTimestamp() == null ? 0 : removed.deletionTimestamp();
      if (deletedAt > cutoff) {
        keep.add(p);
        dv.ifPresent(keep::add); // a retained version reads the file with the vector it had then
      }
    }
    List<Candidate> delete = new ArrayList<>();
    int found = 0;
    long foundBytes = 0;
    int live = files.size();
    for (String dir : directories) {
      for (FileStatus listed : list(engine, dir.isEmpty() ? root : root + "/" + dir)) {
        String p = relative(root, listed.getPath());
        String name = p.substring(p.lastIndexOf('/') + 1);
        if (name.startsWith("_") || name.startsWith(".")) {
          continue;
        }
        found++;
        foundBytes += listed.getSize();
        if (liveVectors.contains(p)) {
          live++; // the latest version's vector files count as live, as its data files do
          liveBytes += listed.getSize();
        }
        if (keep.contains(p) || listed.getModificationTime() >= cutoff) {
          continue;
        }
        delete.add(new Candidate(p, listed.getSize()));
      }
    }
    return new Plan(snapshot.getVersion(), live, liveBytes, found, foundBytes, delete, sidecars(engine, root, remaining(keep, delete)));
  }

  /** Names of the data files that stay: those the plan keeps (live or retained), less what it deletes. */
  private static Set<String> remaining(Set<String> keep, List<Candidate> delete) {
    Set<String> names = new HashSet<>();
    keep.forEach(p -> names.add(DataFileSidecars.name(p)));
    delete.forEach(c -> names.remove(DataFileSidecars.name(c.path())));
    return names;
  }

  /** The key filters whose data file is not among {@code remaining} (deleted now, or long gone). */
  private static List<Candidate> sidecars(Engine engine, String root, Set<String> remaining) {
    String directory = DataFileSidecars.keyFilter(root, "x");
    directory = directory.substring(0, directory.lastIndexOf('/'));
    List<Candidate> out = new ArrayList<>();
    for (FileStatus listed : list(engine, directory)) {
      String name = DataFileSidecars.name(listed.getPath());
      if (name.endsWith(".keys") && !remaining.contains(name.substring(0, name.length() - ".keys".length()))) {
        out.add(new Candidate(relative(root, listed.getPath()), listed.getSize()));
      }
    }
    return out;
  }

  /** Deletes one planned file; false when it was already gone. */
  public static boolean delete(DeltaTable table, Candidate file) {
    try {
      return table.engine().getFileSystemClient().delete(table.location() + "/" + file.path());
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + file.path() + " of " + table.location(), e);
    }
  }

  /** The deletion vector file a descriptor names, relative to the root; empty for none or an inline one. */
  private static Optional<String> deletionVectorFile(String root, DeletionVectorDescriptor dv) {
    if (dv == null || !dv.isOnDisk()) {
      return Optional.empty();
    }
    if (DeletionVectorDescriptor.UUID_DV_MARKER.equals(dv.getStorageType())) {
      // Relative by definition: an optional random prefix (a directory), then the encoded UUID.
      String value = dv.getPathOrInlineDv();
      int prefixLength = value.length() - Base85Codec.ENCODED_UUID_LENGTH;
      String prefix = value.substring(0, prefixLength);
      String name = DeletionVectorFile.FILE_PREFIX + Base85Codec.decodeUUID(value.substring(prefixLength)) + ".bin";
      return Optional.of(prefix.isEmpty() ? name : prefix + "/" + name);
    }
    return Optional.of(relative(root, dv.getPathOrInlineDv()));
  }

  /** A {@code remove} of the log: the file, when, and the deletion vector it had (or null). */
  private record Removed(String path, Long deletionTimestamp, DeletionVectorDescriptor deletionVector) {}

  /** Every {@code remove} in the log the snapshot reads: its checkpoint, then the commits after it. */
  private static List<Removed> removes(Engine engine, LogSegment segment) {
    List<Removed> out = new ArrayList<>();
    try {
      if (!segment.getCheckpoints().isEmpty()) {
        try (CloseableIterator<FileReadResult> batches = engine.getParquetHandler().readParquetFiles(
            Utils.toCloseableIterator(segment.getCheckpoints().iterator()), REMOVES, Optional.empty())) {
          batches.forEachRemaining(b -> collect(b.getData(), out));
        }
      }
      if (!segment.getDeltas().isEmpty()) {
        try (CloseableIterator<ColumnarBatch> batches = engine.getJsonHandler().readJsonFiles(
            Utils.toCloseableIterator(segment.getDeltas().iterator()), REMOVES, Optional.empty())) {
          batches.forEachRemaining(b -> collect(b, out));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the Delta log for vacuum", e);
    }
    return out;
  }

  private static void collect(ColumnarBatch batch, List<Removed> out) {
    ColumnVector remove = batch.getColumnVector(0);
    ColumnVector path = remove.getChild(0);
    ColumnVector deleted = remove.getChild(1);
    ColumnVector dv = remove.getChild(2);
    for (int r = 0; r < batch.getSize(); r++) {
      if (!remove.isNullAt(r) && !path.isNullAt(r)) {
        out.add(new Removed(path.getString(r), deleted.isNullAt(r) ? null : deleted.getLong(r),
            DeletionVectorDescriptor.fromColumnVector(dv, r)));
      }
    }
  }

  /** The files (not directories) of one directory; none when it does not exist. */
  private static List<FileStatus> list(Engine engine, String directory) {
    List<FileStatus> out = new ArrayList<>();
    // listFrom lists the directory of its argument from a name on: "!" sorts before every name
    // a writer gives a data file.
    try (CloseableIterator<FileStatus> it = engine.getFileSystemClient().listFrom(directory + "/!")) {
      it.forEachRemaining(out::add);
    } catch (FileNotFoundException e) {
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + directory, e);
    }
    return out;
  }

  /** A path as the log writes it (relative and URL-encoded, or absolute), relative to the root. */
  static String relative(String root, String path) {
    String p = path;
    String prefix = root.endsWith("/") ? root : root + "/";
    if (p.startsWith(prefix)) {
      return p.substring(prefix.length());
    }
    int scheme = p.indexOf(':');
    if (scheme > 0 && p.indexOf('/') > scheme) {
      // Another spelling of an absolute URI (file:///x vs file:/x): compare from the root's path on.
      String rootPath = root.substring(root.indexOf(':') + 1).replaceFirst("^/+", "/");
      String own = p.substring(scheme + 1).replaceFirst("^/+", "/");
      if (own.startsWith(rootPath + "/")) {
        return own.substring(rootPath.length() + 1);
      }
      return p;
    }
    return URLDecoder.decode(p.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String parent(String relativePath) {
    int slash = relativePath.lastIndexOf('/');
    return slash < 0 ? "" : relativePath.substring(0, slash);
  }
}
