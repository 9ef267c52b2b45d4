package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** A table's columns as Unity Catalog {@code ColumnInfo} objects, for {@code POST /tables}. */
final class ColumnInfos {
  private ColumnInfos() {}

  static ArrayNode of(CatalogTable table) {
    ArrayNode columns = Json.MAPPER.createArrayNode();
    List<Column> all = table.columns();
    for (int position = 0; position < all.size(); position++) {
      Column column = all.get(position);
      ColumnType type = column.type();
      ObjectNode info = columns.addObject();
      info.put("name", column.name());
      info.put("type_name", SparkTypes.typeName(type));
      info.put("type_text", type.sqlName());
      info.put("type_json", SparkTypes.structField(column));
      if (type.kind() == ColumnType.Kind.DECIMAL) {
        info.put("type_precision", type.precision());
        info.put("type_scale", type.scale());
      }
      info.put("position", position);
      info.put("nullable", true);
      int partitionIndex = partitionIndex(table, column.name());
      if (partitionIndex >= 0) {
        info.put("partition_index", partitionIndex);
      }
    }
    for (String partition : table.partitionColumns()) {
      if (all.stream().noneMatch(c -> c.name().equals(partition))) {
        throw new IllegalArgumentException(
            "Partition column " + partition + " of table " + table.name() + " is not among its columns");
      }
    }
    return columns;
  }

  /** Our columns in the shape {@link ColumnDiff} compares. */
  static List<RegisteredColumn> expected(CatalogTable table) {
    List<RegisteredColumn> result = new ArrayList<>();
    for (Column column : table.columns()) {
      int index = partitionIndex(table, column.name());
      result.add(new RegisteredColumn(column.name(), column.type().sqlName(), index >= 0 ? index : null));
    }
    return result;
  }

  /** The columns of a registration as Unity Catalog returns them, in position order. */
  static List<RegisteredColumn> registered(JsonNode tableInfo) {
    List<JsonNode> nodes = new ArrayList<>();
    tableInfo.path("columns").forEach(nodes::add);
    nodes.sort(Comparator.comparingInt(n -> n.path("position").asInt(Integer.MAX_VALUE)));
    List<RegisteredColumn> result = new ArrayList<>();
    for (JsonNode node : nodes) {
      String type =
          SparkTypes.sqlText(
              Json.text(node, "type_text"),
              Json.text(node, "type_name"),
              node.path("type_precision").asInt(0),
              node.path("type_scale").asInt(0));
      JsonNode partition = node.path("partition_index");
      result.add(
          new RegisteredColumn(
              String.valueOf(Json.text(node, "name")),
              type,
              partition.isNumber() ? partition.asInt() : null));
    }
    return result;
  }

  private static int partitionIndex(CatalogTable table, String column) {
    List<String> partitions = table.partitionColumns();
    for (int i = 0; i < partitions.size(); i++) {
      if (partitions.get(i).toLowerCase(Locale.ROOT).equals(column.toLowerCase(Locale.ROOT))) {
        return i;
      }
    }
    return -1;
  }
}
