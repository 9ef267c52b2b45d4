package io.lakesink.kafka;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Lag per partition: the end offset the consumer last saw (from its fetches and from the
 * {@link BrokerProbe}'s answers) minus its position.
 *
 * <p>The consumer keeps the last end offset a broker reported, and a partition that is caught up
 * or paused is not in the fetch answers that would update it: after a broker came back it stayed
 * behind the position (lag reported as minus the offset) until the end of a run. An end offset
 * behind the position is stale by definition (nothing past the end is ever read), so that lag is
 * unknown, reported as null, never as a negative number; the probe's next answer corrects it.
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
