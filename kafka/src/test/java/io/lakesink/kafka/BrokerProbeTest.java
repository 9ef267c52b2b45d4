package io.lakesink.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.kafka.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** One slow answer is not an outage; two failures in a row are, from the first one; an answer ends it. */
class BrokerProbeTest {
  private final TopicPartition p0 = new TopicPartition("orders", 0);

  @Test
  void twoFailuresInARowMakeAnOutageThatTheNextAnswerEnds() {
    MutableClock clock = new MutableClock();
    GoneBroker consumer = new GoneBroker();
    consumer.assign(List.of(p0));
    consumer.seek(p0, 10);
    consumer.updateEndOffsets(Map.of(p0, 10L));
    BrokerProbe probe = new BrokerProbe(consumer, "localhost:9092", clock);

    assertEquals(BrokerProbe.Outcome.ANSWERED, probe.probe(List.of("orders")));
    assertEquals(BrokerProbe.Outcome.NOT_DUE, probe.probe(List.of("orders")), "not before " + BrokerProbe.EVERY);

    consumer.gone = true;
    clock.advance(BrokerProbe.EVERY);
    Instant first = clock.instant();
    assertEquals(BrokerProbe.Outcome.FAILED, probe.probe(List.of("orders")));
    assertFalse(probe.down(), "one failure may be a slow answer");
    clock.advance(BrokerProbe.EVERY);
    assertEquals(BrokerProbe.Outcome.FAILED, probe.probe(List.of("orders")));
    assertTrue(probe.down());
    assertEquals(first, probe.firstFailure(), "the outage began with the first failure");
    assertTrue(probe.problem().contains("localhost:9092") && probe.problem().contains("2 times in a row"), probe.problem());

    consumer.gone = false;
    clock.advance(BrokerProbe.EVERY);
    assertEquals(BrokerProbe.Outcome.ANSWERED, probe.probe(List.of("orders")));
    assertFalse(probe.down());
  }

  /** A consumer whose broker stops answering: end offsets time out, as the real client's do. */
  static final class GoneBroker extends MockConsumer<byte[], byte[]> {
    volatile boolean gone;

    GoneBroker() {
      super("earliest");
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
      if (gone) {
        throw new TimeoutException("Failed to get offsets by times in " + timeout.toMillis() + "ms");
      }
      return super.endOffsets(partitions, timeout);
    }
  }
}
