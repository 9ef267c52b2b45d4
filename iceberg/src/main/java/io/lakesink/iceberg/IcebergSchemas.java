package io.lakesink.iceberg;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Delta columns as Iceberg types, and the Iceberg schema kept in step with them. */
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

  /** Columns the Delta table gained are added; widened types are promoted; dropped columns dropped. */
  static boolean evolve(Transaction tx, String location, List<Column> columns) {
    Schema schema = tx.table().schema();
    // A transaction accepts one pending update at a time: collect the changes, then open the
    // schema update only when there is one.
    List<Consumer<UpdateSchema>> changes = new ArrayList<>();
    for (Column column : columns) {
      Type.PrimitiveType wanted = type(column.type());
      Types.NestedField existing = schema.findField(column.name());
      if (existing == null) {
        changes.add(u -> u.addColumn(column.name(), wanted));
      } else if (!existing.type().equals(wanted)) {
        if (!existing.type().isPrimitiveType() || !TypeUtil.isPromotionAllowed(existing.type(), wanted)) {
          throw IcebergErrors.columnRetyped(location, column.name(), existing.type().toString(), column.type().toString());
        }
        changes.add(u -> u.updateColumn(column.name(), wanted));
      }
    }
    List<String> names = columns.stream().map(Column::name).toList();
    for (Types.NestedField field : schema.columns()) {
      if (!names.contains(field.name())) {
        changes.add(u -> u.deleteColumn(field.name()));
      }
    }
    if (!changes.isEmpty()) {
      UpdateSchema update = tx.updateSchema();
      changes.forEach(c -> c.accept(update));
      update.commit();
    }
    return !changes.isEmpty();
  }
}
