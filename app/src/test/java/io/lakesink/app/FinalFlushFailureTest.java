package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delivery.DeliveryContext;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.WorkerResult;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --stop-at-end} whose last flush cannot write (storage down the whole time): the run
 * reports it and exits non-zero, instead of 0 with the events neither in the table nor committed.
 */
@Timeout(300)
class FinalFlushFailureTest {
  @TempDir Path data;

  @Test
  void aFailedFinalFlushExitsNonZero() throws Exception {
    String topic = SharedKafka.newTopic("final-flush", 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      for (int i = 0; i < 5; i++) SharedKafka.send(p, topic, 0, null, ChangelogEndToEndTest.envelope("c", i, "n" + i, i));
      p.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    w.delivery = "  flush_interval: 1h\n"; // nothing is flushed before the final flush
    FlakyStorage storage = new FlakyStorage(data);
    storage.failNextCommits(Integer.MAX_VALUE, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
    DeliveryContext context = DeliveryContext.of(w.config().delivery(), new QuarantineStore(storage)).withBackoff(millis -> {});
    WorkerResult result;
    try (KafkaWorker worker = Pipeline.worker(w.config(), storage, context)) {
      result = worker.run(true);
    }

    assertTrue(result.allDelivering(), "a storage outage never quarantines: " + result.states());
    assertTrue(result.finalFlushFailed());
    assertEquals(ExitCode.FINAL_FLUSH_FAILED.code, Commands.exitCode(result));
    assertTrue(w.groupOffsets(topic).isEmpty(), "nothing committed: " + w.groupOffsets(topic));

    // Storage back: the next run delivers everything and exits 0.
    storage.failNextCommits(0, FlakyStorage.Fault.FAIL_BEFORE_WRITE);
    try (KafkaWorker worker = Pipeline.worker(w.config(), storage, context)) {
      result = worker.run(true);
    }
    assertFalse(result.finalFlushFailed());
    assertEquals(ExitCode.OK.code, Commands.exitCode(result));
    assertEquals(5, w.rows("t").size());
  }
}
