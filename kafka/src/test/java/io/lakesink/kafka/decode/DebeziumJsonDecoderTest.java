package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.Errors;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.ColumnType;
import io.lakesink.event.NonTableTopic;
import io.lakesink.event.Operation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DebeziumJsonDecoderTest {
  final DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();
  final SourcePosition at = new SourcePosition("db.t", 2, 41);

  ChangeEvent decode(String key, String value) throws DecodeException {
    return decoder.decode(at, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void schemalessEnvelopeGivesStringColumnsAndSourceTimestamp() throws Exception {
    ChangeEvent e = decode("{\"id\":7}",
        "{\"before\":null,\"after\":{\"id\":7,\"price\":1.5,\"tags\":[\"a\"],\"ok\":true,\"gone\":null},"
            + "\"source\":{\"ts_ms\":1000},\"op\":\"c\",\"ts_ms\":1005}");
    assertEquals(Operation.CREATE, e.op());
    assertEquals(1000L, e.tsMs());
    assertEquals(List.of("id"), e.recordKeyFields());
    assertTrue(e.schema().columns().stream().allMatch(c -> c.type().equals(ColumnType.STRING)));
    assertArrayEquals(new Object[] {"7", "1.5", "[\"a\"]", "true", null}, e.values());
    assertEquals(at, e.position());
  }

  /**
   * A record read in place in the fetch buffer and refused: the failure is kept while the table
   * is quarantined, so nothing in it may lead to the buffer (Jackson's exception keeps its parser,
   * and the parser the array it read).
   */
  @Test
  void aRefusedRecordReadInPlaceKeepsNothingOfTheFetchBuffer() {
    byte[] record = "{\"after\":{\"id\":1},\"op\":\"c\" \"x\"}".getBytes(StandardCharsets.UTF_8);
    byte[] fetch = new byte[1 << 20];
    System.arraycopy(record, 0, fetch, 100, record.length);
    DecodeException e = assertThrows(DecodeException.class,
        () -> decoder.decode(at, null, java.nio.ByteBuffer.wrap(fetch, 100, record.length).slice()));
    assertEquals("the record value is not valid JSON at line 1, column 28", e.getMessage()); // counted from the record's start, not the buffer's
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.fasterxml.jackson.core.exc.StreamReadException r) {
        assertNull(r.getProcessor(), "the parser, which holds the fetch buffer, is let go");
      }
    }
  }

  @Test
  void schemalessNumbersKeepTheirDigits() throws Exception {
    ChangeEvent e = decode(null, "{\"after\":{\"a\":12.50,\"b\":1e3,\"c\":123456789012345678901234567890.123},\"op\":\"c\"}");
    assertArrayEquals(new Object[] {"12.50", "1000", "123456789012345678901234567890.123"}, e.values());
  }

  @Test
  void envelopeTimestampIsTheFallbackWhenSourceHasNone() throws Exception {
    ChangeEvent e = decode(null, "{\"after\":{\"id\":1},\"op\":\"u\",\"ts_ms\":99}");
    assertEquals(99L, e.tsMs());
  }

  @Test
  void deleteUsesTheBeforeImage() throws Exception {
    ChangeEvent e = decode("{\"id\":7}", "{\"before\":{\"id\":7,\"n\":\"x\"},\"after\":null,\"op\":\"d\",\"source\":{\"ts_ms\":5}}");
    assertTrue(e.isDelete());
    assertEquals("x", e.value("n"));
  }

  @Test
  void tombstonesAndNullPayloadsCarryNoChange() throws Exception {
    assertNull(decode("{\"id\":7}", null));
    assertNull(decode(null, "{\"schema\":{\"type\":\"struct\"},\"payload\":null}"));
  }

  @Test
  void flattenedRecordsTakeMetadataFromTheirFields() throws Exception {
    ChangeEvent e = decode("{\"id\":3}", "{\"id\":3,\"name\":\"a\",\"__op\":\"d\",\"__ts_ms\":20,\"__source_ts_ms\":10,\"__deleted\":\"true\"}");
    assertEquals(Operation.DELETE, e.op());
    assertEquals(10L, e.tsMs());
    assertEquals(2, e.schema().size(), "metadata fields are not columns");
    ChangeEvent noSourceTs = decode(null, "{\"id\":3,\"__op\":\"u\",\"__ts_ms\":20,\"__deleted\":\"false\"}");
    assertEquals(20L, noSourceTs.tsMs());
    assertEquals(Operation.UPDATE, noSourceTs.op());
    ChangeEvent noOp = decode(null, "{\"id\":3,\"__deleted\":\"true\"}");
    assertEquals(Operation.DELETE, noOp.op(), "__deleted alone marks a delete");
    assertNull(decode(null, "{\"id\":4}").op(), "a row without an operation keeps it unknown");
  }

  @Test
  void connectSchemaTypesEveryColumn() throws Exception {
    String fields = "[" + String.join(",",
        f("int64", null, "id", null),
        f("int32", null, "small", null),
        f("boolean", null, "flag", null),
        f("float", null, "f", null),
        f("double", null, "d", null),
        f("bytes", "org.apache.kafka.connect.data.Decimal", "amount", "{\"scale\":\"3\",\"connect.decimal.precision\":\"12\"}"),
        f("bytes", "org.apache.kafka.connect.data.Decimal", "huge", "{\"scale\":\"2\",\"connect.decimal.precision\":\"40\"}"),
        f("int32", "io.debezium.time.Date", "day", null),
        f("int64", "io.debezium.time.MicroTimestamp", "at_us", null),
        f("int64", "io.debezium.time.Timestamp", "at_ms", null),
        f("int64", "io.debezium.time.NanoTimestamp", "at_ns", null),
        f("string", "io.debezium.time.ZonedTimestamp", "zoned", null),
        f("int64", "io.debezium.time.MicroTime", "t", null),
        f("struct", "io.debezium.data.VariableScaleDecimal", "vsd", null),
        f("string", null, "s", null)) + "]";
    String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":" + fields
        + "},{\"type\":\"string\",\"field\":\"op\"}]}";
    String payload = "{\"after\":{\"id\":1,\"small\":-2,\"flag\":true,\"f\":1.25,\"d\":-2.5,"
        + "\"amount\":\"" + unscaled("-12345") + "\",\"huge\":\"" + unscaled("123") + "\","
        + "\"day\":-3,\"at_us\":-1,\"at_ms\":1500,\"at_ns\":1000000001,\"zoned\":\"2026-01-01T10:00:00+02:00\","
        + "\"t\":3723000000,\"vsd\":{\"scale\":3,\"value\":\"" + unscaled("-5") + "\"},\"s\":null},\"op\":\"r\"}";
    ChangeEvent e = decode(null, "{\"schema\":" + schema + ",\"payload\":" + payload + "}");
    assertEquals(
        List.of(ColumnType.BIGINT, ColumnType.INT, ColumnType.BOOLEAN, ColumnType.FLOAT, ColumnType.DOUBLE,
            ColumnType.decimal(12, 3), ColumnType.STRING, ColumnType.DATE, ColumnType.TIMESTAMP, ColumnType.TIMESTAMP,
            ColumnType.TIMESTAMP, ColumnType.TIMESTAMP, ColumnType.STRING, ColumnType.STRING, ColumnType.STRING),
        e.schema().columns().stream().map(c -> c.type()).toList());
    assertEquals(1L, e.value("id"));
    assertEquals(-2, e.value("small"));
    assertEquals(1.25f, e.value("f"));
    assertEquals(new BigDecimal("-12.345"), e.value("amount"));
    assertEquals("1.23", e.value("huge"), "decimals wider than 38 digits become strings");
    assertEquals(LocalDate.of(1969, 12, 29), e.value("day"));
    assertEquals(Instant.parse("1969-12-31T23:59:59.999999Z"), e.value("at_us"));
    assertEquals(Instant.ofEpochMilli(1500), e.value("at_ms"));
    assertEquals(Instant.parse("1970-01-01T00:00:01.000000001Z"), e.value("at_ns"));
    assertEquals(Instant.parse("2026-01-01T08:00:00Z"), e.value("zoned"));
    assertEquals("01:02:03.000000", e.value("t"));
    assertEquals("-0.005", e.value("vsd"));
    assertNull(e.value("s"));
  }

  @Test
  void malformedRecordsAreRefusedWithAReason() {
    DecodeException notJson = assertThrows(DecodeException.class, () -> decode(null, "{nope"));
    assertTrue(notJson.getMessage().contains("not valid JSON"), notJson.getMessage());
    DecodeException badOp = assertThrows(DecodeException.class, () -> decode(null, "{\"after\":{\"id\":1},\"op\":\"x\"}"));
    assertTrue(badOp.getMessage().contains("the unknown operation 'x' (expected c, u, d, r or t)"), badOp.getMessage());
    DecodeException longOp = assertThrows(DecodeException.class, () -> decode(null, "{\"after\":{\"id\":1},\"op\":\"secret value\"}"));
    assertTrue(longOp.getMessage().contains("an unknown operation of 12 characters") && !longOp.getMessage().contains("secret"),
        longOp.getMessage());
    DecodeException wrongType = assertThrows(DecodeException.class, () -> decode(null,
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"}]},\"payload\":{\"id\":\"abc\"}}"));
    assertTrue(wrongType.getMessage().contains("column id"), wrongType.getMessage());
    assertThrows(DecodeException.class, () -> decode(null, "[1,2]"));
  }

  /** A record with a Connect schema: one optional field, its value as given. */
  /** Debezium's truncate (skipped.operations=none): no row, ranked by source.ts_ms and its position. */
  @Test
  void truncatesAreEventsWithoutARow() throws Exception {
    List<String> truncates = List.of(
        // As Debezium documents it: source, op and ts_ms only.
        "{\"source\":{\"ts_ms\":1000,\"table\":\"t\"},\"op\":\"t\",\"ts_ms\":1005}",
        // As the JSON converter writes it with the envelope's schema fields: null images.
        "{\"before\":null,\"after\":null,\"source\":{\"ts_ms\":1000},\"op\":\"t\",\"ts_ms\":1005,\"transaction\":null}",
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":"
            + "[{\"type\":\"int64\",\"field\":\"id\"}]},{\"type\":\"string\",\"field\":\"op\"},{\"type\":\"struct\",\"field\":\"source\","
            + "\"fields\":[{\"type\":\"int64\",\"field\":\"ts_ms\"}]}]},"
            + "\"payload\":{\"after\":null,\"op\":\"t\",\"source\":{\"ts_ms\":1000}}}",
        // A flattened record whose __op says truncate: its other fields are no row.
        "{\"id\":null,\"__op\":\"t\",\"__source_ts_ms\":1000,\"__ts_ms\":1005}");
    for (String value : truncates) {
      ChangeEvent e = decode(null, value);
      assertEquals(Operation.TRUNCATE, e.op(), value);
      assertTrue(e.isTruncate(), value);
      assertEquals(1000L, e.tsMs(), value);
      assertEquals(0, e.schema().size(), value);
      assertEquals(List.of(), e.recordKeyFields(), value);
      assertEquals(at, e.position());
    }
    assertNull(decode(null, "{\"source\":{\"ts_ms\":1},\"op\":\"m\",\"message\":{\"prefix\":\"p\"}}"), "a logical decoding message");
    ChangeEvent row = decode(null, "{\"op\":\"t\",\"name\":\"x\"}");
    assertEquals(null, row.op(), "no 'source' block: a flattened row with a column named op, not a truncate");
  }

  /** Records of Debezium's schema-change and transaction topics are refused, named, never a row. */
  @Test
  void recordsOfTopicsWithoutTableChangesAreRefusedNamingTheTopic() {
    String schemaChange = "{\"source\":{\"ts_ms\":1},\"ts_ms\":2,\"databaseName\":\"inventory\",\"schemaName\":null,"
        + "\"ddl\":\"ALTER TABLE t ADD COLUMN c INT\",\"tableChanges\":[{\"type\":\"ALTER\",\"id\":\"inventory.t\"}]}";
    String withSchema = "{\"schema\":{\"type\":\"struct\",\"name\":\"io.debezium.connector.mysql.SchemaChangeValue\",\"fields\":["
        + "{\"type\":\"string\",\"field\":\"databaseName\"},{\"type\":\"string\",\"optional\":true,\"field\":\"ddl\"},"
        + "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"field\":\"tableChanges\"}]},"
        + "\"payload\":{\"databaseName\":\"inventory\",\"ddl\":\"DROP TABLE t\",\"tableChanges\":[]}}";
    String heartbeat = "{\"schema\":{\"type\":\"struct\",\"name\":\"io.debezium.connector.common.Heartbeat\",\"fields\":["
        + "{\"type\":\"int64\",\"field\":\"ts_ms\"}]},\"payload\":{\"ts_ms\":1700000000000}}";
    String transaction = "{\"status\":\"BEGIN\",\"id\":\"571:53195829\",\"event_count\":null,\"data_collections\":null,\"ts_ms\":1}";
    Map<String, NonTableTopic> records = Map.of(schemaChange, NonTableTopic.SCHEMA_CHANGES, withSchema, NonTableTopic.SCHEMA_CHANGES,
        transaction, NonTableTopic.TRANSACTION_METADATA, heartbeat, NonTableTopic.HEARTBEAT);
    records.forEach((value, kind) -> {
      DecodeException e = assertThrows(DecodeException.class, () -> decode(null, value), value);
      assertEquals(java.util.Optional.of(kind), e.nonTableTopic(), value);
      assertTrue(e.getMessage().contains(kind.what()) && e.getMessage().contains("topic " + at.topic()), e.getMessage());
      assertFalse(e.getMessage().contains("ALTER TABLE") || e.getMessage().contains("571:"), "no value is quoted: " + e.getMessage());
    });
    for (int i = 0; i < 2; i++) { // the second time through the path for a schema seen last
      DecodeException again = assertThrows(DecodeException.class, () -> decode(null, heartbeat));
      assertEquals(java.util.Optional.of(NonTableTopic.HEARTBEAT), again.nonTableTopic());
    }
    DecodeException flattenedWithOp = null;
    try {
      decode(null, "{\"status\":\"x\",\"id\":1,\"event_count\":3,\"data_collections\":null,\"__op\":\"c\"}");
    } catch (DecodeException e) {
      flattenedWithOp = e;
    }
    assertNull(flattenedWithOp, "a flattened row with __op is a table's row, whatever its columns");
  }

  /** MySQL's TIME beyond one day and negative, as the MySQL connector sends it; was a quarantine. */
  @Test
  void mysqlTimesBeyondOneDayAndNegativeOnesBecomeText() throws Exception {
    Map<String, String> expected = Map.of(
        "3020399000000", "838:59:59.000000",
        "-1000000", "-00:00:01.000000",
        "360000000000", "100:00:00.000000",
        "0", "00:00:00.000000",
        "45296500000", "12:34:56.500000");
    for (Map.Entry<String, String> v : expected.entrySet()) {
      ChangeEvent e = decode(null, typed("int64", "io.debezium.time.MicroTime", null, v.getKey()));
      assertEquals(ColumnType.STRING, e.schema().columns().get(0).type());
      assertEquals(v.getValue(), e.value("amount"), v.getKey());
    }
    assertEquals("-12:00:00.250", decode(null, typed("int32", "io.debezium.time.Time", null, "-43200250")).value("amount"));
  }

  private static String typed(String type, String name, String params, String value) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":[" + f(type, name, "amount", params) + "]},\"payload\":{\"amount\":" + value + "}}";
  }

  /** The record is refused as undecodable, quickly, naming the column and the limit but not the value. */
  private DecodeException hostile(String value, String column) {
    DecodeException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(DecodeException.class, () -> decode(null, value)));
    assertTrue(e.getMessage().startsWith("column " + column + ": "), e.getMessage());
    assertTrue(e.getMessage().contains("limit of 1000 digits"), e.getMessage());
    String undecodable = Errors.undecodable("lake.t", at, e.getMessage(), e).getMessage();
    assertTrue(undecodable.contains("topic db.t, partition 2, offset 41"), undecodable);
    for (String shown : List.of("1e999999999", "1E+999999999", "1E-999999999")) {
      assertFalse(undecodable.contains(shown), undecodable);
    }
    return e;
  }

  @Test
  void hostileNumbersAreRefusedQuicklyWithoutBeingRendered() {
    // Schemaless: plain notation of 1e999999999 would be a billion digits.
    hostile("{\"after\":{\"id\":1,\"n\":1e999999999},\"op\":\"c\"}", "n");
    hostile("{\"after\":{\"id\":1,\"n\":-1e-999999999},\"op\":\"c\"}", "n");
    hostile("{\"id\":1,\"n\":1E+2147483647,\"__op\":\"c\"}", "n");
    // Connect Decimal with a negative or absurd scale (a string column: it would render in full).
    String dec = "org.apache.kafka.connect.data.Decimal";
    hostile(typed("bytes", dec, "{\"scale\":\"-1000000000\",\"connect.decimal.precision\":\"10\"}", "\"" + unscaled("1") + "\""), "amount");
    hostile(typed("bytes", dec, "{\"scale\":\"2000000000\"}", "\"" + unscaled("1") + "\""), "amount");
    // decimal.format=NUMERIC: the number itself, into a decimal(10,2) column and a wide string one.
    hostile(typed("bytes", dec, "{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"}", "1e999999999"), "amount");
    hostile(typed("bytes", dec, "{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"}", "1e-999999999"), "amount");
    hostile(typed("bytes", dec, "{\"scale\":\"2\",\"connect.decimal.precision\":\"50\"}", "1e999999999"), "amount");
    // Debezium VariableScaleDecimal with a huge scale either way.
    String vsd = "io.debezium.data.VariableScaleDecimal";
    hostile(typed("struct", vsd, null, "{\"scale\":-1000000000,\"value\":\"" + unscaled("7") + "\"}"), "amount");
    hostile(typed("struct", vsd, null, "{\"scale\":2147483647,\"value\":\"" + unscaled("7") + "\"}"), "amount");
  }

  @Test
  void numbersAtTheLimitAndPlainStructsStillDecode() throws Exception {
    ChangeEvent e = decode(null, "{\"after\":{\"n\":1e999,\"nested\":{\"x\":1e999999999}},\"op\":\"c\"}");
    assertEquals("1" + "0".repeat(999), e.value("n"));
    assertEquals("{\"x\":1E+999999999}", e.value("nested"), "JSON text of an object keeps the number's short form");
  }

  @Test
  void everyMalformedInputIsADecodeException() {
    String dec = "org.apache.kafka.connect.data.Decimal";
    List<String> malformed = List.of(
        "{\"after\":5,\"op\":\"c\"}",
        "{\"after\":[1],\"op\":\"c\"}",
        "{\"schema\":{\"type\":\"struct\",\"fields\":\"no\"},\"payload\":{\"id\":1,\"__op\":\"c\"}}",
        "{\"schema\":{\"type\":\"struct\",\"fields\":[1,2]},\"payload\":{\"id\":1}}",
        typed("int64", null, null, "123456789012345678901234567890"),
        typed("int32", null, null, "4294967296"),
        typed("int32", null, null, "1.5"),
        typed("bytes", dec, "{\"scale\":\"two\"}", "\"" + unscaled("1") + "\""),
        typed("bytes", dec, "{\"scale\":\"2\",\"connect.decimal.precision\":\"4\"}", "\"" + unscaled("123456") + "\""),
        typed("bytes", dec, "{\"scale\":\"2\",\"connect.decimal.precision\":\"4\"}", "\"not base64!\""),
        typed("struct", "io.debezium.data.VariableScaleDecimal", null, "{\"scale\":\"x\",\"value\":\"AQ==\"}"),
        typed("struct", "io.debezium.data.VariableScaleDecimal", null, "{\"scale\":10000000000,\"value\":\"AQ==\"}"),
        typed("struct", "io.debezium.data.VariableScaleDecimal", null, "{\"scale\":1}"),
        typed("int32", "io.debezium.time.Date", null, "2147483647000"),
        typed("int64", "io.debezium.time.Timestamp", null, "9223372036854775807"),
        typed("string", "io.debezium.time.ZonedTimestamp", null, "\"not a time\""),
        typed("int64", "io.debezium.time.MicroTime", null, "\"12:00:00\""),
        "{\"op\":\"c\",\"before\":null,\"after\":null}",
        "\"just a string\"",
        "{\"after\":{\"n\":" + "1".repeat(2000) + "},\"op\":\"c\"}",
        "[".repeat(5000));
    for (String value : malformed) {
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(DecodeException.class, () -> decode("{\"id\":1}", value), value),
          value.length() > 200 ? value.substring(0, 200) : value);
    }
  }

  @Test
  void corruptRecordsAreDecodedOrRefusedButNeverABug() {
    String dec = "org.apache.kafka.connect.data.Decimal";
    String fields = "[" + String.join(",",
        f("int64", null, "id", null),
        f("int32", null, "small", null),
        f("bytes", dec, "amount", "{\"scale\":\"3\",\"connect.decimal.precision\":\"12\"}"),
        f("int32", "io.debezium.time.Date", "day", null),
        f("int64", "io.debezium.time.MicroTimestamp", "at", null),
        f("string", "io.debezium.time.ZonedTimestamp", "zoned", null),
        f("struct", "io.debezium.data.VariableScaleDecimal", "vsd", null),
        f("string", null, "s", null)) + "]";
    String good = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":"
        + fields + "},{\"type\":\"string\",\"field\":\"op\"}]},\"payload\":{\"after\":{\"id\":1,\"small\":2,\"amount\":\""
        + unscaled("-12345") + "\",\"day\":3,\"at\":4,\"zoned\":\"2026-01-01T10:00:00+02:00\",\"vsd\":{\"scale\":3,\"value\":\""
        + unscaled("-5") + "\"},\"s\":\"x\"},\"op\":\"c\"}}";
    String alphabet = "{}[]:,\"0123456789-+eE.abcnrstu \\";
    java.util.Random random = new java.util.Random(7); // fixed: the same inputs every run
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      for (int i = 0; i < 5000; i++) {
        StringBuilder bad = new StringBuilder(good);
        for (int edits = 1 + random.nextInt(3); edits > 0 && bad.length() > 0; edits--) {
          int at = random.nextInt(bad.length());
          switch (random.nextInt(3)) {
            case 0 -> bad.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
            case 1 -> bad.deleteCharAt(at);
            default -> bad.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
          }
        }
        try {
          decode("{\"id\":1}", bad.toString());
        } catch (DecodeException refused) {
          // fine: a corrupt record is undecodable; anything else escaping would be a bug
        }
      }
    });
  }

  @Test
  void envelopeFieldsMayComeInAnyOrder() throws Exception {
    // op before the images, source before op, before after after: the same delete each time.
    for (String value : List.of(
        "{\"op\":\"d\",\"source\":{\"snapshot\":\"last\",\"ts_ms\":5},\"after\":null,\"before\":{\"id\":7,\"n\":\"x\"}}",
        "{\"source\":{\"ts_ms\":5,\"snapshot\":\"last\"},\"before\":{\"id\":7,\"n\":\"x\"},\"op\":\"d\"}",
        "{\"after\":null,\"before\":{\"id\":7,\"n\":\"x\"},\"op\":\"d\",\"ts_ms\":9,\"source\":{\"ts_ms\":5,\"snapshot\":\"last\"}}")) {
      ChangeEvent e = decode("{\"id\":7}", value);
      assertEquals(Operation.DELETE, e.op(), value);
      assertEquals(5L, e.tsMs(), value);
      assertTrue(e.snapshotEnd(), value);
      assertArrayEquals(new Object[] {"7", "x"}, e.values(), value);
    }
    ChangeEvent opFirst = decode(null, "{\"op\":\"u\",\"ts_ms\":3,\"before\":{\"id\":1,\"n\":\"old\"},\"after\":{\"id\":1,\"n\":\"new\"}}");
    assertEquals(Operation.UPDATE, opFirst.op());
    assertEquals(3L, opFirst.tsMs());
    assertEquals("new", opFirst.value("n"), "an update is its after image, wherever op is");
  }

  @Test
  void aSchemaAfterItsPayloadStillTypesTheRow() throws Exception {
    String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"after\",\"fields\":["
        + f("int64", null, "id", null) + "," + f("bytes", "org.apache.kafka.connect.data.Decimal", "amount", "{\"scale\":\"2\",\"connect.decimal.precision\":\"8\"}")
        + "]},{\"type\":\"string\",\"field\":\"op\"}]}";
    String payload = "{\"after\":{\"amount\":\"" + unscaled("1250") + "\",\"id\":7},\"op\":\"c\"}";
    for (String value : List.of("{\"schema\":" + schema + ",\"payload\":" + payload + "}", "{\"payload\":" + payload + ",\"schema\":" + schema + "}")) {
      ChangeEvent e = decode(null, value);
      assertEquals(List.of(ColumnType.BIGINT, ColumnType.decimal(8, 2)), e.schema().columns().stream().map(c -> c.type()).toList(), value);
      assertArrayEquals(new Object[] {7L, new BigDecimal("12.50")}, e.values(), value);
    }
  }

  @Test
  void recordsWithTheSameSchemaShareTheirRowSchema() throws Exception {
    String schema = "{\"type\":\"struct\",\"fields\":[" + f("int64", null, "id", null) + "]}";
    ChangeEvent first = decode(null, "{\"schema\":" + schema + ",\"payload\":{\"id\":1}}");
    ChangeEvent second = decode(null, "{\"schema\":" + schema + ",\"payload\":{\"id\":2}}");
    ChangeEvent spaced = decode(null, "{\"schema\": " + schema.replace(",", ", ") + ",\"payload\":{\"id\":3}}");
    assertTrue(first.schema() == second.schema(), "the schema was read once");
    assertEquals(first.schema(), spaced.schema(), "a schema written differently reads the same");
    assertEquals(3L, spaced.value("id"));
  }

  @Test
  void aFlattenedRowMayStartWithAnEnvelopeFieldName() throws Exception {
    // A column named op, but neither before nor after: a flattened row, not an envelope.
    ChangeEvent e = decode(null, "{\"op\":\"insert\",\"source\":{\"a\":1},\"id\":3,\"__op\":\"c\",\"__source_ts_ms\":4}");
    assertEquals(Operation.CREATE, e.op());
    assertEquals(4L, e.tsMs());
    assertEquals(List.of("op", "source", "id"), e.schema().columns().stream().map(c -> c.name()).toList());
    assertArrayEquals(new Object[] {"insert", "{\"a\":1}", "3"}, e.values());
  }

  @Test
  void aNumberWhoseExponentCannotBeReadIsRefusedWithoutBeingQuoted() {
    for (String value : List.of(
        "{\"after\":{\"id\":1,\"n\":1e99999999999},\"op\":\"c\"}",
        typed("bytes", "org.apache.kafka.connect.data.Decimal", "{\"scale\":\"2\"}", "1E-99999999999"))) {
      DecodeException e = assertThrows(DecodeException.class, () -> decode(null, value), value);
      assertTrue(e.getMessage().contains("exponent is too large"), e.getMessage());
      assertFalse(e.getMessage().contains("99999999999"), e.getMessage());
    }
  }

  @Test
  void theRecordKeyIsReadOnlyWhenItsFieldsAreAskedFor() throws Exception {
    String value = "{\"after\":{\"id\":7},\"op\":\"c\"}";
    ChangeEvent plain = decode("{\"id\":7,\"region\":\"eu\",\"id\":8}", value);
    assertTrue(plain.recordKeyFields() instanceof RecordKeyFields, "not parsed while decoding");
    assertEquals(List.of("id", "region"), plain.recordKeyFields());
    assertEquals(List.of("id"), decode("{\"schema\":{\"type\":\"struct\"},\"payload\":{\"id\":7}}", value).recordKeyFields());
    assertEquals(List.of(), decode("{\"schema\":{},\"payload\":7}", value).recordKeyFields());
    assertEquals(List.of(), decode("{\"id\":7", value).recordKeyFields(), "a key that is not JSON is no default primary key");
    assertEquals(List.of(), decode("[\"id\"]", value).recordKeyFields());
    assertEquals(List.of(), decode(null, value).recordKeyFields());
  }

  @Test
  void aVeryWideRowDecodesInLinearTime() {
    // 200,000 fields, each looked up among those before it, would take minutes.
    StringBuilder row = new StringBuilder("{\"after\":{");
    for (int i = 0; i < 200_000; i++) {
      row.append(i == 0 ? "" : ",").append("\"c").append(i).append("\":").append(i);
    }
    String value = row.append(",\"c7\":\"again\"},\"op\":\"c\"}").toString();
    ChangeEvent e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> decode(null, value));
    assertEquals(200_000, e.schema().size());
    assertEquals("again", e.value("c7"), "a repeated field keeps its place and takes its last value");
    assertEquals("199999", e.value("c199999"));
  }

  private static String f(String type, String name, String field, String params) {
    return "{\"type\":\"" + type + "\",\"optional\":true" + (name == null ? "" : ",\"name\":\"" + name + "\"")
        + (params == null ? "" : ",\"parameters\":" + params) + ",\"field\":\"" + field + "\"}";
  }

  private static String unscaled(String v) {
    return Base64.getEncoder().encodeToString(new BigInteger(v).toByteArray());
  }
}
