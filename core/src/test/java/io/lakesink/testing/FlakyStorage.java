package io.lakesink.testing;

import io.delta.kernel.utils.FileStatus;
import io.lakesink.error.ConfigurationException;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.storage.ForwardingFileIO;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** Local storage whose Delta commits (writes of {@code _delta_log/N.json}) fail on demand. */
public final class FlakyStorage implements TableStorage {
  public enum Fault {
    /** The commit file is not written and the write reports an I/O error. */
    FAIL_BEFORE_WRITE,
    /** The commit file is written, then the write reports an I/O error (an ambiguous result). */
    FAIL_AFTER_WRITE,
    /** A bug-like failure no retry can fix. */
    BROKEN,
    /** Storage refuses the worker's credentials (a 403 during a run). */
    UNAUTHORIZED
  }

  private final LocalStorage local;
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private volatile Fault fault = Fault.FAIL_BEFORE_WRITE;
  private final AtomicInteger commitWrites = new AtomicInteger();
  private final AtomicInteger listingFailuresLeft = new AtomicInteger();
  private volatile boolean quarantineWritesFail;

  public FlakyStorage(Path dir) {
    this.local = new LocalStorage(dir, "lakesink");
  }

  /** The next {@code count} commit writes fail with {@code fault}. */
  public void failNextCommits(int count, Fault fault) {
    this.fault = fault;
    failuresLeft.set(count);
  }

  /** The next {@code count} listings (every snapshot load starts with one) fail with an I/O error. */
  public void failNextListings(int count) {
    listingFailuresLeft.set(count);
  }

  /** While set, writing a quarantine record fails with a runtime error of the storage client. */
  public void failQuarantineWrites(boolean fail) {
    quarantineWritesFail = fail;
  }

  public int commitWrites() {
    return commitWrites.get();
  }

  @Override
  public String tableLocation(String tableName) {
    return local.tableLocation(tableName);
  }

  @Override
  public String describe() {
    return "flaky " + local.describe();
  }

  @Override
  public FileIO fileIO() {
    return new ForwardingFileIO(local.fileIO()) {
      @Override
      public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        if (listingFailuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          throw new IOException("injected: storage unavailable (503) while listing " + filePath);
        }
        return super.listFrom(filePath);
      }

      @Override
      public OutputFile newOutputFile(String p) {
        OutputFile out = super.newOutputFile(p);
        if (quarantineWritesFail && p.contains("/_lakesink/quarantine/")) {
          throw new IllegalStateException("injected: storage client failure writing " + p);
        }
        if (!p.matches(".*/_delta_log/\\d+\\.json")) {
          return out;
        }
        return new OutputFile() {
          @Override
          public String path() {
            return out.path();
          }

          @Override
          public PositionOutputStream create(boolean atomic) throws IOException {
            return out.create(atomic);
          }

          @Override
          public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
            commitWrites.incrementAndGet();
            boolean failing = failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            if (failing && fault == Fault.FAIL_BEFORE_WRITE) {
              throw new IOException("injected: storage unavailable (503)");
            }
            if (failing && fault == Fault.UNAUTHORIZED) {
              throw new ConfigurationException("injected: storage refused the credentials (HTTP 403 AuthorizationFailure)");
            }
            if (failing && fault == Fault.BROKEN) {
              throw new IllegalStateException("injected: broken storage client");
            }
            out.writeAtomically(data, overwrite);
            if (failing) {
              throw new IOException("injected: connection reset after the write");
            }
          }
        };
      }
    };
  }
}
