package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/**
 * Tables in a local directory, {@code <path>/<prefix>/<table>}. Uses Kernel's Hadoop file I/O,
 * whose local log store writes {@code _delta_log/N.json} with put-if-absent semantics.
 */
public final class LocalStorage implements TableStorage {
  private final Path root;
  private final FileIO fileIO;

  public LocalStorage(Path path, String prefix) {
    this.root = prefix.isEmpty() ? path.toAbsolutePath() : path.toAbsolutePath().resolve(prefix);
    this.fileIO = new HadoopFileIO(new Configuration());
  }

  @Override
  public String tableLocation(String tableName) {
    return root.resolve(tableName).toUri().toString().replaceAll("/$", "");
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
