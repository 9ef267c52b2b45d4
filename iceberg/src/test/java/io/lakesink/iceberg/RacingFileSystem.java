package io.lakesink.iceberg;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * The local file system, which runs a test's action once, just before a sync writes the
 * metadata file it is about to commit: another process's sync then commits first, at the
 * exact point where two syncs race, without timing.
 */
public final class RacingFileSystem extends RawLocalFileSystem {
  static final AtomicReference<Runnable> BEFORE_METADATA_WRITE = new AtomicReference<>();

  /** A Hadoop configuration whose {@code file:} paths go through this class. */
  static Configuration configuration() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", RacingFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  @Override
  public FSDataOutputStream create(Path f, boolean overwrite, int bufferSize, short replication, long blockSize,
      Progressable progress) throws IOException {
    beforeWrite(f);
    return super.create(f, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize, short replication,
      long blockSize, Progressable progress) throws IOException {
    beforeWrite(f);
    return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  private static void beforeWrite(Path f) {
    if (f.getName().endsWith(".metadata.json")) {
      Runnable action = BEFORE_METADATA_WRITE.getAndSet(null);
      if (action != null) {
        action.run();
      }
    }
  }
}
