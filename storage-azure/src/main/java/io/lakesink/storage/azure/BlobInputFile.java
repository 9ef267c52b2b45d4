package io.lakesink.storage.azure;

import com.azure.storage.blob.BlobClient;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.lakesink.storage.ParsedOnceInputFile;
import java.io.IOException;

/**
 * A blob to read. Kernel passes the size it knows from the log, -1 when it does not, and 0 for
 * _last_checkpoint, whose size it never looked up: like Hadoop's input file, sizes ≤ 0 count as
 * unknown. (Trusting the 0 makes the file read as empty, which Kernel retries for 3 s.) Parquet
 * reads it with the configuration parsed once ({@link ParsedOnceInputFile}).
 */
final class BlobInputFile extends ParsedOnceInputFile {
  private final BlobClient blob;
  private final String path;
  private final AzureErrors errors;
  private long size;
  private final WrittenBlobs.Written written;

  /** @param written what this process knows of the blob from writing it, or null */
  BlobInputFile(BlobClient blob, String path, long size, AzureErrors errors, WrittenBlobs.Written written) {
    this.blob = blob;
    this.path = path;
    this.size = size > 0 ? size : written != null ? written.size() : -1;
    this.errors = errors;
    this.written = written;
  }

  @Override
  public long length() throws IOException {
    if (size < 0) {
      try {
        size = blob.getProperties().getBlobSize();
      } catch (RuntimeException e) {
        throw errors.translate("read", path, e);
      }
    }
    return size;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public SeekableInputStream newStream() {
    if (written != null && written.size() == size) {
      return new BlobRangeInputStream(blob, path, size, errors, written.footer(), written.etag());
    }
    // An unknown size is learnt from the first range response (Content-Range), not a HEAD.
    return new BlobRangeInputStream(blob, path, size, errors);
  }
}
