package io.lakesink.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.util.VectorUtils;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** Reads the JSON statistics Delta keeps per file ({@code numRecords}, {@code minValues}, …). */
final class FileStats {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FileStats() {}

  static TableFile of(AddFile add, Row scanRow) {
    long rows = -1;
    Map<String, Object> min = Map.of();
    Map<String, Object> max = Map.of();
    if (add.getStatsJson().isPresent()) {
      try {
        JsonNode stats = JSON.readTree(add.getStatsJson().get());
        rows = stats.path("numRecords").asLong(-1);
        min = values(stats.path("minValues"));
        max = values(stats.path("maxValues"));
      } catch (IOException e) {
        // Unreadable statistics only cost pruning: the file is treated as holding anything.
      }
    }
    Map<String, String> partitions = new HashMap<>(VectorUtils.<String, String>toJavaMap(add.getPartitionValues()));
    long deleted = add.getDeletionVector().map(dv -> dv.getCardinality()).orElse(0L);
    return new TableFile(add.getPath(), add.getSize(), rows, deleted, min, max, partitions,
        add.getDeletionVector().isPresent(), scanRow, add.getStatsJson().orElse(null));
  }

  /**
   * A file's statistics with a deletion vector and, when taken over by another table, as that
   * table's: {@code numRecords}, and of {@code minValues}, {@code maxValues} and {@code nullCount}
   * only {@code columns} (null: all); {@code tightBounds: false} unless {@code tight} (the bounds
   * may be wider than the live rows'). Unreadable ones are kept as they are (readers ignore what
   * they cannot parse); null stays null.
   */
  static String restricted(String stats, java.util.Set<String> columns, boolean tight) {
    if (stats == null) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(stats);
      if (!(node instanceof com.fasterxml.jackson.databind.node.ObjectNode o)) {
        return stats;
      }
      for (String part : columns == null ? java.util.List.<String>of() : java.util.List.of("minValues", "maxValues", "nullCount")) {
        if (o.get(part) instanceof com.fasterxml.jackson.databind.node.ObjectNode values) {
          values.retain(columns);
        }
      }
      if (!tight) {
        o.put("tightBounds", false);
      }
      return JSON.writeValueAsString(o);
    } catch (IOException e) {
      return stats;
    }
  }

  private static Map<String, Object> values(JsonNode node) {
    Map<String, Object> m = new HashMap<>();
    node.fields().forEachRemaining(e -> {
      JsonNode v = e.getValue();
      if (v.isIntegralNumber()) {
        m.put(e.getKey(), v.longValue());
      } else if (v.isNumber()) {
        m.put(e.getKey(), v.doubleValue());
      } else if (v.isBoolean()) {
        m.put(e.getKey(), v.booleanValue());
      } else if (v.isTextual()) {
        m.put(e.getKey(), v.textValue());
      }
    });
    return m;
  }
}
