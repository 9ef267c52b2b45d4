package io.lakesink.maintenance;

import io.lakesink.delta.TableFile;
import java.util.List;

/** How many data files a table holds and their total size. */
public record FileSizes(long files, long bytes) {
  static FileSizes of(List<TableFile> files) {
    return new FileSizes(files.size(), files.stream().mapToLong(TableFile::size).sum());
  }

  FileSizes minus(long removedFiles, long removedBytes) {
    return new FileSizes(files - removedFiles, bytes - removedBytes);
  }

  FileSizes plus(long addedFiles, long addedBytes) {
    return new FileSizes(files + addedFiles, bytes + addedBytes);
  }

  @Override
  public String toString() {
    return files + " files, " + bytes + " bytes";
  }
}
