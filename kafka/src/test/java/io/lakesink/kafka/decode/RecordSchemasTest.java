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
    return new Document(("{\"schema\":" + schema + ",\"payload\":{}}").getBytes(StandardCharsets.UTF_8));
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
    assertEquals(-1, schemas.payloadAfterLastSchema(record(schema(1)).bytes()), "no schema seen yet");
    schemas.get(record(schema(1)), schemaRange(schema(1)));
    byte[] same = record(schema(1)).bytes();
    assertEquals(10 + schema(1).length() + 11, schemas.payloadAfterLastSchema(same));
    assertEquals('{', same[schemas.payloadAfterLastSchema(same)]);
    assertEquals(-1, schemas.payloadAfterLastSchema(record(schema(2)).bytes()));
    assertEquals(-1, schemas.payloadAfterLastSchema(("{\"schema\": " + schema(1) + ",\"payload\":{}}").getBytes(StandardCharsets.UTF_8)));
    assertEquals(-1, schemas.payloadAfterLastSchema(("{\"schema\":" + schema(1)).getBytes(StandardCharsets.UTF_8)), "a record cut short");
  }
}
