package io.lakesink.storage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.error.RetryableException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * lakesink's own per-table state (quarantine records, migration and hand-off journals) as small
 * JSON files at {@code <prefix>/_lakesink/<kind>/<table>.json}, beside the tables in the same
 * storage: the state belongs with the data it describes, so whichever worker picks a table up
 * sees it. Delta readers and vacuum ignore names starting with {@code _}. Storage failures are
 * {@link RetryableException}s naming the file.
 */
public final class StateFiles<T> {
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(new JavaTimeModule()).disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final FileIO io;
  private final String directory;
  private final Class<T> type;
  private final String what;

  /**
   * @param kind the directory under {@code _lakesink}
   * @param what how messages name one file, e.g. "quarantine record"
   */
  public StateFiles(TableStorage storage, String kind, Class<T> type, String what) {
    this.io = storage.fileIO();
    this.directory = storage.tableLocation("_lakesink") + "/" + kind;
    this.type = type;
    this.what = what;
  }

  public String location(String table) {
    return directory + "/" + table + ".json";
  }

  public Optional<T> load(String table) {
    try {
      long size = io.getFileStatus(location(table)).getSize();
      return Optional.of(read(io.newInputFile(location(table), size)));
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot read the " + what + " of " + table + " at " + location(table), e);
    }
  }

  /** Replaces the table's file atomically: a reader sees the previous value or this one. */
  public void save(String table, T value) {
    try {
      io.mkdirs(directory);
      io.newOutputFile(location(table)).writeAtomically(SingleLine.of(JSON.writeValueAsString(value)), true);
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot write the " + what + " of " + table + " at " + location(table), e);
    }
  }

  /** Deletes the table's file; returns whether there was one. */
  public boolean delete(String table) {
    try {
      if (load(table).isEmpty()) {
        return false;
      }
      return io.delete(location(table));
    } catch (IOException e) {
      throw new RetryableException("Cannot delete the " + what + " of " + table + " at " + location(table), e);
    }
  }

  /** Every table's value. */
  public List<T> list() {
    List<T> values = new ArrayList<>();
    // listFrom lists a directory from a name on: "0" sorts before every table name.
    try (CloseableIterator<FileStatus> files = io.listFrom(directory + "/0")) {
      while (files.hasNext()) {
        FileStatus f = files.next();
        if (f.getPath().endsWith(".json")) {
          values.add(read(io.newInputFile(f.getPath(), f.getSize())));
        }
      }
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return values;
    } catch (IOException | UncheckedIOException e) {
      throw new RetryableException("Cannot list the " + what + "s under " + directory, e);
    }
    return values;
  }

  private T read(InputFile file) throws IOException {
    try (InputStream in = file.newStream()) {
      return JSON.readValue(in, type);
    }
  }

}
