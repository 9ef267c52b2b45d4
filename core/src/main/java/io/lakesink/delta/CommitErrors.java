package io.lakesink.delta;

import io.delta.kernel.exceptions.CommitStateUnknownException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.lakesink.error.ErrorKind;
import io.lakesink.error.LakesinkException;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Classifies what a Delta write can throw into lakesink's {@link ErrorKind}s. */
public final class CommitErrors {
  private CommitErrors() {}

  public static ErrorKind classify(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof LakesinkException e) {
        return e.kind();
      }
      if (c instanceof ConcurrentWriteException // another writer won (includes txn conflicts)
          || c instanceof CommitStateUnknownException // I/O failed mid-commit: read back
          || c instanceof MaxCommitRetryLimitReachedException
          || c instanceof IOException
          || c instanceof UncheckedIOException) {
        return ErrorKind.RETRYABLE;
      }
    }
    return ErrorKind.TABLE_FAILURE;
  }
}
