package io.lakesink.storage.azure;

import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Kernel's file access over the Blob API of one container. Paths are the abfss locations of
 * {@link AzureStorage#tableLocation}; bytes go to the blob endpoint (or storage.endpoint).
 *
 * <p>Errors: {@link FileNotFoundException} for a missing blob, {@link
 * java.nio.file.FileAlreadyExistsException} for a lost put-if-absent, and lakesink's {@code
 * ConfigurationException} / {@code RetryableException} (unchecked, so they cross Kernel) for
 * configuration problems and transient failures the SDK's retries did not overcome.
 */
public final class AzureFileIO implements FileIO {
  private final BlobContainerClient container;
  private final BlobPaths paths;
  private final AzureErrors errors;
  private volatile boolean useStartFrom = true;
  /** The blobs just written, for the Delta library's read-back of their status and footer. */
  private final WrittenBlobs written = new WrittenBlobs(System::nanoTime);

  AzureFileIO(BlobContainerClient container, BlobPaths paths, AzureErrors errors) {
    this.container = container;
    this.paths = paths;
    this.errors = errors;
  }

  /**
   * Blobs of the same "directory" whose names are ≥ the argument, in name order. One hierarchical
   * listing ('/' delimiter, so nothing from subdirectories such as _delta_log/_sidecars) starting
   * server-side at the argument. A directory that does not exist lists as empty.
   *
   * <p>startFrom is recent (service version 2026-02-06). Should an endpoint refuse it with 400, the
   * listing is repeated without it, filtering on the client, and startFrom is not used again.
   */
  @Override
  public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
    String from = paths.blobName(filePath);
    String directory = from.substring(0, from.lastIndexOf('/') + 1);
    try {
      if (useStartFrom) {
        try {
          return new Listing(firstPage(directory, from), from, filePath);
        } catch (BlobStorageException e) {
          if (e.getStatusCode() != 400) throw e;
          useStartFrom = false;
        }
      }
      return new Listing(firstPage(directory, null), from, filePath);
    } catch (RuntimeException e) {
      throw errors.translate("list", filePath, e);
    }
  }

  private Iterator<BlobItem> firstPage(String directory, String startFrom) {
    ListBlobsOptions options = new ListBlobsOptions().setStartFrom(startFrom);
    if (!directory.isEmpty()) {
      options.setPrefix(directory);
    }
    Iterator<BlobItem> items = container.listBlobsByHierarchy("/", options, null).iterator();
    items.hasNext(); // requests the first page now, so its errors are the caller's
    return items;
  }

  @Override
  public FileStatus getFileStatus(String path) throws IOException {
    String name = paths.blobName(path);
    Optional<WrittenBlobs.Written> known = written.get(name);
    if (known.isPresent()) {
      return FileStatus.of(paths.uri(name), known.get().size(), known.get().lastModified());
    }
    try {
      BlobProperties properties = container.getBlobClient(name).getProperties();
      return FileStatus.of(
          paths.uri(name),
          properties.getBlobSize(),
          properties.getLastModified().toInstant().toEpochMilli());
    } catch (RuntimeException e) {
      throw errors.translate("read", path, e);
    }
  }

  /** The canonical abfss form; like Hadoop's makeQualified, it does not check existence. */
  @Override
  public String resolvePath(String path) {
    return paths.uri(paths.blobName(path));
  }

  /** Blob storage has no directories to create: a blob's name makes its folders. */
  @Override
  public boolean mkdirs(String path) {
    paths.blobName(path); // still refuse paths outside the container
    return true;
  }

  @Override
  public InputFile newInputFile(String path, long fileSize) {
    return new BlobInputFile(blob(path), path, fileSize, errors, written.get(paths.blobName(path)).orElse(null));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new BlobOutputFile(writer(path), path, written, paths.blobName(path));
  }

  /** True if the blob was deleted, false if there was none. */
  @Override
  public boolean delete(String path) throws IOException {
    written.forget(paths.blobName(path));
    try {
      blob(path).deleteWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE);
      return true;
    } catch (BlobStorageException e) {
      IOException failure = errors.translate("delete", path, e);
      if (failure instanceof FileNotFoundException) {
        return false;
      }
      throw failure;
    } catch (RuntimeException e) {
      throw errors.translate("delete", path, e);
    }
  }

  /** None: lakesink's core wraps this FileIO to supply the Parquet settings. */
  @Override
  public Optional<String> getConf(String confKey) {
    return Optional.empty();
  }

  /**
   * Reads the source and writes the destination in one PUT (put-if-absent unless {@code
   * overwrite}). A server-side copy would not be atomic: its destination exists while pending.
   * Kernel copies only log files (staged commits), which fit in memory.
   */
  @Override
  public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
      throws IOException {
    byte[] content;
    try {
      content = blob(srcPath).downloadContent().toBytes();
    } catch (RuntimeException e) {
      throw errors.translate("read", srcPath, e);
    }
    written.forget(paths.blobName(destPath));
    writer(destPath).put(content, overwrite);
  }

  private BlobClient blob(String path) {
    return container.getBlobClient(paths.blobName(path));
  }

  private BlobWriter writer(String path) {
    return new BlobWriter(blob(path).getBlockBlobClient(), path, errors);
  }

  /** The listing as Kernel wants it: blobs only, names ≥ the start, full paths. */
  private final class Listing implements CloseableIterator<FileStatus> {
    private final Iterator<BlobItem> items;
    private final String from;
    private final String listedPath;
    private FileStatus next;

    Listing(Iterator<BlobItem> items, String from, String listedPath) {
      this.items = items;
      this.from = from;
      this.listedPath = listedPath;
    }

    @Override
    public boolean hasNext() {
      while (next == null && advance()) {
        BlobItem item = items.next();
        // Prefix entries are subdirectories; the name check guards against a service that
        // ignores startFrom (the order it returns is already by name).
        if (Boolean.TRUE.equals(item.isPrefix()) || item.getName().compareTo(from) < 0) {
          continue;
        }
        next =
            FileStatus.of(
                paths.uri(item.getName()),
                item.getProperties().getContentLength(),
                item.getProperties().getLastModified().toInstant().toEpochMilli());
      }
      return next != null;
    }

    @Override
    public FileStatus next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      FileStatus result = next;
      next = null;
      return result;
    }

    @Override
    public void close() {}

    /** Later pages are fetched inside hasNext(): their failures surface unchecked. */
    private boolean advance() {
      try {
        return items.hasNext();
      } catch (RuntimeException e) {
        IOException failure = errors.translate("list", listedPath, e);
        throw new UncheckedIOException(failure);
      }
    }
  }
}
