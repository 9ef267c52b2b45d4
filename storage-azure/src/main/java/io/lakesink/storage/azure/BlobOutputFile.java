package io.lakesink.storage.azure;

import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A blob to write: data files through {@link #create}, log files through {@link #writeAtomically}. */
final class BlobOutputFile implements OutputFile {
  private final BlobWriter writer;
  private final String path;
  private final WrittenBlobs written;
  private final String name;

  /** @param written where each finished write is noted, under the blob's {@code name} */
  BlobOutputFile(BlobWriter writer, String path, WrittenBlobs written, String name) {
    this.writer = writer;
    this.path = path;
    this.written = written;
    this.name = name;
  }

  @Override
  public String path() {
    return path;
  }

  /**
   * Every blob write is atomic on Azure. With {@code atomicWrite} the write is also put-if-absent,
   * as in Kernel's Hadoop implementation (write to a temporary name, rename without overwrite): a
   * checkpoint another writer already wrote is not replaced under its readers.
   */
  @Override
  public PositionOutputStream create(boolean atomicWrite) {
    return new BlockUploadStream(writer, !atomicWrite, written, name);
  }

  /**
   * Lines joined with '\n' after each, as Delta's log stores write them; with {@code overwrite}
   * false this is the commit of a Delta version: put-if-absent, FileAlreadyExistsException when
   * another writer got there first.
   */
  @Override
  public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    try (data) {
      while (data.hasNext()) {
        content.write(data.next().getBytes(StandardCharsets.UTF_8));
        content.write('\n');
      }
    }
    byte[] bytes = content.toByteArray();
    written.upload(name, bytes.length, overwrite, null, 0, () -> writer.put(bytes, overwrite));
  }
}
