package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reused parser reads each record as a parser built for it would: the same tokens, texts,
 * numbers and byte offsets, and the same refusal at the same place, whatever the records before
 * it left behind (a record cut short, a refused one, a long string or a big number).
 * {@code StreamingDecoderEquivalenceTest} checks whole decoders (one of them reusing its parser
 * across thousands of corrupted records) against the tree decoder.
 */
class RecordParserTest {
  static final List<String> RECORDS = List.of(
      "{\"before\":null,\"after\":{\"id\":7,\"price\":12.50,\"big\":1e3,\"neg\":-0,\"tags\":[\"a\",1.0],\"o\":{\"k\":null}},"
          + "\"source\":{\"ts_ms\":1000,\"snapshot\":\"false\"},\"op\":\"c\",\"ts_ms\":1005}",
      "{\"after\":{\"id\":123456789012345678901234567890,\"s\":\"" + "long text ".repeat(2_000) + "\",\"e\":\"\\u00e9\\n\"}}",
      "{\"a\":{\"b\":{\"c\":[1,2,{\"d\":\"x\"}]}},\"op\":", // cut short: refused
      "{\"a\":1 \"b\":2}", // a syntax error
      "{\n\"line\":\n  tru}", // an error on the third line
      "{\"x\":\"caf\u00e9\",\"ts_ms\":-12.5e-3,\"n\":null}",
      "[1,2,3]",
      "{\"k\":\"v\"} trailing");

  @Test
  void everyRecordReadsAsWithAParserOfItsOwn() throws IOException {
    RecordParser reused = new RecordParser();
    for (int round = 0; round < 3; round++) {
      for (String record : RECORDS) {
        byte[] fetch = inBuffer(record);
        int start = PREFIX.length;
        int end = start + record.getBytes(StandardCharsets.UTF_8).length;
        assertEquals(tokens(JsonTokens.parser(fetch, start, end)), tokens(reused.open(fetch, start, end)), record);
      }
    }
  }

  @Test
  void aReadStoppedHalfWayLeavesNothingForTheNextRecord() throws IOException {
    RecordParser reused = new RecordParser();
    byte[] first = RECORDS.get(0).getBytes(StandardCharsets.UTF_8);
    try (JsonParser p = reused.open(first, 0, first.length)) {
      p.nextToken();
      p.nextFieldName();
      p.nextToken();
      p.nextFieldName(); // inside 'after', with a field name read ahead of its value
    }
    byte[] second = RECORDS.get(5).getBytes(StandardCharsets.UTF_8);
    assertEquals(tokens(JsonTokens.parser(second, 0, second.length)), tokens(reused.open(second, 0, second.length)));
  }

  @Test
  void oneParserServesRecordAfterRecordAndIsReplacedAfterItsShare() throws IOException {
    RecordParser parsers = new RecordParser();
    byte[] record = RECORDS.get(0).getBytes(StandardCharsets.UTF_8);
    JsonParser first = parsers.open(record, 0, record.length);
    first.close();
    for (int i = 1; i < RecordParser.RECORDS_PER_PARSER; i++) {
      try (JsonParser p = parsers.open(record, 0, record.length)) {
        assertSame(first, p);
      }
    }
    try (JsonParser p = parsers.open(record, 0, record.length)) {
      assertNotSame(first, p, "a fresh parser (and symbol table) after " + RecordParser.RECORDS_PER_PARSER + " records");
      assertEquals(tokens(JsonTokens.parser(record, 0, record.length)), tokens(p));
    }
  }

  @Test
  void aParserThatGrewForALongValueOrNameIsNotKept() throws IOException {
    RecordParser parsers = new RecordParser();
    byte[] small = RECORDS.get(0).getBytes(StandardCharsets.UTF_8);
    String longText = "x".repeat(RecordParser.KEPT_BUFFER_CHARS * 8); // its last buffer segment is about a third of it
    for (String big : List.of("{\"v\":\"" + longText + "\"}", "{\"" + longText + "\":1}")) {
      JsonParser first = parsers.open(small, 0, small.length);
      first.close();
      byte[] bytes = big.getBytes(StandardCharsets.UTF_8);
      JsonParser grown = parsers.open(bytes, 0, bytes.length);
      assertSame(first, grown);
      assertEquals(tokens(JsonTokens.parser(bytes, 0, bytes.length)), tokens(grown));
      try (JsonParser next = parsers.open(small, 0, small.length)) {
        assertNotSame(grown, next, "replaced after " + big.substring(0, 8) + "…");
      }
    }
  }

