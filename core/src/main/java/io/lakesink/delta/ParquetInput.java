package io.lakesink.delta;

import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;

/** One of Kernel's input files (our storage's) as parquet-mr's: what {@link PageColumns} opens. */
final class ParquetInput implements InputFile {
  private final io.delta.kernel.defaults.engine.fileio.InputFile file;

  ParquetInput(io.delta.kernel.defaults.engine.fileio.InputFile file) {
    this.file = file;
  }

  @Override
  public long getLength() throws IOException {
    return file.length();
  }

  @Override
  public org.apache.parquet.io.SeekableInputStream newStream() throws IOException {
    SeekableInputStream in = file.newStream();
    return new DelegatingSeekableInputStream(in) {
      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }
    };
  }

  @Override
  public String toString() {
    return file.path();
  }
}
