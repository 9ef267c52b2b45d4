package io.lakesink.iceberg;

import io.lakesink.storage.SingleLine;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A path-based Iceberg table on any storage lakesink writes to, its metadata in Hadoop's layout
 * one folder down: {@code <location>/_lakesink_iceberg/metadata/v<N>.metadata.json} and
 * {@code version-hint.text} beside it, so that {@code HadoopTables} loads
 * {@code <location>/_lakesink_iceberg} and {@code StaticTableOperations} any metadata file.
 *
 * <p>Why not {@code <location>/metadata}: Delta's VACUUM (delta-spark, Databricks) deletes every
 * file the Delta log does not reference except under folders whose names start with {@code _}
 * or {@code .}, so it would delete Iceberg's metadata, manifests included, once they are older
 * than its retention, and leave a catalog entry pointing at nothing.
 *
 * <p>Commit: version N+1 is written put-if-absent (the storage's atomic create, as for a Delta
 * commit), so of two racing commits exactly one wins and the other gets a {@link
 * CommitFailedException}. The version hint is written after, best effort.
 *
 * <p>Finding the current version never trusts a listing (object store listings may lag and
 * Hadoop's fallback lists): start from the hint (0 without one), then probe {@code v<N+1>} forward,
 * doubling the step, and bisect. Versions are contiguous: metadata files are never deleted
 * ({@code write.metadata.delete-after-commit.enabled} stays off).
 */
final class StorageTableOperations implements TableOperations {
  private static final Logger log = LoggerFactory.getLogger(StorageTableOperations.class);
  static final String VERSION_HINT = "version-hint.text";
  /** Where the metadata lives, relative to the table's location. */
  static final String METADATA_FOLDER = "_lakesink_iceberg/metadata";

  private final String location;
  private final io.delta.kernel.defaults.engine.fileio.FileIO storage;
  private final StorageFileIO io;
  private TableMetadata current;
  private int version; // of current; 0 when the table does not exist
  private boolean shouldRefresh = true;
  private TableMetadata pinned;

  StorageTableOperations(String location, io.delta.kernel.defaults.engine.fileio.FileIO storage) {
    this.location = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    this.storage = storage;
    this.io = new StorageFileIO(storage);
  }

  @Override
  public synchronized TableMetadata current() {
    return shouldRefresh ? refresh() : current;
  }

  @Override
  public synchronized TableMetadata refresh() {
    int start = version > 0 ? version : hintedVersion();
    if (start > 0 && !exists(start)) {
      start = 0; // a hint from a metadata folder deleted and written anew
    }
    int latest = latestFrom(start);
    if (latest == 0) {
      current = null;
    } else if (latest != version || current == null) {
      current = TableMetadataParser.read(io, metadataFile(latest));
    }
    version = latest;
    shouldRefresh = false;
    return current;
  }

  /** The last existing version ≥ {@code known} (which exists, or is 0). */
  private int latestFrom(int known) {
    int low = known; // exists (or 0)
    int step = 1;
    while (exists(low + step)) {
      low += step;
      step *= 2;
    }
    int high = low + step; // does not exist
    while (high - low > 1) {
      int middle = low + (high - low) / 2;
      if (exists(middle)) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return low;
  }

  private int hintedVersion() {
    try (InputStream in = storage.newInputFile(metadataFileLocation(VERSION_HINT), -1).newStream()) {
      return Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
    } catch (FileNotFoundException e) {
      return 0;
    } catch (IOException | NumberFormatException e) {
      log.warn("Could not read the Iceberg version hint of {}; probing from version 1: {}", location, e.toString());
      return 0;
    }
  }

  private boolean exists(int metadataVersion) {
    return metadataVersion > 0 && io.exists(metadataFile(metadataVersion));
  }

  /**
   * From now on, commits succeed only on top of the current metadata. Iceberg's transaction,
   * when another process committed meanwhile, refreshes and re-applies its updates onto the newer
   * metadata; for a sync, whose files were diffed against what it read, that would list files
   * twice. With this, it fails instead, and the next sync diffs again.
   */
  synchronized void pinBase() {
    this.pinned = current();
  }

  @Override
  public synchronized void commit(TableMetadata base, TableMetadata metadata) {
    if (base != current) {
      throw new CommitFailedException("Cannot commit changes based on stale table metadata");
    }
    if (pinned != null && base != pinned) {
      throw new CommitFailedException("Another process committed %s since this sync read it", location);
    }
    if (base == metadata) {
      return;
    }
    if (base != null && !base.location().equals(metadata.location())) {
      throw new IllegalArgumentException("a path-based table cannot be relocated");
    }
    int next = version + 1;
    String file = metadataFile(next);
    String json = TableMetadataParser.toJson(metadata);
    try {
      storage.newOutputFile(file).writeAtomically(SingleLine.of(json), false);
    } catch (FileAlreadyExistsException e) {
      // Azure retries a put whose answer was lost: the blob there may be this very write.
      if (!json.equals(readTrimmed(file))) {
        throw new CommitFailedException(e, "Version %d already exists: %s", next, file);
      }
    } catch (IOException e) {
      throw new CommitStateUnknownException("writing " + file, e);
    }
    log.debug("Committed Iceberg metadata {}", file);
    writeHint(next);
    shouldRefresh = true;
  }

  private void writeHint(int newVersion) {
    try {
      storage.newOutputFile(metadataFileLocation(VERSION_HINT)).writeAtomically(SingleLine.of(Integer.toString(newVersion)), true);
    } catch (IOException | UncheckedIOException e) {
      // Readers find the version by probing past the hint; a stale hint only costs them a few probes.
      log.warn("Could not update the Iceberg version hint of {}: {}", location, e.toString());
    }
  }

  private String readTrimmed(String file) {
    try (InputStream in = storage.newInputFile(file, -1).newStream()) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      in.transferTo(bytes);
      return bytes.toString(StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new CommitStateUnknownException("reading back " + file, e);
    }
  }

  private String metadataFile(int metadataVersion) {
    return metadataFileLocation("v" + metadataVersion + ".metadata.json");
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return location + "/" + METADATA_FOLDER + "/" + fileName;
  }

  @Override
  public LocationProvider locationProvider() {
    return LocationProviders.locationsFor(current().location(), current().properties());
  }

  /** What a transaction works on before its commit: the uncommitted metadata, this table's files. */
  @Override
  public TableOperations temp(TableMetadata uncommitted) {
    StorageTableOperations outer = this;
    return new TableOperations() {
      @Override
      public TableMetadata current() {
        return uncommitted;
      }

      @Override
      public TableMetadata refresh() {
        throw new UnsupportedOperationException("Cannot call refresh on temporary table operations");
      }

      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        throw new UnsupportedOperationException("Cannot call commit on temporary table operations");
      }

      @Override
      public FileIO io() {
        return outer.io();
      }

      @Override
      public EncryptionManager encryption() {
        return outer.encryption();
      }

      @Override
      public String metadataFileLocation(String fileName) {
        return outer.metadataFileLocation(fileName);
      }

      @Override
      public LocationProvider locationProvider() {
        return LocationProviders.locationsFor(uncommitted.location(), uncommitted.properties());
      }

      @Override
      public long newSnapshotId() {
        return outer.newSnapshotId();
      }
    };
  }

}