  @Test
  void itReadsWithTheMappersParserFeatures() throws IOException {
    byte[] record = RECORDS.get(0).getBytes(StandardCharsets.UTF_8);
    try (JsonParser fresh = JsonTokens.parser(record, 0, record.length);
        JsonParser reused = new RecordParser().open(record, 0, record.length)) {
      assertEquals(fresh.getFeatureMask(), reused.getFeatureMask());
      assertSame(fresh.getCodec(), reused.getCodec());
    }
  }

  @Test
  void aPartReadWhileTheRecordIsOpenGetsAParserOfItsOwn() throws IOException {
    RecordParser parsers = new RecordParser();
    byte[] record = RECORDS.get(0).getBytes(StandardCharsets.UTF_8);
    try (JsonParser outer = parsers.open(record, 0, record.length)) {
      outer.nextToken();
      try (JsonParser inner = parsers.open(record, 0, record.length)) {
        assertNotSame(outer, inner);
        assertEquals(JsonToken.START_OBJECT, inner.nextToken());
      }
      assertEquals("before", outer.nextFieldName(), "the outer read goes on where it was");
    }
  }

  @Test
  void inputTheFactoryWouldSniffIsReadByTheFactorysParser() throws IOException {
    RecordParser parsers = new RecordParser();
    byte[] plain = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    JsonParser reused = parsers.open(plain, 0, plain.length);
    reused.close();
    byte[] bom = "\uFEFF{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    byte[] utf16 = "{\"a\":1}".getBytes(StandardCharsets.UTF_16LE);
    byte[] shortOne = "7".getBytes(StandardCharsets.UTF_8);
    for (byte[] input : List.of(bom, utf16, shortOne)) {
      try (JsonParser p = parsers.open(input, 0, input.length)) {
        assertNotSame(reused, p);
        assertEquals(tokens(JsonTokens.parser(input, 0, input.length)), tokens(p));
      }
    }
  }

  @Test
  void aClosedParserKeepsNoRecordBytes() throws Exception {
    RecordParser parsers = new RecordParser();
    byte[] fetch = inBuffer(RECORDS.get(0));
    JsonParser p = parsers.open(fetch, PREFIX.length, fetch.length);
    p.nextToken();
    p.close();
    Field input = UTF8StreamJsonParser.class.getDeclaredField("_inputBuffer");
    input.setAccessible(true);
    assertEquals(0, ((byte[]) input.get(p)).length, "a decoder's parser must not keep a fetch buffer until the next record");
  }

  static final byte[] PREFIX = "{\"op\":\"c\",\"after\":{\"x\":".getBytes(StandardCharsets.UTF_8);

  /** The record inside a larger buffer, as the consumer hands values over. */
  static byte[] inBuffer(String record) {
    byte[] value = record.getBytes(StandardCharsets.UTF_8);
    byte[] after = "1}}]}\n".getBytes(StandardCharsets.UTF_8);
    byte[] fetch = new byte[PREFIX.length + value.length + after.length];
    System.arraycopy(PREFIX, 0, fetch, 0, PREFIX.length);
    System.arraycopy(value, 0, fetch, PREFIX.length, value.length);
    System.arraycopy(after, 0, fetch, PREFIX.length + value.length, after.length);
    return fetch;
  }

  /** Every token with what a decoder reads of it, then the refusal (its message and place) if any; closes the parser. */
  static List<String> tokens(JsonParser p) throws IOException {
    List<String> out = new ArrayList<>();
    try (p) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        String value = switch (t) {
          case VALUE_NUMBER_INT -> p.getNumberType() + " " + p.getNumberValue();
          case VALUE_NUMBER_FLOAT -> p.getDecimalValue().toString();
          default -> p.getText();
        };
        out.add(t + " " + value + " @" + p.currentTokenLocation().getByteOffset() + "-" + p.currentLocation().getByteOffset()
            + " in " + p.getParsingContext().getParent() + "/" + p.currentName());
      }
    } catch (IOException e) {
      out.add("refused: " + e.getMessage());
    }
    return out;
  }
}
