package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Column names of a fake Unity Catalog entry, in order. */
final class UnityCatalogColumns {
  private UnityCatalogColumns() {}

  static List<String> names(JsonNode table) {
    List<String> names = new ArrayList<>();
    table.path("columns").forEach(c -> names.add(c.path("name").asText()));
    return names;
  }
}
