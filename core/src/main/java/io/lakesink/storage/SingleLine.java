package io.lakesink.storage;

import io.delta.kernel.utils.CloseableIterator;
import java.util.NoSuchElementException;

/**
 * One line of text as Kernel's {@code writeAtomically} takes its content (an iterator of lines;
 * it adds the newline): how lakesink writes small files put-if-absent, state files and Iceberg
 * metadata alike.
 */
public final class SingleLine {
  private SingleLine() {}

  public static CloseableIterator<String> of(String text) {
    return new CloseableIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public String next() {
        if (done) {
          throw new NoSuchElementException();
        }
        done = true;
        return text;
      }

      @Override
      public void close() {}
    };
  }
}
