package io.lakesink.migration;

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
import java.time.Instant;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The step each subscription's MERGE → changelog migration reached, as small JSON files at
 * {@code <prefix>/_lakesink/migration/<table>.json} beside the tables (where quarantine records
 * live too): the migration's state belongs with the data it describes, so any worker that picks
 * the subscription up resumes it. Delta readers and vacuum ignore names starting with {@code _}.
 */
public final class MigrationJournal {
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(new JavaTimeModule()).disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  /**
   * @param table the subscription's (sanitized) table name
   * @param step the last step that took effect
   * @param mergeVersion the MERGE table's version whose rows were copied
   * @param at when the step was recorded
   */
  public record Entry(String table, MigrationStep step, long mergeVersion, Instant at) {}

  private final FileIO io;
  private final String directory;

  public MigrationJournal(TableStorage storage) {
    this.io = storage.fileIO();
    this.directory = storage.tableLocation("_lakesink") + "/migration";
  }

  public String location(String table) {
    return directory + "/" + table + ".json";
  }

  public Optional<Entry> load(String table) {
    try {
      long size = io.getFileStatus(location(table)).getSize();
      try (InputStream in = io.newInputFile(location(table), size).newStream()) {
        return Optional.of(JSON.readValue(in, Entry.class));
      }
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot read the migration journal of " + table + " at " + location(table), e);
    }
  }

  public void save(Entry entry) {
    try {
      io.mkdirs(directory);
      String line = JSON.writeValueAsString(entry);
      io.newOutputFile(location(entry.table())).writeAtomically(single(line), true);
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException(
          "Cannot write the migration journal of " + entry.table() + " at " + location(entry.table()), e);
    }
  }

  private static CloseableIterator<String> single(String line) {
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
        return line;
      }

      @Override
      public void close() {}
    };
  }
}
