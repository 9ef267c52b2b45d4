package io.lakesink.storage.azure;

import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.models.BlobDownloadHeaders;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DownloadRetryOptions;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * Reads a blob with explicit range GETs: no request until the first read, then one request per
 * buffer miss. Small reads fetch {@value #READ_AHEAD} bytes ahead; reads at least that large go
 * straight into the caller's array. A small read in the last {@value #TAIL} bytes fetches that
 * whole tail, so a Parquet footer (length and magic, then the footer itself) costs one request.
 *
 * <p>After the first response, later ranges are pinned to its ETag: a blob replaced mid-read fails
 * loudly instead of mixing two versions.
 */
final class BlobRangeInputStream extends SeekableInputStream {
  static final int READ_AHEAD = 1 << 20;
  static final int TAIL = 64 << 10;
  private static final DownloadRetryOptions RESUME = new DownloadRetryOptions().setMaxRetryRequests(3);

  private final BlobClient blob;
  private final String path;
  private final AzureErrors errors;
  private long length; // -1 until known
  private String etag;
  private long pos;
  private byte[] buffer = new byte[0];
  private long bufferStart;
  private boolean closed;

  BlobRangeInputStream(BlobClient blob, String path, long length, AzureErrors errors) {
    this.blob = blob;
    this.path = path;
    this.length = length;
    this.errors = errors;
  }

  /**
   * A blob whose last bytes ({@code tail}: a Parquet footer this process just wrote) and ETag are
   * known: reads in the tail need no request, and any other range is pinned to that version.
   */
  BlobRangeInputStream(BlobClient blob, String path, long length, AzureErrors errors, byte[] tail, String etag) {
    this(blob, path, length, errors);
    if (tail != null && length >= tail.length) {
      this.buffer = tail;
      this.bufferStart = length - tail.length;
    }
    this.etag = etag;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    ensureOpen();
    if (len == 0) {
      return 0;
    }
    if (length >= 0 && pos >= length) {
      return -1;
    }
    if (pos >= bufferStart && pos < bufferStart + buffer.length) {
      return copyFromBuffer(b, off, len);
    }
    if (len >= READ_AHEAD) {
      int want = length >= 0 ? (int) Math.min(len, length - pos) : len;
      int n = fetch(pos, b, off, want);
      if (n > 0) pos += n;
      return n;
    }
    fillBuffer();
    if (buffer.length == 0 || pos >= bufferStart + buffer.length) {
      return -1;
    }
    return copyFromBuffer(b, off, len);
  }

  @Override
  public void readFully(byte[] b, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      int n = read(b, off + done, len - done);
      if (n < 0) {
        throw new EOFException(
            "End of " + path + " after " + pos + " bytes, " + (len - done) + " more expected");
      }
      done += n;
    }
  }

  @Override
  public long skip(long n) throws IOException {
    ensureOpen();
    if (n <= 0) return 0;
    long target = length >= 0 ? Math.min(length, pos + n) : pos + n;
    long skipped = Math.max(0, target - pos);
    pos += skipped;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    ensureOpen();
    long inBuffer = bufferStart + buffer.length - pos;
    return pos >= bufferStart && inBuffer > 0 ? (int) inBuffer : 0;
  }

  @Override
  public long getPos() {
    return pos;
  }

  @Override
  public void seek(long newPos) throws IOException {
    ensureOpen();
    if (newPos < 0) {
      throw new EOFException("Cannot seek to negative position " + newPos + " in " + path);
    }
    pos = newPos;
  }

  @Override
  public void close() {
    closed = true;
    buffer = new byte[0];
  }

  private int copyFromBuffer(byte[] b, int off, int len) {
    int from = (int) (pos - bufferStart);
    int n = Math.min(len, buffer.length - from);
    System.arraycopy(buffer, from, b, off, n);
    pos += n;
    return n;
  }

  private void fillBuffer() throws IOException {
    long start = pos;
    if (length >= 0 && length - pos <= TAIL) {
      start = Math.max(0, length - TAIL);
    }
    long end = start + READ_AHEAD;
    if (length >= 0) {
      end = Math.min(end, length);
    }
    byte[] fresh = new byte[(int) (end - start)];
    int n = fetch(start, fresh, 0, fresh.length);
    if (n < 0) {
      buffer = new byte[0];
      return;
    }
    if (n < fresh.length) {
      fresh = Arrays.copyOf(fresh, n);
    }
    buffer = fresh;
    bufferStart = start;
  }

  /** One range GET into {@code dst}; returns the bytes read, or -1 when offset is past the end. */
  private int fetch(long offset, byte[] dst, int dstOff, int count) throws IOException {
    if (count == 0) {
      return length >= 0 && offset >= length ? -1 : 0;
    }
    ArraySink sink = new ArraySink(dst, dstOff, count);
    BlobRequestConditions pinned = etag == null ? null : new BlobRequestConditions().setIfMatch(etag);
    try {
      BlobDownloadHeaders headers =
          blob.downloadStreamWithResponse(
                  sink, new BlobRange(offset, (long) count), RESUME, pinned, false, null, Context.NONE)
              .getDeserializedHeaders();
      if (etag == null) {
        etag = headers.getETag();
      }
      learnLength(headers, offset, sink.written());
      return sink.written();
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 416) {
        return -1; // InvalidRange: offset at or past the end
      }
      if (e.getStatusCode() == 412 && pinned != null) {
        throw new IOException(path + " was replaced while it was being read; read it again.");
      }
      throw errors.translate("read", path, e);
    } catch (RuntimeException e) {
      throw errors.translate("read", path, e);
    }
  }

  /** Content-Range is "bytes start-end/total": the total is the blob's length. */
  private void learnLength(BlobDownloadHeaders headers, long offset, int got) {
    if (length >= 0) return;
    String range = headers.getContentRange();
    if (range != null && range.contains("/") && !range.endsWith("/*")) {
      length = Long.parseLong(range.substring(range.lastIndexOf('/') + 1).trim());
    } else if (offset == 0) {
      length = got; // whole blob in a 200 answer
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("Stream closed: " + path);
    }
  }

  /** Receives a download directly in the destination array, refusing more than was asked. */
  private static final class ArraySink extends OutputStream {
    private final byte[] dst;
    private final int start;
    private final int capacity;
    private int written;

    ArraySink(byte[] dst, int start, int capacity) {
      this.dst = dst;
      this.start = start;
      this.capacity = capacity;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (written + len > capacity) {
        throw new IOException("Service sent more bytes than the requested range");
      }
      System.arraycopy(b, off, dst, start + written, len);
      written += len;
    }

    int written() {
      return written;
    }
  }
}
