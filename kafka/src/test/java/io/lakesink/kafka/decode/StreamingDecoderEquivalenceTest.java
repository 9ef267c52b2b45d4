package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The streaming decoder against the tree decoder it replaced ({@link TreeDebeziumJsonDecoder}):
 * for well-formed, reordered and corrupted records alike, the same event, the same "no change"
 * or the same refusal with the same message.
 */
class StreamingDecoderEquivalenceTest {
  final SourcePosition at = new SourcePosition("db.t", 0, 9);
  final DebeziumJsonDecoder streaming = new DebeziumJsonDecoder();
  final TreeDebeziumJsonDecoder tree = new TreeDebeziumJsonDecoder();
  /** The same decoder reading each record where the consumer fetched it (it sees the same records, so caches alike). */
  final DebeziumJsonDecoder inPlace = new DebeziumJsonDecoder();
  static final ObjectMapper JSON = new ObjectMapper();

  static final String DEC = "org.apache.kafka.connect.data.Decimal";
  static final String ROW_FIELDS = "[" + String.join(",",
      f("int64", null, "id", null),
      f("int32", null, "small", null),
      f("boolean", null, "flag", null),
      f("double", null, "d", null),
      f("bytes", DEC, "amount", "{\"scale\":\"3\",\"connect.decimal.precision\":\"12\"}"),
      f("int32", "io.debezium.time.Date", "day", null),
      f("int64", "io.debezium.time.MicroTimestamp", "at", null),
      f("string", "io.debezium.time.ZonedTimestamp", "zoned", null),
      f("struct", "io.debezium.data.VariableScaleDecimal", "vsd", null),
      f("string", null, "s", null)) + "]";
  static final String ROW = "{\"id\":1,\"small\":2,\"flag\":true,\"d\":-2.5,\"amount\":\"" + unscaled("-12345")
      + "\",\"day\":3,\"at\":4,\"zoned\":\"2026-01-01T10:00:00+02:00\",\"vsd\":{\"scale\":3,\"value\":\"" + unscaled("-5")
      + "\"},\"s\":\"x\"}";
  static final String ENVELOPE_SCHEMA = "{\"type\":\"struct\",\"fields\":["
      + "{\"type\":\"struct\",\"optional\":true,\"field\":\"before\",\"fields\":" + ROW_FIELDS + "},"
      + "{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":" + ROW_FIELDS + "},"
      + "{\"type\":\"struct\",\"field\":\"source\",\"fields\":[{\"type\":\"int64\",\"field\":\"ts_ms\"},{\"type\":\"string\",\"optional\":true,\"field\":\"snapshot\"}]},"
      + "{\"type\":\"string\",\"field\":\"op\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
  static final String FLAT_SCHEMA = "{\"type\":\"struct\",\"fields\":" + ROW_FIELDS.replace("]", "") + ","
      + f("string", null, "__op", null) + "," + f("int64", null, "__ts_ms", null) + "," + f("string", null, "__deleted", null) + "]}";

  /** Records of every shape the decoder reads; each is also reordered and corrupted below. */
  static final List<String> TEMPLATES = List.of(
      // schemaless envelopes, as the benchmark's
      "{\"before\":null,\"after\":{\"id\":7,\"price\":12.50,\"big\":1e3,\"neg\":-0,\"tags\":[\"a\",1.0],\"o\":{\"k\":null},\"ok\":true,\"gone\":null},"
          + "\"source\":{\"version\":\"3\",\"ts_ms\":1000,\"snapshot\":\"false\",\"seq\":\"[\\\"1\\\"]\",\"xmin\":null},\"transaction\":null,\"op\":\"c\",\"ts_ms\":1005}",
      "{\"before\":{\"id\":7,\"n\":\"x\",\"m\":[1,{\"a\":2}]},\"after\":null,\"source\":{\"ts_ms\":\"12\",\"snapshot\":\"last\"},\"op\":\"d\",\"ts_ms\":13}",
      "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":5},\"op\":\"d\"}",
      "{\"before\":{\"id\":1},\"after\":{\"id\":2,\"v\":\"\\u00e9\\n\"},\"source\":{\"ts_ms\":12345678901234567890123},\"op\":\"u\",\"ts_ms\":1}",
      "{\"op\":\"r\",\"source\":{\"snapshot\":\"last\",\"ts_ms\":2},\"after\":{\"id\":3}}",
      "{\"before\":null,\"after\":null,\"op\":\"t\",\"source\":{\"ts_ms\":5}}",
      // flattened
      "{\"id\":3,\"name\":\"a\",\"n\":1.50,\"__op\":\"d\",\"__ts_ms\":20,\"__source_ts_ms\":10,\"__deleted\":\"true\",\"x\":{\"y\":[1]}}",
      "{\"id\":3,\"__deleted\":true,\"after\":5,\"source\":{\"ts_ms\":1},\"schema\":{\"a\":1}}",
      "{\"id\":4,\"__op\":\"u\",\"__ts_ms\":\"20\",\"__deleted\":\"false\",\"op\":\"c\"}",
      // with schemas.enable
      "{\"schema\":" + ENVELOPE_SCHEMA + ",\"payload\":{\"before\":null,\"after\":" + ROW + ",\"source\":{\"ts_ms\":7,\"snapshot\":\"last\"},\"op\":\"c\",\"ts_ms\":8}}",
      "{\"schema\":" + ENVELOPE_SCHEMA + ",\"payload\":{\"before\":" + ROW + ",\"after\":null,\"source\":{\"ts_ms\":7},\"op\":\"d\",\"ts_ms\":8}}",
      "{\"payload\":{\"op\":\"u\",\"after\":" + ROW + ",\"before\":" + ROW + "},\"schema\":" + ENVELOPE_SCHEMA + "}",
      "{\"schema\":" + FLAT_SCHEMA + ",\"payload\":" + ROW.replace("}", ",\"__op\":\"u\",\"__ts_ms\":9,\"__deleted\":\"false\"}").replace("}\",", "}\",") + "}",
      "{\"schema\":null,\"payload\":{\"after\":{\"id\":1},\"op\":\"c\"}}",
      "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"}]},\"payload\":null}");

  static final List<String> KEYS = List.of(
      "{\"id\":7}",
      "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"}]},\"payload\":{\"id\":7}}",
      "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"}]},\"payload\":{\"id\":\"x\"}}",
      "{\"id\":1,\"id\":2,\"k\":[1]}",
      "7",
      "{nope",
      "");

  @Test
  void everyTemplateDecodesAsBefore() throws Exception {
    for (String value : TEMPLATES) {
      for (String key : KEYS) {
        assertSameOutcome(key, value);
      }
      assertSameOutcome(null, value);
    }
  }

  @Test
  void fieldsInAnyOrderDecodeAsBefore() throws Exception {
    Random random = new Random(11); // fixed: the same orders every run
    for (String value : TEMPLATES) {
      for (int i = 0; i < 40; i++) {
        assertSameOutcome(KEYS.get(i % KEYS.size()), shuffled(value, random));
      }
    }
  }

  @Test
  void repeatedFieldsDecodeAsBefore() throws Exception {
    List<String> values = List.of(
        "{\"after\":{\"id\":1,\"n\":2,\"id\":3},\"op\":\"c\"}",
        "{\"after\":{\"id\":1},\"op\":\"c\",\"after\":{\"id\":2,\"x\":1e999999999},\"after\":{\"id\":3}}",
        "{\"after\":{\"n\":1e999999999,\"n\":1},\"op\":\"x\",\"op\":\"c\"}",
        "{\"op\":\"c\",\"after\":{\"id\":1},\"op\":null}",
        "{\"source\":{\"ts_ms\":1},\"after\":{\"id\":1},\"source\":{\"snapshot\":\"last\"},\"op\":\"u\"}",
        "{\"id\":1,\"__op\":\"x\",\"__op\":\"c\",\"id\":2,\"__deleted\":\"TRUE\"}",
        "{\"schema\":" + FLAT_SCHEMA + ",\"payload\":{\"id\":\"bad\",\"id\":5}}",
        "{\"schema\":" + FLAT_SCHEMA + ",\"payload\":{\"id\":5,\"id\":\"bad\"}}",
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"field\":\"id\"}]},\"payload\":{\"id\":5},\"schema\":" + FLAT_SCHEMA + "}",
        "{\"schema\":" + FLAT_SCHEMA + ",\"payload\":{\"id\":5},\"payload\":{\"id\":6,\"__op\":\"d\"}}",
        "{\"schema\":" + FLAT_SCHEMA + ",\"payload\":{\"id\":5},\"payload\":[1]}",
        "{\"schema\":" + FLAT_SCHEMA + ",\"schema\":7,\"payload\":{\"id\":5}}",
        "{\"schema\":7,\"payload\":{\"id\":5,\"op\":\"c\",\"after\":{\"a\":1}}}",
        "{\"schema\":[1],\"payload\":{\"id\":5}}",
        "{\"schema\":{},\"payload\":{\"op\":\"c\",\"after\":{\"a\":1}}}");
    for (String value : values) {
      assertSameOutcome("{\"id\":1,\"id\":2}", value);
    }
  }

  @Test
  void recordsWithTheLastRecordsSchemaDecodeAsBefore() throws Exception {
    String schema = "{\"schema\":" + ENVELOPE_SCHEMA + ",\"payload\":";
    String payload = "{\"before\":null,\"after\":" + ROW + ",\"source\":{\"ts_ms\":7},\"op\":\"c\"}";
    List<String> values = List.of(
        schema + payload + "}",
        schema + payload + " \n}",
        schema + payload + "} trailing",
        schema + payload.replace("\"op\":\"c\"", "\"op\":\"c\" \"x\"") + "}", // a syntax error: its position in the whole record
        schema + payload.replace("\"small\":2", "\"small\":\"two\"") + "}",
        schema + payload + ",\"schema\":{\"type\":\"struct\",\"fields\":[]}}", // a later schema wins
        schema + payload + ",\"x\":}",
        schema + payload,
        schema + "null}",
        schema + "[" + payload + "]}",
        schema + "{\"id\":1,\"__op\":\"d\"}}");
    for (String value : values) {
      assertSameOutcome(null, TEMPLATES.get(9)); // the schema is the last one seen
      assertSameOutcome(null, value);
    }
  }

  @Test
  void corruptedRecordsAreRefusedOrDecodedAsBefore() {
    String alphabet = "{}[]:,\"0123456789-+eE.abcdnrstu \\";
    List<String> fragments = List.of(
        "\"op\":\"d\",", "\"op\":\"c\",", "\"before\":null,", "\"after\":{},", "\"schema\":{},", "\"payload\":{},", "\"__op\":\"c\",",
        "\"__deleted\":true,", "\"source\":{\"snapshot\":\"last\"},", "\"ts_ms\":\"1\",", "\"after\":[],", "\"op\":null,");
    Random random = new Random(7); // fixed: the same inputs every run
    assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
      for (int i = 0; i < 12_000; i++) {
        String template = TEMPLATES.get(i % TEMPLATES.size());
        StringBuilder bad = new StringBuilder(i % 3 == 0 ? shuffled(template, random) : template);
        for (int edits = 1 + random.nextInt(3); edits > 0 && bad.length() > 0; edits--) {
          int at = random.nextInt(bad.length());
          switch (random.nextInt(4)) {
            case 0 -> bad.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
            case 1 -> bad.deleteCharAt(at);
            case 2 -> bad.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
            default -> {
              int brace = bad.indexOf("{", at);
              if (brace >= 0) {
                bad.insert(brace + 1, fragments.get(random.nextInt(fragments.size())));
              }
            }
          }
        }
        assertSameOutcome(KEYS.get(i % KEYS.size()), bad.toString());
      }
    });
  }

  @Test
  void invalidUtf8AnywhereIsRefusedAsBefore() throws Exception {
    byte[] good = TEMPLATES.get(0).getBytes(StandardCharsets.UTF_8);
    String s = TEMPLATES.get(0);
    for (String inside : List.of("\"version\":\"", "\"seq\":\"", "\"op\":\"")) {
      int at = s.indexOf(inside) + inside.length();
      for (byte b : new byte[] {(byte) 0xC3, (byte) 0xFF, (byte) 0x80, (byte) 0xE2, 0x01}) {
        byte[] bad = good.clone();
        bad[at] = b;
        assertSameOutcome("{\"id\":1}".getBytes(StandardCharsets.UTF_8), bad);
      }
    }
  }

  private void assertSameOutcome(String key, String value) throws Exception {
    assertSameOutcome(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }

  private void assertSameOutcome(byte[] key, byte[] value) throws Exception {
    String what = new String(value, StandardCharsets.UTF_8);
    what = "key " + (key == null ? null : new String(key, StandardCharsets.UTF_8)) + ", value " + (what.length() > 300 ? what.substring(0, 300) : what);
    Object actual = outcome(streaming, key, value);
    assertSame(actual, inPlace(key, value), what + " (read in place)");
    Object expected;
    try {
      expected = outcome(tree, key, value);
    } catch (NumberFormatException treeBug) {
      // The tree decoder let Jackson's refusal of an exponent like 1e99999999999 escape (a
      // "decoder bug"); the streaming one returned above: it refused the record (for that number
      // or a later syntax error), or decoded it when the number is in a part it does not read.
      return;
    }
    assertSame(expected, actual, what);
  }

  /**
   * The outcome of the record read as a slice of a larger buffer, as the consumer hands values
   * over: the bytes around it close every object and add fields, so reading past its end (or
   * before its start) would change what a cut-short or corrupted record decodes to.
   */
  private Object inPlace(byte[] key, byte[] value) {
    byte[] before = "{\"op\":\"c\",\"after\":{\"x\":".getBytes(StandardCharsets.UTF_8);
    byte[] after = "1}}}}]}}},\"op\":\"d\",\"after\":{}}\n".getBytes(StandardCharsets.UTF_8);
    byte[] fetch = new byte[before.length + value.length + after.length];
    System.arraycopy(before, 0, fetch, 0, before.length);
    System.arraycopy(value, 0, fetch, before.length, value.length);
    System.arraycopy(after, 0, fetch, before.length + value.length, after.length);
    try {
      return inPlace.decode(at, key, ByteBuffer.wrap(fetch, before.length, value.length).slice());
    } catch (DecodeException e) {
      return "refused: " + e.getMessage();
    }
  }

  private static void assertSame(Object expected, Object actual, String what) {
    if (expected instanceof ChangeEvent e && actual instanceof ChangeEvent a) {
      assertEquals(e.position(), a.position(), what);
      assertEquals(e.op(), a.op(), what);
      assertEquals(e.tsMs(), a.tsMs(), what);
      assertEquals(e.schema(), a.schema(), what);
      assertArrayEquals(e.values(), a.values(), what);
      assertEquals(e.recordKeyFields(), a.recordKeyFields(), what);
      assertEquals(e.sizeBytes(), a.sizeBytes(), what);
      assertEquals(e.snapshotEnd(), a.snapshotEnd(), what);
    } else {
      assertEquals(expected, actual, what);
    }
  }

  /** The event, null, or the refusal's message. */
  private Object outcome(RecordDecoder decoder, byte[] key, byte[] value) {
    try {
      return decoder.decode(at, key, value);
    } catch (DecodeException e) {
      return "refused: " + e.getMessage();
    }
  }

  /** The record with the fields of each of its objects in a random order. */
  static String shuffled(String json, Random random) throws Exception {
    return shuffle(JSON.readTree(json), random).toString();
  }

  private static JsonNode shuffle(JsonNode n, Random random) {
    if (n instanceof ObjectNode o) {
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        fields.add(it.next());
      }
      Collections.shuffle(fields, random);
      ObjectNode copy = JSON.createObjectNode();
      fields.forEach(f -> copy.set(f.getKey(), shuffle(f.getValue(), random)));
      return copy;
    }
    if (n instanceof ArrayNode a) {
      ArrayNode copy = JSON.createArrayNode();
      a.forEach(e -> copy.add(shuffle(e, random)));
      return copy;
    }
    return n;
  }

  static String f(String type, String name, String field, String params) {
    return "{\"type\":\"" + type + "\",\"optional\":true" + (name == null ? "" : ",\"name\":\"" + name + "\"")
        + (params == null ? "" : ",\"parameters\":" + params) + ",\"field\":\"" + field + "\"}";
  }

  static String unscaled(String v) {
    return Base64.getEncoder().encodeToString(new BigInteger(v).toByteArray());
  }
}
