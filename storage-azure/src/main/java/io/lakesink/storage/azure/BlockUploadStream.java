package io.lakesink.storage.azure;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Streams a blob as staged blocks of {@value #BLOCK_SIZE} bytes committed on {@link #close()}; a
 * blob that fits in one block is a single PUT. Either way the blob appears whole or not at all,
 * which is what Kernel's "atomic" write asks for. Blocks go up one at a time: one buffer per open
 * file.
 */
final class BlockUploadStream extends PositionOutputStream {
  static final int BLOCK_SIZE = 8 << 20;

  private final BlobWriter writer;
  private final boolean overwrite;
  private final WrittenBlobs written;
  private final String name;
  private final String uploadId = UUID.randomUUID().toString();
  private final List<String> blockIds = new ArrayList<>();
  private byte[] buffer = new byte[64 << 10]; // grows to BLOCK_SIZE: small files stay small
  private int buffered;
  private long position;
  private boolean closed;

  /**
   * @param overwrite false: put-if-absent, close() throws FileAlreadyExistsException on conflict
   * @param written where the finished write is noted, under the blob's {@code name}
   */
  BlockUploadStream(BlobWriter writer, boolean overwrite, WrittenBlobs written, String name) {
    this.writer = writer;
    this.overwrite = overwrite;
    this.written = written;
    this.name = name;
  }

  @Override
  public void write(int b) throws IOException {
    ensureOpen();
    if (buffered == BLOCK_SIZE) {
      stageBuffer();
    }
    reserve(1);
    buffer[buffered++] = (byte) b;
    position++;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    ensureOpen();
    while (len > 0) {
      if (buffered == BLOCK_SIZE) {
        stageBuffer();
      }
      int n = Math.min(len, BLOCK_SIZE - buffered);
      reserve(n);
      System.arraycopy(b, off, buffer, buffered, n);
      buffered += n;
      position += n;
      off += n;
      len -= n;
    }
  }

  @Override
  public long getPos() {
    return position;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    // The content's last bytes stay in the buffer once staged: a Parquet footer is read from them.
    written.upload(name, position, overwrite, buffer, buffered, () -> {
      if (blockIds.isEmpty()) {
        return writer.put(Arrays.copyOf(buffer, buffered), overwrite);
      }
      if (buffered > 0) {
        stageBuffer();
      }
      return writer.commit(blockIds, overwrite);
    });
  }

  private void stageBuffer() throws IOException {
    // Ids must have equal length within a blob; the upload id makes them unique to this upload,
    // which is what an ambiguous commit is checked against.
    String raw = uploadId + "-" + String.format("%06d", blockIds.size());
    String id = Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    writer.stageBlock(id, buffer, buffered);
    blockIds.add(id);
    buffered = 0;
  }

  private void reserve(int n) {
    if (buffered + n > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.min(BLOCK_SIZE, Math.max(buffer.length * 2, buffered + n)));
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("Stream already closed");
    }
  }
}
