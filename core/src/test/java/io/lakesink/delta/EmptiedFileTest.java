package io.lakesink.delta;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file whose deletion vector deletes every row, as lakesink left one before it removed such
 * files (or as another engine may): the next merge does not read it and its commit removes it.
 */
class EmptiedFileTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aFileLeftWithAVectorOfAllItsRowsGoesWithTheNextMergeUnread() throws Exception {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    String location = storage.tableLocation("items");
    MergeDelivery d = delivery(storage, location);
    Map<Long, String> expected = new TreeMap<>();
    long offset = 0;
    for (long id = 0; id < 20; id++) { // two files: ids 0-9 and 10-19
      d.accept(event("t", 0, offset++, Operation.CREATE, 1L, row("id", id, "name", "a")));
      expected.put(id, "a");
      if (id == 9) {
        d.flush();
      }
    }
    d.flush();
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), location);
    TableFile first = table.files().stream().filter(f -> Long.valueOf(0).equals(f.min().get("id"))).findFirst().orElseThrow();

    // As lakesink committed it before: the file's add again, naming a vector of all its rows.
    // (Its rows' keys deleted meanwhile, as far as the test's expectations go.)
    long emptied = table.version() + 1;
    DeletionVectorDescriptor all = DeletionVectorFile.write(KernelEngine.create(storage), location,
        List.of(LongStream.range(0, 10).toArray())).get(0);
    ObjectNode add = (ObjectNode) addOf(location, first.path()).deepCopy();
    ObjectNode vector = add.putObject("deletionVector");
    vector.put("storageType", all.getStorageType()).put("pathOrInlineDv", all.getPathOrInlineDv())
        .put("offset", all.getOffset().orElseThrow()).put("sizeInBytes", all.getSizeInBytes()).put("cardinality", all.getCardinality());
    ObjectNode remove = JSON.createObjectNode();
    remove.put("path", add.get("path").asText()).put("deletionTimestamp", System.currentTimeMillis()).put("dataChange", true)
        .put("extendedFileMetadata", true).put("size", add.get("size").asLong());
    remove.set("partitionValues", add.get("partitionValues"));
    Files.writeString(log(location).resolve(String.format("%020d.json", emptied)),
        JSON.writeValueAsString(Map.of("remove", remove)) + "\n" + JSON.writeValueAsString(Map.of("add", add)) + "\n");
    LongStream.range(0, 10).forEach(expected::remove);
    table.refresh();
    TableFile left = table.files().stream().filter(f -> f.path().equals(first.path())).findFirst().orElseThrow();
    assertEquals(0, left.rows(), "no live row: " + left);

    // The next merge, in a worker started afresh: a key within the emptied file's range (its
    // statistics would have it read) and one of the other file.
    MergeDelivery next = delivery(storage, location);
    next.accept(event("t", 0, offset++, Operation.CREATE, 2L, row("id", 5L, "name", "again")));
    next.accept(event("t", 0, offset++, Operation.UPDATE, 2L, row("id", 15L, "name", "b")));
    expected.put(5L, "again");
    expected.put(15L, "b");
    next.flush();
    assertTrue(next.state().delivering(), next.state().toString());

    table.refresh();
    assertFalse(table.files().stream().anyMatch(f -> f.path().equals(first.path())), "the emptied file is gone: " + table.files());
    Map<Long, Object> read = new TreeMap<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(table)) {
      assertEquals(null, read.put((Long) r.get("id"), r.get("name")), "one row per key: " + r);
    }
    assertEquals(expected, read);
    String commit = Files.readString(log(location).resolve(String.format("%020d.json", table.version())));
    assertTrue(commit.lines().anyMatch(l -> l.startsWith("{\"remove\"") && l.contains(add.get("path").asText())), commit);
    assertEquals(1, next.filesRead(), "only the file holding key 15 was read, not the emptied one");
  }

  private static MergeDelivery delivery(LocalStorage storage, String location) {
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    return new MergeDelivery(s, new DeltaTable(KernelEngine.create(storage), location), null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)), MergeSettings.DEFAULT);
  }

  private static Path log(String location) {
    return Path.of(URI.create(location)).resolve("_delta_log");
  }

  /** The add action of {@code path} in the table's JSON commits (the last one naming it). */
  private static JsonNode addOf(String location, String path) throws Exception {
    String name = path.substring(path.lastIndexOf('/') + 1);
    JsonNode found = null;
    try (var commits = Files.list(log(location))) {
      for (Path c : commits.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        for (String line : Files.readAllLines(c)) {
          JsonNode action = JSON.readTree(line);
          if (action.has("add") && action.get("add").get("path").asText().endsWith(name)) {
            found = action.get("add");
          }
        }
      }
    }
    return found;
  }
}
