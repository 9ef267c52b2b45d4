package io.lakesink.delta;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.engine.Engine;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.TableStorage;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the Kernel engine for a storage. Kernel's Parquet writer reads its settings from
 * {@link FileIO#getConf}, and without them writes uncompressed files; this is where lakesink
 * sets them, whatever the storage. Log listings go through {@link ConsistentLogListing}, so that a
 * listing racing another writer is never taken for a damaged log.
 */
public final class KernelEngine {
  private KernelEngine() {}

  /**
   * Parquet settings lakesink writes with: zstd, 128 MB files, no dictionary encoding. Building a
   * dictionary for every column, and falling back from it for the many that are nearly unique
   * (ids, timestamps, amounts: a change stream's columns), was about a quarter of the CPU of
   * writing a file (docs/performance.md, issue 29); zstd recovers most of what a dictionary saves
   * on the repetitive ones (+18 % bytes on the benchmark's table). Plain encoding is what every
   * Parquet reader reads. Kernel passes no zstd level through (its default, 3, stays).
   */
  static final Map<String, String> PARQUET_SETTINGS =
      Map.of(
          "parquet.compression", "ZSTD",
          "parquet.enable.dictionary", "false",
          "delta.kernel.default.parquet.writer.targetMaxFileSize", String.valueOf(128L << 20));

  public static Engine create(TableStorage storage) {
    return new StorageEngine(new ConfiguredFileIO(new ConsistentLogListing(storage.fileIO()), PARQUET_SETTINGS));
  }

  /**
   * Kernel's default engine that also hands out its {@link FileIO}: Kernel's engine interfaces
   * write only Parquet and JSON, and a deletion vector file is neither ({@link DeletionVectorFile}).
   */
  static final class StorageEngine extends DefaultEngine {
    private final FileIO fileIO;

    StorageEngine(FileIO fileIO) {
      super(fileIO);
      this.fileIO = fileIO;
    }

    FileIO fileIO() {
      return fileIO;
    }
  }

  /** Answers {@code getConf} from our settings first; everything else goes to the storage. */
  private static final class ConfiguredFileIO extends ForwardingFileIO {
    private final Map<String, String> settings;

    ConfiguredFileIO(FileIO delegate, Map<String, String> settings) {
      super(delegate);
      this.settings = settings;
    }

    @Override
    public Optional<String> getConf(String confKey) {
      String value = settings.get(confKey);
      return value != null ? Optional.of(value) : super.getConf(confKey);
    }
  }
}
