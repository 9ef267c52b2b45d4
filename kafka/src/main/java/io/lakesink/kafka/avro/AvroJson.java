package io.lakesink.kafka.avro;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * Avro values as text, the way Kafka Connect's JSON converter would have written them: records
 * and maps as JSON objects (record fields in schema order, map keys sorted), arrays as JSON
 * arrays, bytes and fixed as base64 strings, enums as their symbol, union values as the value
 * of their branch, logical types as their raw value.
 */
final class AvroJson {
  private static final JsonFactory JSON = new JsonFactory();

  private AvroJson() {}

  /** Text as is, numbers and booleans as written, bytes as base64, containers as JSON text. */
  static String text(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof CharSequence || v instanceof GenericEnumSymbol<?> || v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    if (v instanceof ByteBuffer || v instanceof byte[] || v instanceof GenericFixed) {
      return Base64.getEncoder().encodeToString(bytes(v));
    }
    return json(v);
  }

  /** The value as JSON text. */
  static String json(Object v) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      write(g, v);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  private static void write(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof GenericRecord r) {
      g.writeStartObject();
      for (Schema.Field f : r.getSchema().getFields()) {
        g.writeFieldName(f.name());
        write(g, r.get(f.pos()));
      }
      g.writeEndObject();
    } else if (v instanceof Map<?, ?> m) {
      Map<String, Object> sorted = new TreeMap<>();
      m.forEach((k, x) -> sorted.put(String.valueOf(k), x));
      g.writeStartObject();
      for (Map.Entry<String, Object> e : sorted.entrySet()) {
        g.writeFieldName(e.getKey());
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof Collection<?> c) {
      g.writeStartArray();
      for (Object x : c) {
        write(g, x);
      }
      g.writeEndArray();
    } else if (v instanceof CharSequence || v instanceof GenericEnumSymbol<?>) {
      g.writeString(v.toString());
    } else if (v instanceof Integer i) {
      g.writeNumber(i);
    } else if (v instanceof Long l) {
      g.writeNumber(l);
    } else if (v instanceof Float f) {
      g.writeNumber(f);
    } else if (v instanceof Double d) {
      g.writeNumber(d);
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof ByteBuffer || v instanceof byte[] || v instanceof GenericFixed) {
      g.writeString(Base64.getEncoder().encodeToString(bytes(v)));
    } else {
      g.writeString(v.toString());
    }
  }

  /** The bytes of a bytes or fixed value, without moving a buffer's position. */
  static byte[] bytes(Object v) {
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof GenericFixed f) {
      return f.bytes();
    }
    ByteBuffer dup = ((ByteBuffer) v).duplicate();
    byte[] b = new byte[dup.remaining()];
    dup.get(b);
    return b;
  }
}
