package io.lakesink.iceberg;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's file access over the storage lakesink writes the Delta table with (the Kernel
 * {@code FileIO} of the table's engine: local disk or Azure Blob/ADLS), so that Iceberg metadata,
 * manifests and delete files go wherever the table is, with the same credentials, retries and
 * atomic writes, and without Hadoop's FileSystem.
 *
 * <p>{@link OutputFile#create()} is put-if-absent (the name must be new; a conflict shows when the
 * stream closes), {@link OutputFile#createOrOverwrite()} replaces.
 */
public final class StorageFileIO implements FileIO {
  private static final long serialVersionUID = 1L;

  // Not serializable (Iceberg's FileIO is, for Spark tasks); lakesink never ships it anywhere.
  private final transient io.delta.kernel.defaults.engine.fileio.FileIO storage;

  public StorageFileIO(io.delta.kernel.defaults.engine.fileio.FileIO storage) {
    this.storage = storage;
  }

  @Override
  public InputFile newInputFile(String path) {
    return newInputFile(path, -1);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new In(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new Out(path);
  }

  @Override
  public void deleteFile(String path) {
    try {
      storage.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + path, e);
    }
  }

  /** True when the file exists; other failures are thrown. */
  boolean exists(String path) {
    try {
      storage.getFileStatus(path);
      return true;
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("looking up " + path, e);
    }
  }

  private final class In implements InputFile {
    private final String path;
    private final long knownLength;

    In(String path, long knownLength) {
      this.path = path;
      this.knownLength = knownLength;
    }

    @Override
    public long getLength() {
      if (knownLength >= 0) {
        return knownLength;
      }
      try {
        return storage.newInputFile(path, -1).length();
      } catch (FileNotFoundException e) {
        throw new NotFoundException(e, "File does not exist: %s", path);
      } catch (IOException e) {
        throw new UncheckedIOException("reading the length of " + path, e);
      }
    }

    @Override
    public SeekableInputStream newStream() {
      try {
        return new Stream(storage.newInputFile(path, knownLength).newStream());
      } catch (FileNotFoundException e) {
        throw new NotFoundException(e, "File does not exist: %s", path);
      } catch (IOException e) {
        throw new UncheckedIOException("opening " + path, e);
      }
    }

    @Override
    public String location() {
      return path;
    }

    @Override
    public boolean exists() {
      return StorageFileIO.this.exists(path);
    }
  }

  private final class Out implements OutputFile {
    private final String path;

    Out(String path) {
      this.path = path;
    }

    @Override
    public PositionOutputStream create() {
      return open(true);
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return open(false);
    }

    /** Kernel's {@code create(true)} publishes the file whole at close, and only if the name is new. */
    private PositionOutputStream open(boolean putIfAbsent) {
      try {
        return new Output(storage.newOutputFile(path).create(putIfAbsent));
      } catch (IOException e) {
        throw new UncheckedIOException("creating " + path, e);
      }
    }

    @Override
    public String location() {
      return path;
    }

    @Override
    public InputFile toInputFile() {
      return newInputFile(path);
    }
  }

  private static final class Stream extends SeekableInputStream {
    private final io.delta.kernel.defaults.engine.fileio.SeekableInputStream in;

    Stream(io.delta.kernel.defaults.engine.fileio.SeekableInputStream in) {
      this.in = in;
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      in.seek(newPos);
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    public long skip(long n) throws IOException {
      return in.skip(n);
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  private static final class Output extends PositionOutputStream {
    private final io.delta.kernel.defaults.engine.fileio.PositionOutputStream out;

    Output(io.delta.kernel.defaults.engine.fileio.PositionOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
