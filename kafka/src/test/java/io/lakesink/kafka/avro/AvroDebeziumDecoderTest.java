package io.lakesink.kafka.avro;

import io.lakesink.error.ConfigurationException;
import static io.lakesink.kafka.avro.AvroRecords.envelope;
import static io.lakesink.kafka.avro.AvroRecords.fixedDecimal;
import static io.lakesink.kafka.avro.AvroRecords.resource;
import static io.lakesink.kafka.avro.AvroRecords.source;
import static io.lakesink.kafka.avro.AvroRecords.unscaled;
import static io.lakesink.kafka.avro.AvroRecords.wire;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.testing.MutableClock;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AvroDebeziumDecoderTest {
  static final Schema KEY = resource("key.avsc");
  static final Schema ALL_TYPES = resource("all-types-value.avsc");
  static final Schema ALL_TYPES_ENVELOPE = envelope(ALL_TYPES, false);
  static final Schema V1 = resource("customers-value-v1.avsc");
  static final Schema V2 = resource("customers-value-v2.avsc");
  static final Schema V1_ENVELOPE = envelope(V1, false);
  static final Schema V2_ENVELOPE = envelope(V2, false);
  static final Schema FLATTENED = resource("customers-flattened.avsc");

  final SourcePosition at = new SourcePosition("db.inv.t", 1, 17);
  final MutableClock clock = new MutableClock();
  TestSchemaRegistry registry;
  SchemaRegistryClient client;
  AvroDebeziumDecoder decoder;

  @BeforeEach
  void start() throws Exception {
    registry = TestSchemaRegistry.start();
    client = client(Duration.ofSeconds(2), 3);
    decoder = new AvroDebeziumDecoder(client);
  }

  SchemaRegistryClient client(Duration timeout, int attempts) {
    return new SchemaRegistryClient(
        SchemaRegistrySettings.of(registry.url()).withTimeout(timeout),
        new SchemaRegistryClient.Limits(attempts, Duration.ofMillis(10), FAILURE_BACKOFF, 100),
        clock);
  }

  static final Duration FAILURE_BACKOFF = Duration.ofSeconds(5);

  @AfterEach
  void stop() {
    registry.close();
  }

  ChangeEvent decode(byte[] key, byte[] value) throws DecodeException {
    return decoder.decode(at, key, value);
  }

  byte[] key(long id) throws Exception {
    int keyId = registry.register("db.inv.t-key", KEY);
    return wire(keyId, KEY, new GenericRecordBuilder(KEY).set("id", id).build());
  }

  GenericData.Record envelopeRecord(Schema envelope, String op, GenericRecord before, GenericRecord after, Long sourceTs, Long ts) {
    return new GenericRecordBuilder(envelope)
        .set("before", before).set("after", after).set("op", op).set("ts_ms", ts)
        .set("source", sourceTs == null ? null : source(envelope, sourceTs))
        .build();
  }

  byte[] value(Schema envelope, String op, GenericRecord before, GenericRecord after, Long sourceTs, Long ts) throws Exception {
    int id = registry.register("db.inv.t-value", envelope);
    return wire(id, envelope, envelopeRecord(envelope, op, before, after, sourceTs, ts));
  }

  static GenericRecord customer(Schema schema, long id, String name) {
    GenericRecordBuilder b = new GenericRecordBuilder(schema).set("id", id).set("name", name);
    return b.build();
  }

  static GenericRecordBuilder allTypes(long id) {
    GenericRecordBuilder b = new GenericRecordBuilder(ALL_TYPES).set("id", id).set("either", 0);
    return b;
  }

  static Schema field(String name) {
    return AvroRowSchema.unwrapOptional(ALL_TYPES.getField(name).schema());
  }

  @Test
  void envelopeTypesEveryColumnFromTheWriterSchema() throws Exception {
    Map<String, Long> attrs = new LinkedHashMap<>();
    attrs.put("b", 2L);
    attrs.put("a", 1L);
    attrs.put("none", null);
    GenericRecord point = new GenericRecordBuilder(field("point"))
        .set("x", 1.5).set("y", -2.0).set("wkb", ByteBuffer.wrap(new byte[] {1, 2})).build();
    GenericRecord vsd = new GenericRecordBuilder(field("vsd")).set("scale", 3).set("value", unscaled("-5")).build();
    GenericRecord after = allTypes(1)
        .set("small", -32768)
        .set("counter", 9_007_199_254_740_993L)
        .set("flag", true)
        .set("f", 1.25f)
        .set("d", -2.5e-300)
        .set("amount", unscaled("-12345.678"))
        .set("big_scale", unscaled("-12345678.123456789012345678901234567890"))
        .set("huge", unscaled("-12345678901234567890123456789012345678.90"))
        .set("no_precision", unscaled("3.1416"))
        .set("fixed_dec", fixedDecimal(field("fixed_dec"), "-1234.56"))
        .set("day", -3)
        .set("avro_day", -719162) // 0001-01-01
        .set("at_ms", -1500L)
        .set("at_us", -1L)
        .set("at_ns", 1_000_000_001L)
        .set("zoned", "2026-01-01T10:00:00+02:00")
        .set("ts_millis", 1_767_225_600_123L)
        .set("ts_micros", -86_400_000_001L)
        .set("local_ts", 1_000_000L)
        .set("t_millis", 3_723_004)
        .set("t_micros", 3_723_000_005L)
        .set("micro_time", 45_296_789_000L)
        .set("vsd", vsd)
        .set("s", "héllo \"quoted\"")
        .set("color", new GenericData.EnumSymbol(field("color"), "GREEN"))
        .set("hash", new GenericData.Fixed(field("hash"), new byte[] {1, 2, 3, (byte) 0xff}))
        .set("blob", ByteBuffer.wrap(new byte[] {0, (byte) 0xfe}))
        .set("point", point)
        .set("tags", List.of("a", "b,c"))
        .set("attrs", attrs)
        .set("either", 42)
        .set("maybe_either", "abc")
        .set("uid", "6f1c1b0e-8d3a-4c47-9a51-1f0f6d0c2e11")
        .build();
    ChangeEvent e = decode(key(1), value(ALL_TYPES_ENVELOPE, "r", null, after, 1000L, 1005L));

    assertEquals(Operation.READ, e.op());
    assertEquals(1000L, e.tsMs(), "the change time is source.ts_ms");
    assertEquals(List.of("id"), e.recordKeyFields());
    assertEquals(at, e.position());
    assertTrue(e.schema().typed());
    Map<String, ColumnType> expected = new LinkedHashMap<>();
    expected.put("id", ColumnType.BIGINT);
    expected.put("small", ColumnType.INT);
    expected.put("counter", ColumnType.BIGINT);
    expected.put("flag", ColumnType.BOOLEAN);
    expected.put("f", ColumnType.FLOAT);
    expected.put("d", ColumnType.DOUBLE);
    expected.put("amount", ColumnType.decimal(12, 3));
    expected.put("big_scale", ColumnType.decimal(38, 30));
    expected.put("huge", ColumnType.STRING);
    expected.put("no_precision", ColumnType.STRING);
    expected.put("fixed_dec", ColumnType.decimal(10, 2));
    expected.put("day", ColumnType.DATE);
    expected.put("avro_day", ColumnType.DATE);
    expected.put("at_ms", ColumnType.TIMESTAMP);
    expected.put("at_us", ColumnType.TIMESTAMP);
    expected.put("at_ns", ColumnType.TIMESTAMP);
    expected.put("zoned", ColumnType.TIMESTAMP);
    expected.put("ts_millis", ColumnType.TIMESTAMP);
    expected.put("ts_micros", ColumnType.TIMESTAMP);
    expected.put("local_ts", ColumnType.TIMESTAMP);
    expected.put("t_millis", ColumnType.STRING);
    expected.put("t_micros", ColumnType.STRING);
    expected.put("micro_time", ColumnType.STRING);
    expected.put("vsd", ColumnType.STRING);
    expected.put("s", ColumnType.STRING);
    expected.put("color", ColumnType.STRING);
    expected.put("hash", ColumnType.STRING);
    expected.put("blob", ColumnType.STRING);
    expected.put("point", ColumnType.STRING);
    expected.put("tags", ColumnType.STRING);
    expected.put("attrs", ColumnType.STRING);
    expected.put("either", ColumnType.STRING);
    expected.put("maybe_either", ColumnType.STRING);
    expected.put("uid", ColumnType.STRING);
    assertEquals(expected.entrySet().stream().map(x -> new Column(x.getKey(), x.getValue())).toList(), e.schema().columns());

    assertEquals(1L, e.value("id"));
    assertEquals(-32768, e.value("small"));
    assertEquals(9_007_199_254_740_993L, e.value("counter"));
    assertEquals(Boolean.TRUE, e.value("flag"));
    assertEquals(1.25f, e.value("f"));
    assertEquals(-2.5e-300, e.value("d"));
    assertEquals(new BigDecimal("-12345.678"), e.value("amount"));
    assertEquals(new BigDecimal("-12345678.123456789012345678901234567890"), e.value("big_scale"));
    assertEquals(30, ((BigDecimal) e.value("big_scale")).scale());
    assertEquals("-12345678901234567890123456789012345678.90", e.value("huge"), "wider than 38 digits: exact text");
    assertEquals("3.1416", e.value("no_precision"));
    assertEquals(new BigDecimal("-1234.56"), e.value("fixed_dec"));
    assertEquals(LocalDate.of(1969, 12, 29), e.value("day"));
    assertEquals(LocalDate.of(1, 1, 1), e.value("avro_day"));
    assertEquals(Instant.parse("1969-12-31T23:59:58.500Z"), e.value("at_ms"));
    assertEquals(Instant.parse("1969-12-31T23:59:59.999999Z"), e.value("at_us"));
    assertEquals(Instant.parse("1970-01-01T00:00:01.000000001Z"), e.value("at_ns"));
    assertEquals(Instant.parse("2026-01-01T08:00:00Z"), e.value("zoned"));
    assertEquals(Instant.parse("2026-01-01T00:00:00.123Z"), e.value("ts_millis"));
    assertEquals(Instant.parse("1969-12-30T23:59:59.999999Z"), e.value("ts_micros"));
    assertEquals(Instant.parse("1970-01-01T00:00:01Z"), e.value("local_ts"));
    assertEquals("01:02:03.004", e.value("t_millis"));
    assertEquals("01:02:03.000005", e.value("t_micros"));
    assertEquals("12:34:56.789000", e.value("micro_time"));
    assertEquals("-0.005", e.value("vsd"));
    assertEquals("héllo \"quoted\"", e.value("s"));
    assertEquals("GREEN", e.value("color"));
    assertEquals("AQID/w==", e.value("hash"), "fixed: base64");
    assertEquals("AP4=", e.value("blob"), "bytes: base64");
    assertEquals("{\"x\":1.5,\"y\":-2.0,\"srid\":null,\"wkb\":\"AQI=\"}", e.value("point"), "records: JSON, bytes inside as base64");
    assertEquals("[\"a\",\"b,c\"]", e.value("tags"));
    assertEquals("{\"a\":1,\"b\":2,\"none\":null}", e.value("attrs"), "maps: JSON with sorted keys");
    assertEquals("42", e.value("either"), "a non-null union: its value as text");
    assertEquals("abc", e.value("maybe_either"));
    assertEquals("6f1c1b0e-8d3a-4c47-9a51-1f0f6d0c2e11", e.value("uid"));
  }

  @Test
  void nullsInEveryOptionalColumn() throws Exception {
    GenericRecord after = allTypes(2).set("either", "x").build();
    ChangeEvent e = decode(null, value(ALL_TYPES_ENVELOPE, "c", null, after, 5L, null));
    assertEquals(Operation.CREATE, e.op());
    assertEquals(2L, e.value("id"));
    assertEquals("x", e.value("either"));
    Object[] others = Arrays.copyOfRange(e.values(), 1, e.values().length);
    int eitherIndex = e.schema().indexOf("either") - 1;
    others[eitherIndex] = null;
    assertTrue(Arrays.stream(others).allMatch(v -> v == null), Arrays.toString(e.values()));
    assertEquals(List.of(), e.recordKeyFields(), "no key, no key fields");
  }

  @Test
  void edgeValuesAcrossRows() throws Exception {
    Map<String, Instant> zoned = Map.of(
        "2026-03-01T10:00:00+02:00", Instant.parse("2026-03-01T08:00:00Z"),
        "2026-03-01T10:00:00-05:30", Instant.parse("2026-03-01T15:30:00Z"),
        "2026-03-01T10:00:00Z", Instant.parse("2026-03-01T10:00:00Z"),
        "1960-06-15T23:59:59.123456+14:00", Instant.parse("1960-06-15T09:59:59.123456Z"));
    for (Map.Entry<String, Instant> z : zoned.entrySet()) {
      ChangeEvent e = decode(null, value(ALL_TYPES_ENVELOPE, "u", null, allTypes(3).set("zoned", z.getValue() == null ? null : z.getKey()).build(), 1L, 2L));
      assertEquals(z.getValue(), e.value("zoned"), z.getKey());
    }
    GenericRecord row = allTypes(4)
        .set("day", -719162)
        .set("at_ns", -1L)
        .set("at_us", -62_135_596_800_000_000L)
        .set("amount", unscaled("-0.001"))
        .set("big_scale", unscaled("0.000000000000000000000000000001"))
        .set("huge", unscaled("0.01"))
        .set("vsd", new GenericRecordBuilder(field("vsd")).set("scale", 0).set("value", unscaled("123456789012345678901234567890123456789012")).build())
        .set("f", Float.NaN)
        .set("d", Double.NEGATIVE_INFINITY)
        .set("flag", false)
        .set("tags", List.of())
        .set("attrs", Map.of())
        .set("s", "")
        .set("t_millis", 0)
        .set("t_micros", -1_000_000L)
        .set("micro_time", 3_020_399_000_000L)
        .build();
    ChangeEvent e = decode(null, value(ALL_TYPES_ENVELOPE, "u", null, row, 1L, 2L));
    assertEquals(LocalDate.of(1, 1, 1), e.value("day"));
    assertEquals(Instant.parse("1969-12-31T23:59:59.999999999Z"), e.value("at_ns"));
    assertEquals(Instant.parse("0001-01-01T00:00:00Z"), e.value("at_us"));
    assertEquals(new BigDecimal("-0.001"), e.value("amount"));
    assertEquals(new BigDecimal("1E-30"), e.value("big_scale"));
    assertEquals("0.01", e.value("huge"));
    assertEquals("123456789012345678901234567890123456789012", e.value("vsd"));
    assertEquals(Float.NaN, e.value("f"));
    assertEquals(Double.NEGATIVE_INFINITY, e.value("d"));
    assertEquals(Boolean.FALSE, e.value("flag"));
    assertEquals("[]", e.value("tags"));
    assertEquals("{}", e.value("attrs"));
    assertEquals("", e.value("s"));
    assertEquals("00:00:00.000", e.value("t_millis"), "midnight, at the unit's width");
    assertEquals("-00:00:01.000000", e.value("t_micros"), "MySQL's negative TIME");
    assertEquals("838:59:59.000000", e.value("micro_time"), "MySQL's largest TIME, beyond one day");
  }

  @Test
  void changeTimeFallsBackToTheEnvelopeTimestamp() throws Exception {
    Schema env = envelope(V1, true);
    ChangeEvent e = decode(null, value(env, "u", null, customer(V1, 1, "a"), null, 99L));
    assertEquals(99L, e.tsMs());
    assertEquals(Operation.UPDATE, e.op());
    ChangeEvent none = decode(null, value(env, "u", null, customer(V1, 1, "a"), null, null));
    assertNull(none.tsMs());
  }

  @Test
  void deletesUseTheBeforeImageElseTheKey() throws Exception {
    ChangeEvent withBefore = decode(key(7), value(V1_ENVELOPE, "d", customer(V1, 7, "x"), null, 5L, 6L));
    assertTrue(withBefore.isDelete());
    assertEquals("x", withBefore.value("name"));
    assertEquals(7L, withBefore.value("id"));

    ChangeEvent keyOnly = decode(key(8), value(V1_ENVELOPE, "d", null, null, 5L, 6L));
    assertTrue(keyOnly.isDelete());
    assertEquals(List.of(new Column("id", ColumnType.BIGINT)), keyOnly.schema().columns());
    assertArrayEquals(new Object[] {8L}, keyOnly.values());
    assertEquals(List.of("id"), keyOnly.recordKeyFields());
    assertSame(keyOnly.schema(), decode(key(9), value(V1_ENVELOPE, "d", null, null, 5L, 6L)).schema());

    DecodeException noKey = assertThrows(DecodeException.class, () -> decode(null, value(V1_ENVELOPE, "d", null, null, 5L, 6L)));
    assertTrue(noKey.getMessage().contains("neither a 'before' image nor"), noKey.getMessage());
    DecodeException noAfter = assertThrows(DecodeException.class, () -> decode(key(1), value(V1_ENVELOPE, "c", null, null, 5L, 6L)));
    assertTrue(noAfter.getMessage().contains("without an 'after' image"), noAfter.getMessage());
  }

  @Test
  void tombstonesAndMessagesCarryNoChangeATruncateCarriesNoRow() throws Exception {
    assertNull(decode(key(7), null));
    assertNull(decode(null, value(V1_ENVELOPE, "m", null, null, 5L, 6L)));
    ChangeEvent truncate = decode(null, value(V1_ENVELOPE, "t", null, null, 5L, 6L));
    assertEquals(Operation.TRUNCATE, truncate.op());
    assertEquals(5L, truncate.tsMs(), "ranked by source.ts_ms like any change");
    assertEquals(0, truncate.schema().size());
    assertEquals(at, truncate.position());
    DecodeException badOp = assertThrows(DecodeException.class, () -> decode(null, value(V1_ENVELOPE, "x", null, customer(V1, 1, "a"), 5L, 6L)));
    assertTrue(badOp.getMessage().contains("the unknown operation 'x'"), badOp.getMessage());
    DecodeException longOp = assertThrows(DecodeException.class, () -> decode(null, value(V1_ENVELOPE, "not an op", null, customer(V1, 1, "a"), 5L, 6L)));
    assertTrue(longOp.getMessage().contains("of 9 characters") && !longOp.getMessage().contains("not an op"), longOp.getMessage());
  }

  /** Heartbeats and transaction markers in Avro: recognised by their schema names, refused, never a row. */
  @Test
  void recordsOfTopicsWithoutTableChangesAreRefused() throws Exception {
    Schema heartbeat = new Schema.Parser().parse("""
        {"type":"record","name":"Heartbeat","namespace":"io.debezium.connector.common",
         "fields":[{"name":"ts_ms","type":"long"}],"connect.name":"io.debezium.connector.common.Heartbeat"}""");
    Schema transaction = new Schema.Parser().parse("""
        {"type":"record","name":"TransactionMetadataValue","namespace":"io.debezium.connector.common",
         "fields":[{"name":"status","type":"string"},{"name":"id","type":"string"},
           {"name":"event_count","type":["null","long"],"default":null},
           {"name":"ts_ms","type":"long"}]}""");
    byte[] beat = wire(registry.register("hb-value", heartbeat), heartbeat, new GenericRecordBuilder(heartbeat).set("ts_ms", 5L).build());
    byte[] begin = wire(registry.register("tx-value", transaction), transaction,
        new GenericRecordBuilder(transaction).set("status", "BEGIN").set("id", "tx-1").set("ts_ms", 5L).build());
    DecodeException e1 = assertThrows(DecodeException.class, () -> decode(null, beat));
    assertEquals(java.util.Optional.of(io.lakesink.event.NonTableTopic.HEARTBEAT), e1.nonTableTopic());
    assertTrue(e1.getMessage().contains("Debezium's heartbeat topic") && e1.getMessage().contains(at.topic()), e1.getMessage());
    DecodeException e2 = assertThrows(DecodeException.class, () -> decode(null, begin));
    assertEquals(java.util.Optional.of(io.lakesink.event.NonTableTopic.TRANSACTION_METADATA), e2.nonTableTopic());
  }

  @Test
  void keysThatAreNotConfluentAvroGiveNoKeyFields() throws Exception {
    byte[] value = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 5L, 6L);
    assertEquals(List.of(), decode("{\"id\":1}".getBytes(StandardCharsets.UTF_8), value).recordKeyFields());
    assertEquals(List.of(), decode(new byte[] {0, 0, 0, 0}, value).recordKeyFields(), "too short for the header");
    int stringKeyId = registry.register("db.inv.t-key", Schema.create(Schema.Type.STRING));
    assertEquals(List.of(), decode(wire(stringKeyId, Schema.create(Schema.Type.STRING), "k1"), value).recordKeyFields(),
        "a primitive key has no field names");
    assertEquals(List.of("id"), decode(key(1), value).recordKeyFields());
  }

  @Test
  void aKeyWhoseSchemaCannotBeHadFailsTheRecordAndIsNeverTakenForNoKey() throws Exception {
    byte[] value = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 5L, 6L);
    byte[] key = key(1);
    int keyId = AvroDebeziumDecoder.schemaId(key);
    String keyPath = "/schemas/ids/" + keyId;
    assertEquals(List.of(), decode(null, value).recordKeyFields(), "the value's schema is cached, no key asked");

    // The registry is down: the key fails like a value would, as retryable.
    registry.failWith(503);
    RetryableException down = assertThrows(RetryableException.class, () -> decode(key, value));
    assertTrue(down.getMessage().contains("schema id " + keyId), down.getMessage());
    registry.up();
    clock.advance(FAILURE_BACKOFF);
    assertEquals(List.of("id"), decode(key, value).recordKeyFields());

    // A registry that refuses the key's id (a proxy answering 401: a worker-level fault) fails
    // the record; nothing is remembered, so once the registry answers again the key's fields are back.
    AvroDebeziumDecoder fresh = new AvroDebeziumDecoder(client(Duration.ofSeconds(2), 3));
    assertEquals(List.of(), fresh.decode(at, null, value).recordKeyFields());
    int asked = registry.requests(keyPath);
    registry.failWith(401);
    ConfigurationException refused = assertThrows(ConfigurationException.class, () -> fresh.decode(at, key, value));
    assertTrue(refused.getMessage().contains("HTTP 401"), refused.getMessage());
    registry.up();
    assertEquals(List.of("id"), fresh.decode(at, key, value).recordKeyFields(), "the failure was not cached as 'no key'");
    assertEquals(asked + 2, registry.requests(keyPath));

    DecodeException unknown = assertThrows(DecodeException.class, () -> decode(new byte[] {0, 0, 0, 3, (byte) 0xe7, 2}, value));
    assertTrue(unknown.getMessage().contains("unknown schema id 999"), unknown.getMessage());
    assertThrows(DecodeException.class, () -> decode(new byte[] {0, 0, 0, 3, (byte) 0xe7, 2}, value));
    assertEquals(2, registry.requests("/schemas/ids/999"), "asked again: an unknown key id is not remembered either");
  }

  @Test
  void flattenedRecordsTakeMetadataFromTheirFields() throws Exception {
    int id = registry.register("db.inv.t-value", FLATTENED);
    ChangeEvent e = decode(key(3), wire(id, FLATTENED, flat(3, "a", "d", 20L, 10L, "true")));
    assertEquals(Operation.DELETE, e.op());
    assertEquals(10L, e.tsMs());
    assertEquals(List.of(new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING)), e.schema().columns(),
        "metadata fields are not columns");
    assertArrayEquals(new Object[] {3L, "a"}, e.values());
    assertEquals(List.of("id"), e.recordKeyFields());

    ChangeEvent noSourceTs = decode(null, wire(id, FLATTENED, flat(3, "b", "u", 20L, null, "false")));
    assertEquals(20L, noSourceTs.tsMs());
    assertEquals(Operation.UPDATE, noSourceTs.op());
    assertSame(e.schema(), noSourceTs.schema());
    ChangeEvent noOp = decode(null, wire(id, FLATTENED, flat(3, null, null, null, null, "true")));
    assertEquals(Operation.DELETE, noOp.op(), "__deleted alone marks a delete");
    assertNull(noOp.tsMs());
    ChangeEvent unknown = decode(null, wire(id, FLATTENED, flat(4, "c", null, null, null, "false")));
    assertNull(unknown.op(), "a row without an operation keeps it unknown");
    DecodeException badOp = assertThrows(DecodeException.class, () -> decode(null, wire(id, FLATTENED, flat(4, "c", "z", null, null, null))));
    assertTrue(badOp.getMessage().contains("__op"), badOp.getMessage());

    // A flattened record without any metadata field (ExtractNewRecordState without add.fields).
    int plain = registry.register("db.inv.t-value", V1);
    ChangeEvent bare = decode(null, wire(plain, V1, customer(V1, 5, "e")));
    assertNull(bare.op());
    assertEquals(e.schema(), bare.schema());
    assertSame(e.schema(), bare.schema(), "equal columns share one RowSchema instance");
  }

  private static GenericRecord flat(long id, String name, String op, Long ts, Long sourceTs, String deleted) {
    return new GenericRecordBuilder(FLATTENED).set("id", id).set("name", name).set("__op", op).set("__ts_ms", ts)
        .set("__source_ts_ms", sourceTs).set("__deleted", deleted).build();
  }

  /** A string value that repeats across records is one String, as the JSON decoder makes it. */
  @Test
  void aStringThatRepeatsIsOneStringAcrossRecords() throws Exception {
    ChangeEvent first = decode(key(1), value(V1_ENVELOPE, "c", null, customer(V1, 1, "shipped"), 1L, 1L));
    ChangeEvent second = decode(key(2), value(V1_ENVELOPE, "c", null, customer(V1, 2, "shipped"), 2L, 2L));
    ChangeEvent other = decode(key(3), value(V1_ENVELOPE, "c", null, customer(V1, 3, "\u00e9t\u00e9"), 3L, 3L));
    assertEquals("shipped", first.value("name"));
    assertSame(first.value("name"), second.value("name"));
    assertEquals("\u00e9t\u00e9", other.value("name"), "beyond ASCII: made as read, still its own text");
  }

  @Test
  void aSchemaChangeMidStreamGivesASecondRowSchemaWithTheNewColumnLast() throws Exception {
    byte[] a1 = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L);
    GenericRecord withEmail = new GenericRecordBuilder(V2).set("id", 2L).set("name", "b").set("email", "b@x").build();
    byte[] b1 = value(V2_ENVELOPE, "c", null, withEmail, 2L, 2L);
    byte[] a2 = value(V1_ENVELOPE, "u", customer(V1, 1, "a"), customer(V1, 1, "a2"), 3L, 3L);
    byte[] b2 = value(V2_ENVELOPE, "u", null, new GenericRecordBuilder(V2).set("id", 2L).build(), 4L, 4L);
    int v1 = AvroDebeziumDecoder.schemaId(a1);
    int v2 = AvroDebeziumDecoder.schemaId(b1);
    assertTrue(v1 != v2);

    ChangeEvent e1 = decode(key(1), a1);
    ChangeEvent e2 = decode(key(2), b1);
    ChangeEvent e3 = decode(key(1), a2);
    ChangeEvent e4 = decode(key(2), b2);
    RowSchema first = e1.schema();
    RowSchema second = e2.schema();
    assertNotSame(first, second);
    assertEquals(List.of("id", "name"), first.columns().stream().map(Column::name).toList());
    assertEquals(List.of("id", "name", "email"), second.columns().stream().map(Column::name).toList());
    assertEquals(new Column("email", ColumnType.STRING), second.columns().get(2));
    assertSame(first, e3.schema(), "the same writer schema id reuses its RowSchema");
    assertSame(second, e4.schema());
    assertEquals("b@x", e2.value("email"));
    assertEquals("a2", e3.value("name"));
    assertNull(e4.value("email"));

    assertEquals(1, registry.requests("/schemas/ids/" + v1), "each schema is fetched once");
    assertEquals(1, registry.requests("/schemas/ids/" + v2));
    int keyId = AvroDebeziumDecoder.schemaId(key(1));
    assertEquals(1, registry.requests("/schemas/ids/" + keyId));

    // A second decoder (another subscription) sharing the client fetches nothing more.
    int before = registry.totalRequests();
    AvroDebeziumDecoder other = new AvroDebeziumDecoder(client);
    for (int i = 0; i < 50; i++) {
      other.decode(at, key(i), i % 2 == 0 ? a1 : b1);
    }
    assertEquals(before + 50, registry.totalRequests(), "only the test's own key registrations hit the registry");
  }

  @Test
  void unknownSchemaIdIsUndecodable() throws Exception {
    byte[] value = AvroRecords.wire(4242, V1_ENVELOPE, envelopeRecord(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L));
    DecodeException e = assertThrows(DecodeException.class, () -> decode(null, value));
    assertTrue(e.getMessage().contains("unknown schema id 4242"), e.getMessage());
    assertTrue(e.getMessage().contains(registry.url()), e.getMessage());
    assertEquals(1, registry.requests("/schemas/ids/4242"), "a 404 is not retried");
  }

  @Test
  void registryDownIsRetryableAndRecovers() throws Exception {
    byte[] value = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L);
    int id = AvroDebeziumDecoder.schemaId(value);
    registry.failWith(503);
    RetryableException down = assertThrows(RetryableException.class, () -> decode(null, value));
    assertTrue(down.getMessage().contains(registry.url()), down.getMessage());
    assertTrue(down.getMessage().contains("HTTP 503"), down.getMessage());
    assertEquals(3, registry.requests("/schemas/ids/" + id), "tried three times");
    registry.up();
    clock.advance(FAILURE_BACKOFF);
    ChangeEvent e = decode(null, value);
    assertEquals("a", e.value("name"));
    assertEquals(4, registry.requests("/schemas/ids/" + id));
    decode(null, value);
    assertEquals(4, registry.requests("/schemas/ids/" + id), "cached once fetched");
  }

  @Test
  void registryThatDoesNotAnswerTimesOutAsRetryable() throws Exception {
    byte[] value = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L);
    AvroDebeziumDecoder impatient = new AvroDebeziumDecoder(client(Duration.ofMillis(300), 2));
    registry.hang();
    long start = System.nanoTime();
    RetryableException e = assertThrows(RetryableException.class, () -> impatient.decode(at, null, value));
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos());
    assertTrue(e.getMessage().toLowerCase().contains("timed out") || e.getMessage().contains("Timeout"), e.getMessage());
    registry.up();
    clock.advance(FAILURE_BACKOFF);
    assertEquals("a", impatient.decode(at, null, value).value("name"));
  }

  @Test
  void recordsThatAreNotConfluentAvroAreRefusedWithAReason() throws Exception {
    DecodeException json = assertThrows(DecodeException.class, () -> decode(null, "{\"op\":\"c\"}".getBytes(StandardCharsets.UTF_8)));
    assertTrue(json.getMessage().contains("not Confluent Avro: first byte 0x7b (looks like JSON)"), json.getMessage());
    DecodeException container = assertThrows(DecodeException.class, () -> decode(null, new byte[] {'O', 'b', 'j', 1, 0, 0}));
    assertTrue(container.getMessage().contains("Avro container file"), container.getMessage());
    DecodeException binary = assertThrows(DecodeException.class, () -> decode(null, new byte[] {(byte) 0x83, 1, 2, 3, 4, 5}));
    assertTrue(binary.getMessage().contains("first byte 0x83"), binary.getMessage());
    DecodeException empty = assertThrows(DecodeException.class, () -> decode(null, new byte[0]));
    assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
    DecodeException shortOne = assertThrows(DecodeException.class, () -> decode(null, new byte[] {0, 0, 1}));
    assertTrue(shortOne.getMessage().contains("3 bytes"), shortOne.getMessage());
    assertEquals(0, registry.totalRequests(), "nothing asked of the registry");
  }

  @Test
  void bodiesThatDoNotMatchTheirWriterSchemaAreRefused() throws Exception {
    byte[] good = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L);
    byte[] truncated = Arrays.copyOf(good, good.length - 3);
    DecodeException t = assertThrows(DecodeException.class, () -> decode(null, truncated));
    assertTrue(t.getMessage().contains("does not match writer schema id " + AvroDebeziumDecoder.schemaId(good)), t.getMessage());
    byte[] longer = Arrays.copyOf(good, good.length + 2);
    DecodeException l = assertThrows(DecodeException.class, () -> decode(null, longer));
    assertTrue(l.getMessage().contains("left over"), l.getMessage());
    // The decoder is still fine afterwards (reused readers and datums are not left broken).
    assertEquals("a", decode(null, good).value("name"));
    // A value whose schema is not a record.
    int stringId = registry.register("other-value", Schema.create(Schema.Type.STRING));
    DecodeException notRecord = assertThrows(DecodeException.class, () -> decode(null, wire(stringId, Schema.create(Schema.Type.STRING), "x")));
    assertTrue(notRecord.getMessage().contains("not a record"), notRecord.getMessage());
  }

  @Test
  void detectsTheConfluentWireFormat() throws Exception {
    assertTrue(AvroDebeziumDecoder.looksLikeConfluentAvro(value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L)));
    assertTrue(AvroDebeziumDecoder.looksLikeConfluentAvro(new byte[] {0, 0, 0, 0, 1}));
    assertFalse(AvroDebeziumDecoder.looksLikeConfluentAvro(new byte[] {0, 0, 0, 1}));
    assertFalse(AvroDebeziumDecoder.looksLikeConfluentAvro("{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
    assertFalse(AvroDebeziumDecoder.looksLikeConfluentAvro(null));
    assertFalse(AvroDebeziumDecoder.looksLikeConfluentAvro(new byte[0]));
    assertEquals(0x01020304, AvroDebeziumDecoder.schemaId(new byte[] {0, 1, 2, 3, 4}));
    assertEquals(-1, AvroDebeziumDecoder.schemaId(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}));
  }

  static final Schema HOSTILE = new Schema.Parser().parse("""
      {"type":"record","name":"Hostile","namespace":"db.inv.h","fields":[
        {"name":"id","type":"long"},
        {"name":"negative_scale","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":-1000000000}],"default":null},
        {"name":"absurd_scale","type":["null",{"type":"bytes","logicalType":"decimal","precision":2000000000,"scale":1999999999}],"default":null},
        {"name":"connect_scale","type":["null",{"type":"bytes","connect.name":"org.apache.kafka.connect.data.Decimal",
          "connect.parameters":{"scale":"-1000000000","connect.decimal.precision":"10"}}],"default":null},
        {"name":"vsd","type":["null",{"type":"record","name":"VariableScaleDecimal","namespace":"io.debezium.data",
          "fields":[{"name":"scale","type":"int"},{"name":"value","type":"bytes"}],
          "connect.name":"io.debezium.data.VariableScaleDecimal"}],"default":null},
        {"name":"wide","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},
        {"name":"far_future","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}""");

  @Test
  void hostileNumbersAreRefusedQuicklyNamingTheColumnNotTheValue() throws Exception {
    int id = registry.register("db.inv.h-value", HOSTILE);
    ByteBuffer one = ByteBuffer.wrap(new byte[] {1});
    Map<String, Object> cases = new LinkedHashMap<>();
    cases.put("negative_scale", one);
    cases.put("absurd_scale", one);
    cases.put("connect_scale", one);
    cases.put("vsd", new GenericRecordBuilder(AvroRowSchema.unwrapOptional(HOSTILE.getField("vsd").schema()))
        .set("scale", -1_000_000_000).set("value", one).build());
    for (Map.Entry<String, Object> c : cases.entrySet()) {
      byte[] value = wire(id, HOSTILE, new GenericRecordBuilder(HOSTILE).set("id", 1L).set(c.getKey(), c.getValue()).build());
      DecodeException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(DecodeException.class, () -> decode(null, value)));
      assertTrue(e.getMessage().startsWith("column " + c.getKey() + ": "), e.getMessage());
      assertTrue(e.getMessage().contains("limit of 1000 digits"), e.getMessage());
      assertFalse(e.getMessage().contains("AQ=="), "the value is not shown: " + e.getMessage());
    }
    // Not hostile, but no more storable: more digits than the schema's precision, a timestamp
    // beyond what Delta holds. Refused as undecodable, not left to fail the table's flush.
    byte[] wide = wire(id, HOSTILE, new GenericRecordBuilder(HOSTILE).set("id", 1L).set("wide", unscaled("123456789012.34")).build());
    assertTrue(assertThrows(DecodeException.class, () -> decode(null, wide)).getMessage().contains("decimal(10,2)"));
    byte[] future = wire(id, HOSTILE, new GenericRecordBuilder(HOSTILE).set("id", 1L).set("far_future", Long.MAX_VALUE).build());
    assertTrue(assertThrows(DecodeException.class, () -> decode(null, future)).getMessage().startsWith("column far_future: "));
    // The decoder is fine afterwards.
    assertEquals(new BigDecimal("1.50"), decode(null, wire(id, HOSTILE,
        new GenericRecordBuilder(HOSTILE).set("id", 1L).set("wide", unscaled("1.50")).build())).value("wide"));
  }

  @Test
  void aRegistrySchemaAvroCannotParseIsUndecodable() throws Exception {
    // Duplicate field names: Avro's parser throws an AvroRuntimeException, not a parse error.
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/schemas/ids/", ex -> {
      byte[] body = ("{\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"R\\\",\\\"fields\\\":["
          + "{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"},{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"}]}\"}")
          .getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    try {
      AvroDebeziumDecoder d = new AvroDebeziumDecoder(new SchemaRegistryClient(
          SchemaRegistrySettings.of("http://127.0.0.1:" + server.getAddress().getPort())));
      DecodeException e = assertThrows(DecodeException.class, () -> d.decode(at, null, new byte[] {0, 0, 0, 0, 1, 2}));
      assertTrue(e.getMessage().contains("not a valid Avro schema"), e.getMessage());
    } finally {
      server.stop(0);
    }
  }

  @Test
  void corruptBodiesAreDecodedOrRefusedButNeverABug() throws Exception {
    GenericRecord vsd = new GenericRecordBuilder(field("vsd")).set("scale", 3).set("value", unscaled("-5")).build();
    GenericRecord after = allTypes(1).set("amount", unscaled("-12345.678")).set("huge", unscaled("1.25")).set("vsd", vsd)
        .set("no_precision", unscaled("3.1416")).set("tags", List.of("a", "b")).set("attrs", Map.of("k", 1L))
        .set("at_us", 5L).set("day", 3).set("s", "text").set("t_micros", 1000L).build();
    byte[] good = value(ALL_TYPES_ENVELOPE, "c", null, after, 1L, 1L);
    byte[] key = key(1);
    java.util.Random random = new java.util.Random(42); // fixed: the same inputs every run
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
      for (int i = 0; i < 3000; i++) {
        byte[] bad = Arrays.copyOf(good, random.nextInt(3) == 0 ? AvroDebeziumDecoder.HEADER_LENGTH + random.nextInt(good.length) : good.length);
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
          if (bad.length > AvroDebeziumDecoder.HEADER_LENGTH) { // the schema id stays: no registry traffic
            bad[AvroDebeziumDecoder.HEADER_LENGTH + random.nextInt(bad.length - AvroDebeziumDecoder.HEADER_LENGTH)] = (byte) random.nextInt(256);
          }
        }
        try {
          decode(key, bad);
        } catch (DecodeException refused) {
          // fine: a corrupt record is undecodable; anything else escaping would be a bug
        }
      }
    });
    assertEquals(1L, decode(key, good).value("id"), "the decoder is still fine");
  }

  @Test
  void sizeIsTheEncodedValueLength() throws Exception {
    byte[] value = value(V1_ENVELOPE, "c", null, customer(V1, 1, "a"), 1L, 1L);
    assertEquals(value.length, decode(key(1), value).sizeBytes());
  }
}
