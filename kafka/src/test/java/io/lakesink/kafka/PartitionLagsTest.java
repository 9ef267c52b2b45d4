package io.lakesink.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Lag is the end offset minus the position, or unknown (null) when that end offset is stale: never negative. */
class PartitionLagsTest {
  private final TopicPartition p0 = new TopicPartition("orders", 0);
  private final TopicPartition p1 = new TopicPartition("orders", 1);

  @Test
  void anEndOffsetBehindThePositionIsUnknownNotNegative() {
    MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(p0, p1));
    consumer.seek(p0, 19_091);
    consumer.seek(p1, 100);
    // The end offset kept for p0 is older than what was read since (a broker that came back
    // answered 0 once, and a caught-up partition's end is not refreshed by fetches).
    consumer.updateEndOffsets(Map.of(p0, 0L, p1, 130L));

    Map<Integer, Long> lag = PartitionLags.of(consumer, List.of(p0, p1));

    assertTrue(lag.containsKey(0), "assigned with a position: listed, " + lag);
    assertNull(lag.get(0), "unknown, not " + (0 - 19_091));
    assertEquals(30L, lag.get(1));

    consumer.updateEndOffsets(Map.of(p0, 19_100L)); // the next answer
    assertEquals(9L, PartitionLags.of(consumer, List.of(p0)).get(0));
  }
}
