package io.lakesink.kafka;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Lag per partition: the end offset the consumer last saw (from its fetch answers and from the
 * {@link BrokerProbe}'s) minus its position.
 *
 * <p>The consumer keeps the last end offset it was told, and only fetch answers that carry a
 * partition update it: a caught-up or paused partition can keep an old one for a long time. After
 * a broker outage, caught-up partitions were seen reporting minus their offset as lag (an end
 * offset of 0) until the end of a run. An end offset behind the position is stale by definition
 * (nothing past the end is ever read), so that lag is unknown, reported as null and never as a
 * wrong number; the probe's next answer (every 2 s) replaces the stale end offset.
 */
final class PartitionLags {
  private PartitionLags() {}

  /** Partitions whose position or end offset is not known yet are left out. */
  static Map<Integer, Long> of(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    Map<Integer, Long> lag = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      OptionalLong known = consumer.currentLag(tp);
      if (known.isPresent()) {
        lag.put(tp.partition(), known.getAsLong() >= 0 ? known.getAsLong() : null);
      }
    }
    return Collections.unmodifiableMap(lag);
  }
}
