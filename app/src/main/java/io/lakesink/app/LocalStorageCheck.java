package io.lakesink.app;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.util.List;
import java.util.NoSuchElementException;

/** The connection test for storages without one of their own: write and delete a small file. */
final class LocalStorageCheck {
  private LocalStorageCheck() {}

  static void run(TableStorage storage) throws IOException {
    FileIO io = storage.fileIO();
    String file = storage.tableLocation("lakesink-test.txt");
    io.mkdirs(file.substring(0, file.lastIndexOf('/')));
    Iterable<String> lines = List.of("lakesink connection test");
    var it = lines.iterator();
    io.newOutputFile(file).writeAtomically(new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public String next() {
        if (!it.hasNext()) {
          throw new NoSuchElementException();
        }
        return it.next();
      }

      @Override
      public void close() {}
    }, true);
    if (!io.delete(file)) {
      throw new IOException("could not delete " + file);
    }
  }
}
