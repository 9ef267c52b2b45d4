package io.lakesink.connect;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Whether the task reads a partition, the one place that decides it: paused while it has a
 * reason, resumed when its last reason is gone, as the standalone worker's pauses. Connect may
 * still hand over records fetched before a pause; {@link #blocksRecords} says which to leave.
 */
final class Pauses {
  enum Reason {
    /** Its table is quarantined. */
    QUARANTINED,
    /** Its table's flushes fail and are retried: do not grow the buffer meanwhile. */
    FLUSH_FAILING,
    /** A record could not be decoded yet (schema registry unreachable): it is re-read later. */
    DECODE_RETRY,
    /** Where to resume could not be read from the Delta log yet. */
    NO_POSITION
  }

  private final Map<TopicPartition, EnumSet<Reason>> reasons = new HashMap<>();
  private final Map<TopicPartition, Map<Reason, Long>> until = new HashMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();

  void add(TopicPartition tp, Reason reason) {
    reasons.computeIfAbsent(tp, x -> EnumSet.noneOf(Reason.class)).add(reason);
  }

  void add(Collection<TopicPartition> tps, Reason reason) {
    tps.forEach(tp -> add(tp, reason));
  }

  void addUntil(TopicPartition tp, Reason reason, long untilMillis) {
    add(tp, reason);
    until.computeIfAbsent(tp, x -> new HashMap<>()).put(reason, untilMillis);
  }

  void remove(TopicPartition tp, Reason reason) {
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

  void remove(Collection<TopicPartition> tps, Reason reason) {
    tps.forEach(tp -> remove(tp, reason));
  }

  boolean has(TopicPartition tp, Reason reason) {
    EnumSet<Reason> set = reasons.get(tp);
    return set != null && set.contains(reason);
  }

  /** Records of this partition must not be taken: they are read again once the pause ends. */
  boolean blocksRecords(TopicPartition tp) {
    return has(tp, Reason.QUARANTINED) || has(tp, Reason.DECODE_RETRY) || has(tp, Reason.NO_POSITION);
  }

  List<TopicPartition> due(Reason reason, long nowMillis) {
    List<TopicPartition> due = new ArrayList<>();
    until.forEach((tp, timed) -> {
      Long at = timed.get(reason);
      if (at != null && at <= nowMillis) {
        due.add(tp);
      }
    });
    return due;
  }

  void forget(Collection<TopicPartition> tps) {
    tps.forEach(tp -> {
      reasons.remove(tp);
      until.remove(tp);
      paused.remove(tp);
    });
  }

  /** Makes Connect's paused partitions match the reasons, for the partitions the task owns. */
  void apply(SinkTaskContext context) {
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition tp : context.assignment()) {
      boolean shouldPause = reasons.containsKey(tp);
      if (shouldPause && paused.add(tp)) {
        pause.add(tp);
      } else if (!shouldPause && paused.remove(tp)) {
        resume.add(tp);
      }
    }
    if (!pause.isEmpty()) {
      context.pause(pause.toArray(TopicPartition[]::new));
    }
    if (!resume.isEmpty()) {
      context.resume(resume.toArray(TopicPartition[]::new));
    }
  }
}
