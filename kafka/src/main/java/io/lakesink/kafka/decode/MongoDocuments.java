package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.error.Errors;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.kafka.decode.RowBuilder.Row;
import io.lakesink.types.DecimalOutOfBoundsException;
import io.lakesink.types.Decimals;
import io.lakesink.types.TypeMapping;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * MongoDB documents, as Debezium's MongoDB connector sends them (extended JSON text, in any of
 * its modes: relaxed, canonical or the legacy shell form), made into rows. Each top-level field
 * is a column; the column's type comes from the value, so a collection's columns grow as new
 * fields appear (see docs/types.md, "MongoDB"):
 *
 * <ul>
 *   <li>{@code _id}, the key: always text, an ObjectId as its 24 hex digits, a string as itself,
 *       any other value as its extended JSON text, so one collection's keys have one type;
 *   <li>strings, booleans: {@code string}, {@code boolean}; integers ({@code $numberInt},
 *       {@code $numberLong} or a plain JSON integer): {@code bigint}, whatever their width, so
 *       that a field does not change type when a value outgrows 32 bits; other numbers
 *       ({@code $numberDouble}, a JSON fraction): {@code double};
 *   <li>{@code $date}: {@code timestamp}; {@code $numberDecimal}: {@code string}, its exact
 *       plain notation (Decimal128 has a scale per value); {@code $oid}: its hex digits;
 *       {@code $binary}: base64;
 *   <li>nested documents, arrays and other extended-JSON types ({@code $timestamp},
 *       {@code $regularExpression}, …): their JSON text, as received.
 * </ul>
 *
 * A field whose value is null is left out of the row (its column, if the table has it, is null),
 * as its type cannot be known from it. Not thread-safe.
 */
public final class MongoDocuments {
  public static final String CONNECTOR = "mongodb";
  static final String ID = "_id";
  private static final List<String> KEY = List.of(ID);
  private static final java.util.Set<String> DECIMAL128_SPECIAL = java.util.Set.of("NaN", "-NaN", "Infinity", "-Infinity", "Inf", "-Inf");

  /** The record key's {@code id} text, read only when a delete has no before document. */
  @FunctionalInterface
  public interface KeyId {
    String get() throws DecodeException;
  }

  /**
   * The change of one MongoDB event, JSON or Avro alike.
   *
   * @param after the document after the change, as extended-JSON text, or null
   * @param before the document before it (pre-images on), or null
   * @param updateDescription whether the event describes an update by its changed fields
   */
  public ChangeEvent event(
      SourcePosition position, Operation op, Long ts, String after, String before, boolean updateDescription,
      KeyId keyId, int size, boolean snapshotEnd) throws DecodeException {
    Row row;
    if (op == Operation.DELETE) {
      row = before != null ? row(before, "before") : keyRow(keyId.get());
    } else if (after != null) {
      row = row(after, "after");
    } else if (op == Operation.UPDATE && updateDescription) {
      throw new DecodeException(Errors.mongoUpdateWithoutDocument());
    } else {
      throw new DecodeException("a MongoDB '" + op.code() + "' event without an 'after' document");
    }
    ChangeEvent event = new ChangeEvent(position, op, ts, row.schema(), row.values(), KEY, size);
    return snapshotEnd ? event.asSnapshotEnd() : event;
  }

  /** One row schema per document shape: delivery keys its column placement by instance. */
  private final Map<List<Column>, RowSchema> shapes = new LruCache<>(LruCache.DEFAULT_CAPACITY);

