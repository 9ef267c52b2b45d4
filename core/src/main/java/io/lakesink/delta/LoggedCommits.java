package io.lakesink.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the commits of a table's log did, read from their commit files: who wrote each one
 * ({@code commitInfo.engineInfo}), which transaction identifiers it carried, and whether it
 * changed data. How a derived table lakesink keeps tells another engine's write from its own.
 */
public final class LoggedCommits {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LoggedCommits() {}

  /**
   * @param engineInfo who wrote it, as its {@code commitInfo} says; null without one
   * @param appIds the transaction identifiers it carried
   * @param changesData whether it added or removed a file with {@code dataChange} true
   * @param addedData the files it added with {@code dataChange} true (new rows), as the log spells their paths
   * @param addedOther the files it added with {@code dataChange} false (rows moved, as by an optimize)
   */
  public record LoggedCommit(
      long version, String engineInfo, Set<String> appIds, boolean changesData, Set<String> addedData, Set<String> addedOther) {
    /** Whether lakesink wrote it. */
    public boolean byLakesink() {
      return engineInfo != null && engineInfo.startsWith(DeltaTable.ENGINE_INFO);
    }
  }

  /**
   * The commits after {@code afterVersion}, up to the table's latest, in order. A commit file the
   * log no longer holds (cleaned up after a checkpoint) is left out.
   */
  public static List<LoggedCommit> since(DeltaTable table, long afterVersion) {
    List<LoggedCommit> out = new ArrayList<>();
    FileIO io = table.fileIO();
    for (long v = afterVersion + 1; v <= table.version(); v++) {
      read(io, table.location(), v).ifPresent(out::add);
    }
    return out;
  }

  private static Optional<LoggedCommit> read(FileIO io, String location, long version) {
    String path = location + "/_delta_log/" + String.format("%020d.json", version);
    String engine = null;
    Set<String> appIds = new HashSet<>();
    boolean changes = false;
    Set<String> addedData = new HashSet<>();
    Set<String> addedOther = new HashSet<>();
    try {
      long size = io.getFileStatus(path).getSize();
      try (InputStream in = io.newInputFile(path, size).newStream();
          BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode action = JSON.readTree(line);
          if (action.has("commitInfo")) {
            engine = action.get("commitInfo").path("engineInfo").asText(null);
          } else if (action.has("txn")) {
            appIds.add(action.get("txn").path("appId").asText());
          } else if (action.has("add") || action.has("remove")) {
            JsonNode file = action.has("add") ? action.get("add") : action.get("remove");
            boolean dataChange = file.path("dataChange").asBoolean(true);
            changes |= dataChange;
            if (action.has("add")) {
              (dataChange ? addedData : addedOther).add(file.path("path").asText());
            }
          }
        }
      }
    } catch (FileNotFoundException | NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + path, e);
    }
    return Optional.of(new LoggedCommit(version, engine, appIds, changes, addedData, addedOther));
  }
}
