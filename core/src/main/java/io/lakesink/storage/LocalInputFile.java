package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file to read with explicit ranges (Parquet footers and column chunks), on a {@link
 * FileChannel}. Unbuffered: Kernel reads JSON through a BufferedReader and Parquet in ranges.
 * Parquet reads it with the configuration parsed once ({@link ParsedOnceInputFile}).
 */
final class LocalInputFile extends ParsedOnceInputFile {
  private final Path file;
  private final String uri;
  private final long knownSize;

  /** {@code size} is -1 when the caller does not know it. */
  LocalInputFile(Path file, String uri, long size) {
    this.file = file;
    this.uri = uri;
    this.knownSize = size;
  }

  @Override
  public long length() throws IOException {
    if (knownSize >= 0) {
      return knownSize;
    }
    try {
      return Files.size(file);
    } catch (NoSuchFileException e) {
      throw LocalFileIO.notFound(uri, e);
    }
  }

  @Override
  public String path() {
    return uri;
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    try {
      return new Input(FileChannel.open(file, StandardOpenOption.READ));
    } catch (NoSuchFileException e) {
      throw LocalFileIO.notFound(uri, e);
    }
  }

  private static final class Input extends SeekableInputStream {
    private final FileChannel channel;
    private final ByteBuffer oneByte = ByteBuffer.allocate(1);

    Input(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public int read() throws IOException {
      oneByte.clear();
      int n;
      do {
        n = channel.read(oneByte);
      } while (n == 0);
      return n < 0 ? -1 : oneByte.get(0) & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      return channel.read(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
      while (buffer.hasRemaining()) {
        if (channel.read(buffer) < 0) {
          throw new EOFException(
              "reached the end of the file with " + buffer.remaining() + " of " + len + " bytes left to read");
        }
      }
    }

    @Override
    public long skip(long n) throws IOException {
      if (n <= 0) {
        return 0;
      }
      long position = channel.position();
      long skipped = Math.min(n, Math.max(0, channel.size() - position));
      channel.position(position + skipped);
      return skipped;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(Integer.MAX_VALUE, Math.max(0, channel.size() - channel.position()));
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0) {
        throw new EOFException("cannot seek to a negative position: " + newPos);
      }
      channel.position(newPos);
    }

    @Override
    public long getPos() throws IOException {
      return channel.position();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
