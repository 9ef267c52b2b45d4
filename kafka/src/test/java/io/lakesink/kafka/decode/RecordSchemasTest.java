package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordSchemasTest {
  final RecordSchemas schemas = new RecordSchemas();

  /** A record of the given schema, and where the schema is in it. */
  private static Document record(String schema) {
    return Document.of(("{\"schema\":" + schema + ",\"payload\":{}}").getBytes(StandardCharsets.UTF_8));
  }

  private static Document.Range schemaRange(String schema) {
    return new Document.Range(10, 10 + schema.getBytes(StandardCharsets.UTF_8).length);
  }

  private static String schema(int i) {
    return "{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"c" + i + "\"}]}";
  }

  @Test
  void aSchemaIsReadOncePerDistinctBytes() throws Exception {
    RecordSchema first = schemas.get(record(schema(1)), schemaRange(schema(1)));
    schemas.get(record(schema(2)), schemaRange(schema(2)));
    assertSame(first, schemas.get(record(schema(1)), schemaRange(schema(1))), "found again by its bytes, not only as the last one");
    assertEquals(2, schemas.size());
  }

  @Test
  void aStreamOfEverNewSchemasDoesNotGrowTheCacheWithoutEnd() throws Exception {
    for (int i = 0; i < LruCache.DEFAULT_CAPACITY + 200; i++) {
      schemas.get(record(schema(i)), schemaRange(schema(i)));
    }
    assertTrue(schemas.size() <= LruCache.DEFAULT_CAPACITY, "size " + schemas.size());
  }

  @Test
  void theLastSchemaIsRecognisedAtTheStartOfARecord() throws Exception {
    assertEquals(-1, schemas.payloadAfterLastSchema(record(schema(1))), "no schema seen yet");
    schemas.get(record(schema(1)), schemaRange(schema(1)));
    Document same = record(schema(1));
    assertEquals(10 + schema(1).length() + 11, schemas.payloadAfterLastSchema(same));
    assertEquals('{', same.bytes()[schemas.payloadAfterLastSchema(same)]);
    assertEquals(-1, schemas.payloadAfterLastSchema(record(schema(2))));
    assertEquals(-1, schemas.payloadAfterLastSchema(Document.of(("{\"schema\": " + schema(1) + ",\"payload\":{}}").getBytes(StandardCharsets.UTF_8))));
    assertEquals(-1, schemas.payloadAfterLastSchema(Document.of(("{\"schema\":" + schema(1)).getBytes(StandardCharsets.UTF_8))), "a record cut short");
  }

  /** A record in the middle of a fetch buffer: positions are the buffer's, and its end is the record's. */
  @Test
  void theLastSchemaIsRecognisedInARecordThatIsPartOfALargerBuffer() throws Exception {
    schemas.get(record(schema(1)), schemaRange(schema(1)));
    byte[] record = record(schema(1)).bytes();
    byte[] fetch = new byte[7 + record.length + 5];
    System.arraycopy(record, 0, fetch, 7, record.length);
    Document inside = new Document(fetch, 7, 7 + record.length);
    assertEquals(7 + 10 + schema(1).length() + 11, schemas.payloadAfterLastSchema(inside));
    // Cut short before the payload: the bytes after the record's end are not its own.
    byte[] cut = ("{\"schema\":" + schema(1) + ",\"payload\":").getBytes(StandardCharsets.UTF_8);
    byte[] padded = new byte[cut.length + 10];
    System.arraycopy(cut, 0, padded, 0, cut.length);
    padded[cut.length] = '{';
    assertEquals(-1, schemas.payloadAfterLastSchema(new Document(padded, 0, cut.length)), "the payload lies past the record's end");
  }
}
