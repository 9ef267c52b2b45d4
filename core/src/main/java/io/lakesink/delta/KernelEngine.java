package io.lakesink.delta;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the Kernel engine for a storage. Kernel's Parquet writer reads its settings from
 * {@link FileIO#getConf}, and without them writes uncompressed files; this is where lakesink
 * sets them, whatever the storage.
 */
public final class KernelEngine {
  private KernelEngine() {}

  /** Parquet settings lakesink writes with: zstd, 128 MB files. */
  static final Map<String, String> PARQUET_SETTINGS =
      Map.of(
          "parquet.compression", "ZSTD",
          "delta.kernel.default.parquet.writer.targetMaxFileSize", String.valueOf(128L << 20));

  public static Engine create(TableStorage storage) {
    return DefaultEngine.create(new ConfiguredFileIO(storage.fileIO(), PARQUET_SETTINGS));
  }

  /** Delegates every call, answering {@code getConf} from our settings first. */
  private record ConfiguredFileIO(FileIO delegate, Map<String, String> settings) implements FileIO {
    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
      return delegate.listFrom(filePath);
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
      return delegate.getFileStatus(path);
    }

    @Override
    public String resolvePath(String path) throws IOException {
      return delegate.resolvePath(path);
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
      return delegate.mkdirs(path);
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
      return delegate.newInputFile(path, fileSize);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      return delegate.newOutputFile(path);
    }

    @Override
    public boolean delete(String path) throws IOException {
      return delegate.delete(path);
    }

    @Override
    public Optional<String> getConf(String confKey) {
      String value = settings.get(confKey);
      return value != null ? Optional.of(value) : delegate.getConf(confKey);
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
        throws IOException {
      delegate.copyFileAtomically(srcPath, destPath, overwrite);
    }
  }
}
