package io.lakesink.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The one place that decides whether a partition is read: a partition is paused while it has at
 * least one reason, and resumed only when its last reason is gone. Several causes overlap (a
 * table quarantined while its flushes were failing, a decode retry during an outage); a reason
 * set keeps one of them from resuming what another paused. The Kafka Connect task keeps its
 * pauses with the same bookkeeping and only applies them to Connect's context instead.
 */
public class PartitionPauses {

  public enum Reason {
    /** Its table is quarantined. */
    QUARANTINED,
    /** Its table's flushes fail and are retried: do not grow the buffer meanwhile. */
    FLUSH_FAILING,
    /** A record could not be decoded yet (schema registry unreachable): re-read it later. */
    DECODE_RETRY,
    /** Where to resume reading could not be read yet (storage or broker unreachable). */
    NO_POSITION,
    /** The worker's buffers are full: read again once flushes made room. */
    BUFFERS_FULL
  }

  private final Map<TopicPartition, EnumSet<Reason>> reasons = new HashMap<>();
  /** When a timed reason ends, per partition and reason. */
  private final Map<TopicPartition, Map<Reason, Long>> until = new HashMap<>();

  public void add(TopicPartition tp, Reason reason) {
    reasons.computeIfAbsent(tp, x -> EnumSet.noneOf(Reason.class)).add(reason);
  }

  public void add(Collection<TopicPartition> tps, Reason reason) {
    tps.forEach(tp -> add(tp, reason));
  }

  /** A reason that ends by itself at {@code untilMillis}. */
  public void addUntil(TopicPartition tp, Reason reason, long untilMillis) {
    add(tp, reason);
    until.computeIfAbsent(tp, x -> new HashMap<>()).put(reason, untilMillis);
  }

  public void remove(TopicPartition tp, Reason reason) {
    EnumSet<Reason> set = reasons.get(tp);
    if (set != null) {
      set.remove(reason);
      if (set.isEmpty()) {
        reasons.remove(tp);
      }
    }
    Map<Reason, Long> timed = until.get(tp);
    if (timed != null) {
      timed.remove(reason);
    }
  }

  public void remove(Collection<TopicPartition> tps, Reason reason) {
    tps.forEach(tp -> remove(tp, reason));
  }

  public boolean has(TopicPartition tp, Reason reason) {
    EnumSet<Reason> set = reasons.get(tp);
    return set != null && set.contains(reason);
  }

  /** Timed reasons that are due, per partition; the caller acts on them and removes them. */
  public List<TopicPartition> due(Reason reason, long nowMillis) {
    List<TopicPartition> due = new ArrayList<>();
    until.forEach((tp, timed) -> {
      Long at = timed.get(reason);
      if (at != null && at <= nowMillis) {
        due.add(tp);
      }
    });
    return due;
  }

  /** Forgets partitions this worker no longer owns. */
  public void forget(Collection<TopicPartition> tps) {
    tps.forEach(tp -> {
      reasons.remove(tp);
      until.remove(tp);
    });
  }

  /** Whether the partition has a reason to be paused. */
  public boolean paused(TopicPartition tp) {
    return reasons.containsKey(tp);
  }

  /** Makes the consumer's paused set match the reasons, for the partitions it owns. */
  void apply(Consumer<?, ?> consumer) {
    Set<TopicPartition> owned = consumer.assignment();
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition tp : owned) {
      boolean shouldPause = reasons.containsKey(tp);
      if (shouldPause && !paused.contains(tp)) {
        pause.add(tp);
      } else if (!shouldPause && paused.contains(tp)) {
        resume.add(tp);
      }
    }
    consumer.pause(pause);
    consumer.resume(resume);
  }

  /** A partition's reasons, for status and tests. */
  public Set<Reason> of(TopicPartition tp) {
    EnumSet<Reason> set = reasons.get(tp);
    return set == null ? Set.of() : Set.copyOf(set);
  }
}
