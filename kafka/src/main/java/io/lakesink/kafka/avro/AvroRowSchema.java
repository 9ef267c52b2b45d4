package io.lakesink.kafka.avro;

import io.lakesink.error.Errors;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RepeatedText;
import io.lakesink.types.DecimalOutOfBoundsException;
import io.lakesink.types.SemanticNames;
import io.lakesink.types.SourceType;
import io.lakesink.types.TypeMapping;
import io.lakesink.types.UnconvertibleValueException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/**
 * An Avro record schema read as a row schema: one column per field, typed by {@link TypeMapping}
 * from the field's Avro type, its {@code connect.name} (Debezium's semantic types) or Avro logical
 * type, and its parameters.
 */
final class AvroRowSchema {
  final RowSchema rowSchema;
  private final SourceType[] sourceTypes;
  private final Schema[] fieldSchemas; // optional unions unwrapped
  private final int[] positions;
  /** Why every record of this schema is refused (a field lakesink does not understand), or null. */
  private final String refusal;

  private AvroRowSchema(RowSchema rowSchema, SourceType[] sourceTypes, Schema[] fieldSchemas, int[] positions, String refusal) {
    this.rowSchema = rowSchema;
    this.sourceTypes = sourceTypes;
    this.fieldSchemas = fieldSchemas;
    this.positions = positions;
    this.refusal = refusal;
  }

  /**
   * @param exclude field names that are metadata, not columns
   * @param intern returns the shared instance of an equal row schema
   */
  static AvroRowSchema of(Schema record, Set<String> exclude, UnaryOperator<RowSchema> intern) {
    List<Column> columns = new ArrayList<>();
    List<SourceType> types = new ArrayList<>();
    List<Schema> schemas = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    String refusal = null;
    for (Schema.Field f : record.getFields()) {
      if (exclude.contains(f.name())) {
        continue;
      }
      Schema s = unwrapOptional(f.schema());
      SourceType source = sourceType(s);
      if (refusal == null && !SemanticNames.understood(source)) {
        refusal = Errors.unknownSemanticType(f.name(), source.baseType(), source.semanticName());
      }
      columns.add(new Column(f.name(), TypeMapping.columnType(source)));
      types.add(source);
      schemas.add(s);
      positions.add(f.pos());
    }
    return new AvroRowSchema(
        intern.apply(new RowSchema(columns, true)),
        types.toArray(SourceType[]::new),
        schemas.toArray(Schema[]::new),
        positions.stream().mapToInt(Integer::intValue).toArray(),
        refusal);
  }

  /** {@code ["null", T]} or {@code [T, "null"]} is an optional T; other schemas stay as they are. */
  static Schema unwrapOptional(Schema s) {
    if (s.getType() != Schema.Type.UNION) {
      return s;
    }
    List<Schema> branches = s.getTypes();
    if (branches.size() == 2) {
      if (branches.get(0).getType() == Schema.Type.NULL) {
        return branches.get(1);
      }
      if (branches.get(1).getType() == Schema.Type.NULL) {
        return branches.get(0);
      }
    }
    return s;
  }

  /** The source type {@link TypeMapping} maps: base type, semantic name, parameters. */
  static SourceType sourceType(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      return new SourceType("union", null, Map.of()); // a real choice of types: its value as text
    }
    String base = s.getType().getName();
    LogicalType logical = s.getLogicalType();
    String logicalName = logical != null ? logical.getName() : s.getProp(LogicalType.LOGICAL_TYPE_PROP);
    String semantic = s.getProp("connect.name");
    if (semantic == null) {
      semantic = logicalName;
    }
    if (semantic == null && s.getType() == Schema.Type.RECORD && TypeMapping.VARIABLE_SCALE_DECIMAL.equals(s.getFullName())) {
      semantic = TypeMapping.VARIABLE_SCALE_DECIMAL;
    }
    Map<String, String> parameters = new HashMap<>();
    if ("decimal".equals(logicalName)) {
      if (logical instanceof LogicalTypes.Decimal d) {
        parameters.put("precision", Integer.toString(d.getPrecision()));
        parameters.put("scale", Integer.toString(d.getScale()));
      } else { // a decimal Avro itself refused (e.g. too wide for its fixed size): keep what it says
        putIfPresent(parameters, "precision", s.getObjectProp("precision"));
        putIfPresent(parameters, "scale", s.getObjectProp("scale"));
      }
    }
    if (s.getObjectProp("connect.parameters") instanceof Map<?, ?> connect) {
      connect.forEach((k, v) -> {
        if (k != null && v != null) {
          parameters.put(k.toString(), v.toString());
        }
      });
    }
    return new SourceType(base, semantic, parameters);
  }

  private static void putIfPresent(Map<String, String> m, String key, Object value) {
    if (value != null) {
      m.put(key, value.toString());
    }
  }

  /** The record's values, converted to the columns' types. */
  Object[] values(GenericRecord record) throws DecodeException {
    if (refusal != null) {
      throw new DecodeException(refusal);
    }
    Object[] values = new Object[positions.length];
    for (int i = 0; i < values.length; i++) {
      Object raw = record.get(positions[i]);
      if (raw == null) {
        continue;
      }
      Column c = rowSchema.columns().get(i);
      try {
        values[i] = TypeMapping.convert(sourceTypes[i], c.type(), wire(fieldSchemas[i], sourceTypes[i], raw));
      } catch (DecimalOutOfBoundsException e) {
        throw new DecodeException("column " + c.name() + ": " + e.getMessage(), e); // never the value: it is the problem
      } catch (DecodeException | UnconvertibleValueException e) {
        SourceType t = sourceTypes[i];
        throw new DecodeException(
            "column " + c.name() + ": value " + abbreviate(String.valueOf(AvroJson.text(raw)))
                + " does not match its schema type " + t.baseType()
                + (t.semanticName() == null ? "" : " (" + t.semanticName() + ")")
                + (e.getMessage() == null ? "" : ": " + e.getMessage()),
            e);
      }
    }
    return values;
  }

  /** An Avro datum as the wire value {@link TypeMapping#convert} takes. */
  private static Object wire(Schema s, SourceType type, Object raw) throws DecodeException {
    if (TypeMapping.VARIABLE_SCALE_DECIMAL.equals(type.semanticName()) && raw instanceof GenericRecord r) {
      Schema.Field scale = r.getSchema().getField("scale");
      Schema.Field value = r.getSchema().getField("value");
      Object scaleValue = scale == null ? null : r.get(scale.pos());
      Object unscaled = value == null ? null : r.get(value.pos());
      if (!(scaleValue instanceof Integer) || !(unscaled instanceof ByteBuffer || unscaled instanceof GenericFixed)) {
        throw new DecodeException("expected a record with an int 'scale' and bytes 'value'");
      }
      return Map.of("scale", scaleValue, "value", AvroJson.bytes(unscaled));
    }
    return switch (s.getType()) {
      case BOOLEAN, INT, LONG, FLOAT, DOUBLE -> raw;
      case BYTES, FIXED -> AvroJson.bytes(raw);
      // A string that repeats (a status, a currency) is one String, as in the JSON decoder.
      case STRING -> raw instanceof Utf8 u ? RepeatedText.ofThisThread().text(u.getBytes(), u.getByteLength()) : raw.toString();
      case ENUM -> raw.toString();
      case UNION -> AvroJson.text(raw);
      default -> AvroJson.json(raw); // record, array, map: JSON text
    };
  }

  static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
