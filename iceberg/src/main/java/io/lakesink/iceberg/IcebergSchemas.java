package io.lakesink.iceberg;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Delta columns as Iceberg types. */
final class IcebergSchemas {
  private IcebergSchemas() {}

  /**
   * A first Iceberg schema for the Delta columns, ids 1..n in column order. Every column is
   * optional: Delta columns written by lakesink are nullable.
   */
  static Schema schema(List<Column> columns) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      fields.add(Types.NestedField.optional(i + 1, columns.get(i).name(), type(columns.get(i).type())));
    }
    return new Schema(fields);
  }

  /** Identity on each Delta partition column: Delta partitions by value, never by transform. */
  static PartitionSpec spec(Schema schema, List<String> partitionColumns) {
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    partitionColumns.forEach(spec::identity);
    return spec.build();
  }

  static Type.PrimitiveType type(ColumnType type) {
    return switch (type.kind()) {
      case BOOLEAN -> Types.BooleanType.get();
      case INT -> Types.IntegerType.get();
      case BIGINT -> Types.LongType.get();
      case FLOAT -> Types.FloatType.get();
      case DOUBLE -> Types.DoubleType.get();
      case DECIMAL -> Types.DecimalType.of(type.precision(), type.scale());
      case DATE -> Types.DateType.get();
      // Delta's timestamp is an instant (stored UTC-adjusted); Iceberg calls that timestamptz.
      case TIMESTAMP -> Types.TimestampType.withZone();
      case STRING -> Types.StringType.get();
    };
  }
}
