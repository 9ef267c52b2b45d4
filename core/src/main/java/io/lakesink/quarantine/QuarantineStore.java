package io.lakesink.quarantine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.TableStorage;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Quarantine records as small JSON files at {@code <prefix>/_lakesink/quarantine/<table>.json},
 * beside the tables in the same storage. Delta readers and vacuum ignore names starting with
 * {@code _}.
 */
public final class QuarantineStore {
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(new JavaTimeModule()).disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final FileIO io;
  private final String directory;

  public QuarantineStore(TableStorage storage) {
    this.io = storage.fileIO();
    this.directory = storage.tableLocation("_lakesink") + "/quarantine";
  }

  public String location(String table) {
    return directory + "/" + table + ".json";
  }

  public Optional<QuarantineRecord> load(String table) {
    try {
      long size = io.getFileStatus(location(table)).getSize();
      return Optional.of(read(io.newInputFile(location(table), size)));
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot read the quarantine record of " + table + " at " + location(table), e);
    }
  }

  public void save(QuarantineRecord record) {
    try {
      io.mkdirs(directory);
      String json = JSON.writeValueAsString(record);
      io.newOutputFile(location(record.table()))
          .writeAtomically(singleLine(json), true);
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot write the quarantine record of " + record.table() + " at " + location(record.table()), e);
    }
  }

  /** Deletes the record; returns whether there was one. */
  public boolean release(String table) {
    try {
      if (load(table).isEmpty()) {
        return false;
      }
      return io.delete(location(table));
    } catch (IOException e) {
      throw new RetryableException("Cannot delete the quarantine record of " + table + " at " + location(table), e);
    }
  }

  public List<QuarantineRecord> list() {
    List<QuarantineRecord> records = new ArrayList<>();
    // listFrom lists a directory from a name on: "0" sorts before every table name.
    try (CloseableIterator<FileStatus> files = io.listFrom(directory + "/0")) {
      while (files.hasNext()) {
        FileStatus f = files.next();
        if (f.getPath().endsWith(".json")) {
          records.add(read(io.newInputFile(f.getPath(), f.getSize())));
        }
      }
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return records;
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot list quarantine records under " + directory, e);
    }
    return records;
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

  private static QuarantineRecord read(InputFile file) throws IOException {
    try (InputStream in = file.newStream()) {
      return JSON.readValue(in, QuarantineRecord.class);
    }
  }
}