  /** The row of a document in extended JSON text ({@code after} or {@code before}). */
  private Row row(String document, String what) throws DecodeException {
    JsonNode doc = parse(document, what);
    if (!doc.isObject()) {
      throw new DecodeException("the MongoDB event's '" + what + "' is not a document but a JSON " + doc.getNodeType());
    }
    List<Column> columns = new ArrayList<>(doc.size());
    List<Object> values = new ArrayList<>(doc.size());
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (field.getValue().isNull()) {
        continue;
      }
      Typed v = field.getKey().equals(ID) ? new Typed(ColumnType.STRING, id(field.getValue())) : value(field.getKey(), field.getValue());
      columns.add(new Column(field.getKey(), v.type()));
      values.add(v.value());
    }
    if (columns.stream().noneMatch(c -> c.name().equals(ID))) {
      throw new DecodeException("the MongoDB event's '" + what + "' document has no _id field");
    }
    return new Row(shape(columns), values.toArray());
  }

  /**
   * The {@code id} of a JSON record key {@code {"id": "<_id as extended JSON>"}}, with or without
   * the JSON converter's schema wrapper.
   */
  static String keyIdOfJson(byte[] key) throws DecodeException {
    if (key == null) {
      throw new DecodeException("a MongoDB delete without a 'before' document and without a record key");
    }
    JsonNode root = DebeziumJsonDecoder.parse(key, "key");
    JsonNode payload = root.has("schema") && root.has("payload") ? root.get("payload") : root;
    JsonNode id = payload.get("id");
    if (id == null || id.isNull()) {
      throw new DecodeException("the MongoDB record key has no 'id' field");
    }
    return id.isTextual() ? id.textValue() : id.toString();
  }

  /** The row of a delete without a before document: only its {@code _id}, from the record key. */
  private Row keyRow(String keyId) throws DecodeException {
    // Debezium writes the _id as extended JSON text; an id that is not JSON is a plain string id.
    JsonNode value;
    try {
      value = JsonTokens.MAPPER.readTree(keyId);
    } catch (JsonProcessingException e) {
      value = null;
    }
    String id = value == null || value.isMissingNode() ? keyId : id(value);
    return new Row(shape(List.of(new Column(ID, ColumnType.STRING))), new Object[] {id});
  }

  private RowSchema shape(List<Column> columns) {
    return shapes.computeIfAbsent(List.copyOf(columns), c -> new RowSchema(c, true));
  }

  private record Typed(ColumnType type, Object value) {}

  /** The key as text: an ObjectId's hex digits, a string itself, anything else its JSON text. */
  private static String id(JsonNode v) throws DecodeException {
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isObject() && v.size() == 1 && v.get("$oid") != null && v.get("$oid").isTextual()) {
      return v.get("$oid").textValue();
    }
    if (v.isIntegralNumber()) {
      return v.bigIntegerValue().toString();
    }
    if (v.isObject() && v.size() == 1 && (v.has("$numberInt") || v.has("$numberLong")) && v.elements().next().isTextual()) {
      return v.elements().next().textValue();
    }
    return v.toString();
  }

  private static Typed value(String field, JsonNode v) throws DecodeException {
    if (v.isTextual()) {
      return new Typed(ColumnType.STRING, v.textValue());
    }
    if (v.isBoolean()) {
      return new Typed(ColumnType.BOOLEAN, v.booleanValue());
    }
    if (v.isIntegralNumber()) {
      if (!v.canConvertToLong()) {
        return new Typed(ColumnType.DOUBLE, v.doubleValue()); // relaxed mode prints a double 1e20 as an integer
      }
      return new Typed(ColumnType.BIGINT, v.longValue());
    }
    if (v.isNumber()) {
      return new Typed(ColumnType.DOUBLE, v.doubleValue());
    }
    if (v.isObject() && v.size() >= 1) {
      String type = v.fieldNames().next();
      JsonNode inner = v.get(type);
      try {
        switch (type) {
          case "$oid":
            if (v.size() == 1 && inner.isTextual()) {
              return new Typed(ColumnType.STRING, inner.textValue());
            }
            break;
          case "$numberInt", "$numberLong":
            if (v.size() == 1 && inner.isTextual()) {
              return new Typed(ColumnType.BIGINT, Long.parseLong(inner.textValue()));
            }
            break;
          case "$numberDouble":
            if (v.size() == 1 && inner.isTextual()) {
              return new Typed(ColumnType.DOUBLE, Double.parseDouble(inner.textValue())); // also NaN, Infinity
            }
            break;
          case "$numberDecimal":
            if (v.size() == 1 && inner.isTextual()) {
              String text = inner.textValue();
              // Decimal128 has NaN and infinities, which BigDecimal does not: kept as written.
              return new Typed(ColumnType.STRING, DECIMAL128_SPECIAL.contains(text) ? text : Decimals.plain(new BigDecimal(text)));
            }
            break;
          case "$date":
            if (v.size() == 1) {
              return new Typed(ColumnType.TIMESTAMP, date(inner));
            }
            break;
          case "$binary":
            if (inner.isObject() && inner.get("base64") != null) {
              return new Typed(ColumnType.STRING, inner.get("base64").asText()); // {"base64": …, "subType": …}
            }
            if (inner.isTextual()) {
              return new Typed(ColumnType.STRING, inner.textValue()); // the legacy form, {"$binary": …, "$type": …}
            }
            break;
          default:
            break;
        }
      } catch (NumberFormatException | DateTimeParseException e) {
        throw new DecodeException("field " + field + ": extended JSON " + type + " holds a value that is not one", e);
      } catch (DecimalOutOfBoundsException e) {
        throw new DecodeException("field " + field + ": " + e.getMessage(), e);
      }
    }
    return new Typed(ColumnType.STRING, v.toString()); // a document, an array, another extended-JSON type
  }

  /** {@code $date}: ISO-8601 text (relaxed), {@code {"$numberLong": "ms"}} (canonical) or ms (legacy). */
  private static Instant date(JsonNode v) throws DecodeException {
    Instant t;
    if (v.isTextual()) {
      t = OffsetDateTime.parse(v.textValue()).toInstant();
    } else if (v.isIntegralNumber() && v.canConvertToLong()) {
      t = Instant.ofEpochMilli(v.longValue());
    } else if (v.isObject() && v.get("$numberLong") != null && v.get("$numberLong").isTextual()) {
      t = Instant.ofEpochMilli(Long.parseLong(v.get("$numberLong").textValue()));
    } else {
      throw new DecodeException("expected a $date of ISO-8601 text or milliseconds, found " + v.getNodeType());
    }
    if (!TypeMapping.storable(t)) {
      throw new DecodeException("a $date beyond the range Delta stores (about ±292,000 years)");
    }
    return t;
  }

  private static JsonNode parse(String text, String what) throws DecodeException {
    try {
      JsonNode n = JsonTokens.MAPPER.readTree(text);
      if (n == null) {
        throw new DecodeException("the MongoDB event's '" + what + "' is empty");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new DecodeException("the MongoDB event's '" + what + "' is not valid extended JSON"
          + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()), e);
    } catch (NumberFormatException e) {
      throw new DecodeException("the MongoDB event's '" + what + "' holds a number whose exponent is too large to read");
    }
  }
}
