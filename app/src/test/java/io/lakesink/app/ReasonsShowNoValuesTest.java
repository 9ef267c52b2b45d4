package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.quarantine.QuarantineRecord;
import io.lakesink.quarantine.QuarantineStore;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quarantine reasons reach {@code /status} and logs: each names the position and the column,
 * never the record's value. Fails on the previous messages, which quoted the JSON token, the
 * value that did not fit and the value that did not cast.
 */
@Timeout(180)
class ReasonsShowNoValuesTest {
  static final String SECRET = "sekrit-4711";
  @TempDir Path data;

  @Test
  void quarantineReasonsNameWhereNotWhat() {
    String garbage = SharedKafka.newTopic("garbage", 1);
    String conflict = SharedKafka.newTopic("conflict", 1);
    String cast = SharedKafka.newTopic("cast", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, garbage, 0, null, "{\"after\": " + SECRET + "}");
      SharedKafka.send(p, conflict, 0, null, QuarantineEndToEndTest.typed(1, "int64", "7")); // qty is bigint from now on
      SharedKafka.send(p, cast, 0, null, row(1, "\"" + SECRET + "\""));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data)
        .subscribe("- {topic: " + garbage + ", table: g}")
        .subscribe("- {topic: " + conflict + ", table: c}")
        .subscribe("- {topic: " + cast + ", table: k, columns: [id, {source: qty, cast: bigint}]}");
    assertEquals(3, w.runToEnd());
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      SharedKafka.send(p, conflict, 0, null, QuarantineEndToEndTest.typed(2, "string", "\"" + SECRET + "\""));
      p.flush();
    }
    assertEquals(3, w.runToEnd());
    List<QuarantineRecord> records = new QuarantineStore(Pipeline.storage(w.config().storage())).list();
    assertEquals(3, records.size(), records.toString());
    for (QuarantineRecord r : records) {
      assertFalse(r.reason().contains(SECRET), r.reason());
      assertTrue(r.reason().contains("offset"), r.reason());
    }
  }

  static String row(long id, String qty) {
    return "{\"before\":null,\"after\":{\"id\":" + id + ",\"qty\":" + qty + "},\"source\":{\"ts_ms\":1},\"op\":\"c\",\"ts_ms\":2}";
  }
}
