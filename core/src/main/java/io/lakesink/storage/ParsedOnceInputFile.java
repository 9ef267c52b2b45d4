package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopInputFile;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/**
 * A file Kernel reads, which hands Parquet a Hadoop configuration parsed once per process.
 *
 * <p>Kernel gives Parquet's reader the configuration of a {@link HadoopInputFile}, and a fresh
 * {@code new Configuration()} for any other kind of file. A fresh one parses Hadoop's
 * {@code core-default.xml} at its first lookup: about 2–3 ms of CPU and a few MB of garbage for
 * every Parquet file opened (a checkpoint at each snapshot load, every file a merge, a follow of
 * the kept table or a vacuum reads), which profiling found to be most of a kept table's follow
 * and half of a small-commit writer's CPU. So our files extend Kernel's Hadoop file (a public,
 * non-final class whose only other use is that check) without a Hadoop file system behind them:
 * subclasses answer {@code length}, {@code path} and {@code newStream} themselves, and
 * {@link #configuration} is a copy of one parsed configuration (about 0.05 ms), a copy so that a
 * reader setting a value cannot change another's.
 */
public abstract class ParsedOnceInputFile extends HadoopInputFile {
  private static final Configuration PARSED = parsed();

  /** The file system and path Kernel's class would use are never read: every method using them is overridden. */
  protected ParsedOnceInputFile() {
    super(null, null, -1);
  }

  @Override
  public final Configuration configuration() {
    return new Configuration(PARSED);
  }

  /** A copy of the parsed configuration, for a Parquet reader that is not handed one of these files. */
  public static Configuration parsedCopy() {
    return new Configuration(PARSED);
  }

  // Re-declared abstract: Kernel's versions would use the file system this class does not have.
  @Override
  public abstract long length() throws IOException;

  @Override
  public abstract String path();

  @Override
  public abstract SeekableInputStream newStream() throws IOException;

  private static Configuration parsed() {
    Configuration conf = new Configuration();
    conf.size(); // parses the default resources now, once
    return conf;
  }
}
