package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import java.nio.file.Path;

/**
 * Tables in a local directory, {@code <path>/<prefix>/<table>}, which may be shared by several
 * workers (a network file system): {@link LocalFileIO} commits with put-if-absent across
 * processes.
 */
public final class LocalStorage implements TableStorage {
  private final Path root;
  private final FileIO fileIO;

  public LocalStorage(Path path, String prefix) {
    this.root = prefix.isEmpty() ? path.toAbsolutePath() : path.toAbsolutePath().resolve(prefix);
    this.fileIO = new LocalFileIO();
  }

  /** {@code file:/dir/table}, unescaped: the form Kernel and Hadoop paths use. */
  @Override
  public String tableLocation(String tableName) {
    return LocalFileIO.uri(root.resolve(tableName).normalize());
  }

  @Override
  public FileIO fileIO() {
    return fileIO;
  }

  @Override
  public String describe() {
    return "local directory " + root;
  }
}
