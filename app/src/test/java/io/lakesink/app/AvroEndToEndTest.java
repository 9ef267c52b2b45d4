package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import io.lakesink.kafka.WorkerResult;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Avro through a schema registry, with a schema that gains two columns halfway. */
@Timeout(300)
class AvroEndToEndTest {
  @TempDir Path data;

  static final Schema V1 = new Schema.Parser().parse("""
      {"type":"record","name":"Value","namespace":"shop.public.items","fields":[
        {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}]}""");
  static final Schema V2 = new Schema.Parser().parse("""
      {"type":"record","name":"Value","namespace":"shop.public.items","fields":[
        {"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null},
        {"name":"qty","type":["null","int"],"default":null},
        {"name":"added","type":["null",{"type":"int","connect.name":"io.debezium.time.Date"}],"default":null}]}""");

  @Test
  void schemaGainsColumnsMidStreamAndARegistryOutageNeverQuarantines() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      String topic = SharedKafka.newTopic("items", 1);
      Schema env1 = AvroRecords.envelope(V1, false);
      Schema env2 = AvroRecords.envelope(V2, false);
      int id1 = registry.register(topic + "-value", env1);
      int id2 = registry.register(topic + "-value", env2);
      try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
        for (int i = 0; i < 10; i++) {
          boolean evolved = i >= 5;
          Schema env = evolved ? env2 : env1;
          GenericData.Record row = new GenericData.Record(evolved ? V2 : V1);
          row.put("id", (long) i);
          row.put("name", "item" + i);
          if (evolved) {
            row.put("qty", i * 10);
            row.put("added", 20000 + i);
          }
          GenericData.Record e = new GenericData.Record(env);
          e.put("after", row);
          e.put("source", AvroRecords.source(env, 1000L + i));
          e.put("op", "c");
          producer.send(new ProducerRecord<>(topic, 0, null, AvroRecords.wire(evolved ? id2 : id1, env, e)));
        }
        producer.flush();
      }
      // The registry is down when the worker starts, and comes back only after the client has
      // given up (two registrations + three attempts), so the worker's own retry is exercised.
      registry.failWith(503);
      Thread comesBack = new Thread(() -> {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (registry.totalRequests() < 5 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        registry.up();
      });
      comesBack.start();
      WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: items}");
      // Five records a poll and a flush every five: the second commit is the one that evolves.
      w.kafkaExtra = "  properties:\n    max.poll.records: \"5\"\n";
      w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
      String yaml = w.yaml() + "schema_registry:\n  url: " + registry.url() + "\n";
      var config = new io.lakesink.app.config.ConfigLoader(n -> null).parse(yaml, "test");

      WorkerResult result;
      try (var storage = Pipeline.storage(config.storage()); var worker = Pipeline.worker(config, storage, io.lakesink.delivery.FlushHook.NONE, java.time.Clock.systemUTC())) {
        result = worker.run(true);
      }
      comesBack.join();

      assertTrue(result.allDelivering(), "a registry outage is retried, never quarantined: " + result.states());
      List<Map<String, Object>> rows = w.rows("items");
      rows.sort(Comparator.comparing(r -> (Long) r.get("id")));
      assertEquals(10, rows.size());
      List<String> columns = w.table("items").columns().orElseThrow().stream().map(c -> c.name() + ":" + c.type()).toList();
      assertEquals("qty:int", columns.get(columns.size() - 2));
      assertEquals("added:date", columns.get(columns.size() - 1));
      assertNull(rows.get(0).get("qty"), "rows from before the change read null");
      assertEquals(90, rows.get(9).get("qty"));
      assertEquals(java.time.LocalDate.ofEpochDay(20009), rows.get(9).get("added"));
      assertEquals(1009L, rows.get(9).get("__ts_ms"));
      assertEquals(1, registry.requests("/schemas/ids/" + id2), "each schema is fetched once (after the outage)");
      assertTrue(registry.requests("/schemas/ids/" + id1) >= 4, "the first schema was asked for through the outage");
      assertEquals(2, w.table("items").version(), "created with v1 rows, widened by the commit of v2 rows");
    }
  }
}
