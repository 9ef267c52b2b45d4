package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.error.Errors;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.types.DecimalOutOfBoundsException;
import io.lakesink.types.SemanticNames;
import io.lakesink.types.SourceType;
import io.lakesink.types.TypeMapping;
import io.lakesink.types.UnconvertibleValueException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A Kafka Connect JSON schema ({@code {"type":"struct","fields":[…]}}) read as a row schema, with
 * each field's source type kept to convert its wire values.
 */
final class ConnectJsonSchema {
  final RowSchema rowSchema;
  final SourceType[] sourceTypes;

  private ConnectJsonSchema(RowSchema rowSchema, SourceType[] sourceTypes) {
    this.rowSchema = rowSchema;
    this.sourceTypes = sourceTypes;
  }

  static ConnectJsonSchema of(JsonNode struct) throws DecodeException {
    JsonNode fields = struct.get("fields");
    if (fields == null || !fields.isArray()) {
      throw new DecodeException("the record's schema is not a struct with fields");
    }
    List<Column> columns = new ArrayList<>();
    SourceType[] types = new SourceType[fields.size()];
    int i = 0;
    for (JsonNode f : fields) {
      JsonNode name = f.get("field");
      JsonNode type = f.get("type");
      if (name == null || type == null) {
        throw new DecodeException("a field of the record's schema lacks 'field' or 'type': " + f);
      }
      SourceType source = new SourceType(type.asText(), text(f.get("name")), parameters(f.get("parameters")));
      if (!SemanticNames.understood(source)) {
        throw new DecodeException(Errors.unknownSemanticType(name.asText(), source.baseType(), source.semanticName()));
      }
      types[i++] = source;
      columns.add(new Column(name.asText(), TypeMapping.columnType(source)));
    }
    return new ConnectJsonSchema(new RowSchema(columns, true), types);
  }

  private static String text(JsonNode n) {
    return n == null || n.isNull() ? null : n.asText();
  }

  private static Map<String, String> parameters(JsonNode params) {
    Map<String, String> m = new HashMap<>();
    if (params != null && params.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        m.put(e.getKey(), e.getValue().asText());
      }
    }
    return m;
  }

  /** The values of a payload struct, converted to the columns' types. */
  Object[] values(JsonNode payload) throws DecodeException {
    Object[] values = new Object[rowSchema.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = convert(i, payload.get(rowSchema.columns().get(i).name()));
    }
    return values;
  }

  /** The value of column {@code i} converted to its type; null for a missing or null value. */
  Object convert(int i, JsonNode v) throws DecodeException {
    if (v == null || v.isNull()) {
      return null;
    }
    Column c = rowSchema.columns().get(i);
    try {
      return TypeMapping.convert(sourceTypes[i], c.type(), wire(sourceTypes[i], v));
    } catch (DecimalOutOfBoundsException e) {
      throw new DecodeException("column " + c.name() + ": " + e.getMessage(), e); // never the value: it is the problem
    } catch (DecodeException | UnconvertibleValueException e) {
      throw new DecodeException(
          "column " + c.name() + ": value " + abbreviate(v.toString()) + " does not match its schema type "
              + sourceTypes[i].baseType() + (sourceTypes[i].semanticName() == null ? "" : " (" + sourceTypes[i].semanticName() + ")")
              + ": " + e.getMessage(),
          e);
    }
  }

  private static Object wire(SourceType type, JsonNode v) throws DecodeException, DecimalOutOfBoundsException {
    if (TypeMapping.VARIABLE_SCALE_DECIMAL.equals(type.semanticName()) && v.isObject()) {
      JsonNode scale = v.get("scale");
      JsonNode unscaled = v.get("value");
      if (scale == null || !scale.isIntegralNumber() || !scale.canConvertToInt() || unscaled == null || !unscaled.isTextual()) {
        throw new DecodeException("expected an object with an int 'scale' and a base64 'value'");
      }
      return Map.of("scale", scale.intValue(), "value", unscaled.textValue());
    }
    if (type.parameters().containsKey("scale") && v.isNumber() && type.baseType().equals("bytes")) {
      return v.decimalValue(); // a converter set to decimal.format=NUMERIC
    }
    return switch (type.baseType()) {
      case "boolean" -> {
        if (!v.isBoolean()) throw new DecodeException("expected a boolean");
        yield v.booleanValue();
      }
      case "int8", "int16", "int32" -> {
        if (!v.isIntegralNumber() || !v.canConvertToInt()) throw new DecodeException("expected a 32-bit integer");
        yield v.intValue();
      }
      case "int64" -> {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) throw new DecodeException("expected a 64-bit integer");
        yield v.longValue();
      }
      case "float", "double", "float32", "float64" -> {
        if (!v.isNumber()) throw new DecodeException("expected a number");
        yield v.doubleValue();
      }
      case "string", "bytes" -> v.isTextual() ? v.textValue() : v.toString();
      default -> JsonValues.text(v); // struct, array, map: their JSON text
    };
  }

  static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
