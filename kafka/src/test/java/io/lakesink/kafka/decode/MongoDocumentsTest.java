package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Extended-JSON forms the fixtures do not show: the legacy shell form, special values, ids. */
class MongoDocumentsTest {
  private final MongoDocuments mongo = new MongoDocuments();
  private final SourcePosition at = new SourcePosition("m", 0, 3);

  private Map<String, Object> row(String document) throws DecodeException {
    ChangeEvent e = mongo.event(at, Operation.CREATE, 1L, document, null, false, () -> null, 10, false);
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < e.schema().size(); i++) {
      m.put(e.schema().columns().get(i).name() + ":" + e.schema().columns().get(i).type().sqlName(), e.values()[i]);
    }
    return m;
  }

  @Test
  void legacyExtendedJson() throws Exception {
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("_id:string", "65f1c0a2b3d4e5f601234567");
    expected.put("at:timestamp", Instant.ofEpochMilli(1772352930000L));
    expected.put("bin:string", "AQID");
    expected.put("n:bigint", 12L);
    assertEquals(expected, row("""
        {"_id": {"$oid": "65f1c0a2b3d4e5f601234567"}, "at": {"$date": 1772352930000},
         "bin": {"$binary": "AQID", "$type": "00"}, "n": {"$numberLong": "12"}}"""));
  }

  @Test
  void specialNumbersAndOtherTypesAreKeptAsText() throws Exception {
    Map<String, Object> r = row("""
        {"_id": "k", "d": {"$numberDecimal": "NaN"}, "x": {"$numberDouble": "-Infinity"},
         "ts": {"$timestamp": {"t": 1, "i": 2}}, "big": 100000000000000000000}""");
    assertEquals("NaN", r.get("d:string"));
    assertEquals(Double.NEGATIVE_INFINITY, r.get("x:double"));
    assertEquals("{\"$timestamp\":{\"t\":1,\"i\":2}}", r.get("ts:string"));
    assertEquals(1e20, r.get("big:double"), "an integer beyond 64 bits is a double, as MongoDB stores it");
  }

  @Test
  void idsOfEveryKindAreText() throws Exception {
    assertEquals("1004", row("{\"_id\": {\"$numberLong\": \"1004\"}}").get("_id:string"));
    assertEquals("7", row("{\"_id\": 7}").get("_id:string"));
    assertEquals("{\"a\":1}", row("{\"_id\": {\"a\": 1}}").get("_id:string"));
    ChangeEvent delete = mongo.event(at, Operation.DELETE, 1L, null, null, false, () -> "\"p-1\"", 10, false);
    assertEquals(List.of("p-1"), List.of(delete.values()));
    assertEquals(List.of("_id"), delete.recordKeyFields());
  }

  @Test
  void whatIsNotADocumentIsRefused() {
    assertTrue(assertThrows(DecodeException.class, () -> row("[1, 2]")).getMessage().contains("not a document"));
    assertTrue(assertThrows(DecodeException.class, () -> row("{\"a\": 1}")).getMessage().contains("no _id"));
    assertTrue(assertThrows(DecodeException.class, () -> row("{\"_id\": 1, \"at\": {\"$date\": \"yesterday\"}}"))
        .getMessage().contains("field at"));
    assertTrue(assertThrows(DecodeException.class, () -> row("{\"_id\": 1")).getMessage().contains("not valid extended JSON"));
  }
}
