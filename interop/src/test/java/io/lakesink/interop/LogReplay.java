package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Replays a Delta log's JSON commits by the protocol's rules (no Delta library involved) and checks
 * each version checksum ({@code N.crc}) against the replayed state: metadata, protocol, number
 * and total size of files. Needs every JSON commit from version 0, which lakesink keeps (no log
 * cleanup in these tests).
 */
final class LogReplay {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LogReplay() {}

  static void assertChecksumsMatchLog(Path log) throws IOException {
    List<Path> commits;
    try (Stream<Path> files = Files.list(log)) {
      commits = files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
    }
    assertTrue(!commits.isEmpty(), "commits in " + log);
    JsonNode metadata = null;
    JsonNode protocol = null;
    Map<String, Long> files = new HashMap<>();
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (int v = 0; v < commits.size(); v++) {
      Path commit = log.resolve(String.format("%020d.json", v));
      assertTrue(Files.exists(commit), "commit " + v + " present in " + log);
      for (String line : Files.readAllLines(commit)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode action = JSON.readTree(line);
        if (action.has("metaData")) {
          metadata = action.get("metaData");
        } else if (action.has("protocol")) {
          protocol = action.get("protocol");
        } else if (action.has("add")) {
          files.put(action.get("add").get("path").asText(), action.get("add").get("size").asLong());
        } else if (action.has("remove")) {
          files.remove(action.get("remove").get("path").asText());
        }
      }
      Path crc = log.resolve(String.format("%020d.crc", v));
      if (!Files.exists(crc)) {
        continue;
      }
      checked++;
      JsonNode sum = JSON.readTree(crc.toFile());
      String at = log.getParent().getFileName() + " " + crc.getFileName();
      for (String field : List.of("id", "schemaString", "partitionColumns", "configuration")) {
        if (!sum.path("metadata").path(field).equals(metadata.path(field))) {
          problems.add(at + ": metadata." + field + " is " + abbreviate(sum.path("metadata").path(field))
              + " but the log's metaData at version " + v + " has " + abbreviate(metadata.path(field)));
        }
      }
      if (!sum.path("protocol").equals(protocol)) {
        problems.add(at + ": protocol " + sum.path("protocol") + " but the log has " + protocol);
      }
      if (sum.path("numFiles").asLong() != files.size()) {
        problems.add(at + ": numFiles " + sum.path("numFiles") + " but the log has " + files.size());
      }
      long size = files.values().stream().mapToLong(Long::longValue).sum();
      if (sum.path("tableSizeBytes").asLong() != size) {
        problems.add(at + ": tableSizeBytes " + sum.path("tableSizeBytes") + " but the log's files add up to " + size);
      }
    }
    if (!problems.isEmpty()) {
      fail("Version checksums disagree with the Delta log (" + checked + " checked):\n  " + String.join("\n  ", problems));
    }
  }

  private static String abbreviate(JsonNode n) {
    String s = n.isTextual() ? n.textValue() : n.toString();
    if (s.length() <= 160) {
      return s;
    }
    // Schemas differ at their end when columns were added: show the tail.
    return "…" + s.substring(s.length() - 150);
  }
}
