package io.lakesink.sources;

import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Kafka Connect data to Confluent wire-format Avro, the way Confluent's {@code AvroConverter}
 * writes it (its {@code AvroData}): a Connect schema name becomes {@code connect.name}, its
 * parameters {@code connect.parameters}, {@code int8}/{@code int16} an Avro {@code int} with
 * {@code connect.type}, an optional schema a union with {@code null} first, Connect's logical types
 * Avro's. Confluent's converter is not on Maven Central (only its own repository, not reachable
 * here); the schemas it would write are what lakesink must read, so they are built the same way and
 * registered in the in-test registry under {@code <topic>-key} / {@code <topic>-value}.
 */
final class ConnectAvro {
  private final TestSchemaRegistry registry;
  private final Map<String, Integer> ids = new HashMap<>(); // subject + schema text → registry id
  private final Map<org.apache.kafka.connect.data.Schema, Schema> avroSchemas = new HashMap<>();

  ConnectAvro(TestSchemaRegistry registry) {
    this.registry = registry;
  }

  byte[] serialize(String topic, boolean key, org.apache.kafka.connect.data.Schema schema, Object value) {
    if (value == null) {
      return null; // a tombstone or a keyless event stays null, as with the real converter
    }
    Schema avro = avroSchemas.computeIfAbsent(schema, s -> new Builder().schema(s));
    String subject = topic + (key ? "-key" : "-value");
    int id = ids.computeIfAbsent(subject + "\n" + avro, k -> register(subject, avro));
    return AvroRecords.wire(id, avro, datum(avro, schema, value));
  }

  private int register(String subject, Schema avro) {
    try {
      return registry.register(subject, avro);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Avro schemas for one Connect schema; a record name is defined once and referred to after. */
  private static final class Builder {
    private final Map<String, Schema> records = new HashMap<>();
    private int anonymous;

    Schema schema(org.apache.kafka.connect.data.Schema s) {
      Schema plain = plain(s);
      return s.isOptional() ? Schema.createUnion(Schema.create(Schema.Type.NULL), plain) : plain;
    }

    private Schema plain(org.apache.kafka.connect.data.Schema s) {
      String name = s.name();
      Schema avro = switch (s.type()) {
        case INT8, INT16 -> {
          Schema i = Schema.create(Schema.Type.INT);
          i.addProp("connect.type", s.type().getName());
          yield i;
        }
        case INT32 -> Schema.create(Schema.Type.INT);
        case INT64 -> Schema.create(Schema.Type.LONG);
        case FLOAT32 -> Schema.create(Schema.Type.FLOAT);
        case FLOAT64 -> Schema.create(Schema.Type.DOUBLE);
        case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
        case STRING -> Schema.create(Schema.Type.STRING);
        case BYTES -> Schema.create(Schema.Type.BYTES);
        case ARRAY -> Schema.createArray(schema(s.valueSchema()));
        case MAP -> Schema.createMap(schema(s.valueSchema()));
        case STRUCT -> {
          String full = name != null ? name : "ConnectDefault" + (++anonymous);
          Schema known = records.get(full);
          if (known != null) {
            yield known;
          }
          int dot = full.lastIndexOf('.');
          Schema r = Schema.createRecord(full.substring(dot + 1), null, dot < 0 ? null : full.substring(0, dot), false);
          records.put(full, r);
          List<Schema.Field> fields = new ArrayList<>();
          for (Field f : s.fields()) {
            fields.add(f.schema().isOptional()
                ? new Schema.Field(f.name(), schema(f.schema()), null, JsonProperties.NULL_VALUE)
                : new Schema.Field(f.name(), schema(f.schema())));
          }
          r.setFields(fields);
          yield r;
        }
      };
      if (Decimal.LOGICAL_NAME.equals(name)) {
        int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
        String p = s.parameters().get("connect.decimal.precision");
        int precision = p != null ? Integer.parseInt(p) : 64; // AvroData's default when Connect gives none
        LogicalTypes.decimal(precision, scale).addToSchema(avro);
      } else if (Date.LOGICAL_NAME.equals(name)) {
        LogicalTypes.date().addToSchema(avro);
      } else if (Time.LOGICAL_NAME.equals(name)) {
        LogicalTypes.timeMillis().addToSchema(avro);
      } else if (Timestamp.LOGICAL_NAME.equals(name)) {
        LogicalTypes.timestampMillis().addToSchema(avro);
      }
      if (name != null && avro.getProp("connect.name") == null) {
        avro.addProp("connect.name", name);
      }
      if (s.version() != null && avro.getObjectProp("connect.version") == null) {
        avro.addProp("connect.version", s.version());
      }
      if (s.parameters() != null && !s.parameters().isEmpty() && avro.getObjectProp("connect.parameters") == null) {
        avro.addProp("connect.parameters", new LinkedHashMap<>(s.parameters()));
      }
      return avro;
    }
  }

  private static Schema nonNull(Schema s) {
    return s.getType() == Schema.Type.UNION ? s.getTypes().get(1) : s;
  }

  private static Object datum(Schema avro, org.apache.kafka.connect.data.Schema s, Object value) {
    if (value == null) {
      return null;
    }
    Schema a = nonNull(avro);
    String name = s.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      return ByteBuffer.wrap(((BigDecimal) value).unscaledValue().toByteArray());
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return (int) TimeUnit.MILLISECONDS.toDays(((java.util.Date) value).getTime());
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return (int) ((java.util.Date) value).getTime();
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return ((java.util.Date) value).getTime();
    }
    return switch (s.type()) {
      case INT8 -> ((Byte) value).intValue();
      case INT16 -> ((Short) value).intValue();
      case BYTES -> value instanceof byte[] b ? ByteBuffer.wrap(b) : value;
      case STRUCT -> {
        Struct struct = (Struct) value;
        GenericData.Record r = new GenericData.Record(a);
        for (Field f : s.fields()) {
          r.put(f.name(), datum(a.getField(f.name()).schema(), f.schema(), struct.get(f)));
        }
        yield r;
      }
      case ARRAY -> {
        List<Object> out = new ArrayList<>();
        for (Object o : (List<?>) value) {
          out.add(datum(a.getElementType(), s.valueSchema(), o));
        }
        yield out;
      }
      case MAP -> {
        Map<String, Object> out = new LinkedHashMap<>();
        ((Map<?, ?>) value).forEach((k, v) -> out.put(String.valueOf(k), datum(a.getValueType(), s.valueSchema(), v)));
        yield out;
      }
      default -> value;
    };
  }
}
