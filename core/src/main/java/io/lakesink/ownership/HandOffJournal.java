package io.lakesink.ownership;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.TableStorage;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Hand-off journals as small JSON files at {@code <prefix>/_lakesink/handoff/<table>.json}, beside
 * the tables in the same storage (as the quarantine records): where a crashed hand-off resumes.
 * Delta readers and vacuum ignore names starting with {@code _}.
 */
public final class HandOffJournal {
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(new JavaTimeModule()).disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final FileIO io;
  private final String directory;

  public HandOffJournal(TableStorage storage) {
    this.io = storage.fileIO();
    this.directory = storage.tableLocation("_lakesink") + "/handoff";
  }

  public String location(String table) {
    return directory + "/" + table + ".json";
  }

  public Optional<HandOffRecord> load(String table) {
    try {
      long size = io.getFileStatus(location(table)).getSize();
      try (InputStream in = io.newInputFile(location(table), size).newStream()) {
        return Optional.of(JSON.readValue(in, HandOffRecord.class));
      }
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot read the hand-off journal of " + table + " at " + location(table), e);
    }
  }

  /** Replaces the table's journal atomically: a reader sees the previous step or this one. */
  public void save(HandOffRecord record) {
    try {
      io.mkdirs(directory);
      String json = JSON.writeValueAsString(record);
      io.newOutputFile(location(record.table())).writeAtomically(singleLine(json), true);
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot write the hand-off journal of " + record.table() + " at " + location(record.table()), e);
    }
  }

  private static CloseableIterator<String> singleLine(String line) {
    return new CloseableIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public String next() {
        if (done) {
          throw new java.util.NoSuchElementException();
        }
        done = true;
        return line;
      }

      @Override
      public void close() {}
    };
  }
}
