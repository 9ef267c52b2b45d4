package io.lakesink.connect;

import io.lakesink.kafka.PartitionPauses;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The task's pauses: the standalone worker's reasons per partition ({@link PartitionPauses}),
 * applied to Connect's context. Connect cannot say which partitions it paused, so this keeps
 * the set it asked for; and it may still hand over records fetched before a pause, which
 * {@link #blocksRecords} says to leave.
 */
final class Pauses extends PartitionPauses {
  private final Set<TopicPartition> pausedInConnect = new HashSet<>();

  /** Records of this partition must not be taken: they are read again once the pause ends. */
  boolean blocksRecords(TopicPartition tp) {
    return has(tp, Reason.QUARANTINED) || has(tp, Reason.DECODE_RETRY) || has(tp, Reason.NO_POSITION);
  }

  @Override
  public void forget(Collection<TopicPartition> tps) {
    super.forget(tps);
    pausedInConnect.removeAll(tps);
  }

  /** Makes Connect's paused partitions match the reasons, for the partitions the task owns. */
  void apply(SinkTaskContext context) {
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition tp : context.assignment()) {
      boolean shouldPause = paused(tp);
      if (shouldPause && pausedInConnect.add(tp)) {
        pause.add(tp);
      } else if (!shouldPause && pausedInConnect.remove(tp)) {
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
