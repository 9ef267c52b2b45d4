package io.lakesink.kafka;

import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableDelivery;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * What the worker does when partitions come and go. The rule behind all three: a partition's
 * events are in this worker's buffers only while it owns the partition. Writing them after that
 * would race the next owner; the Delta log's fence would refuse the duplicates, but a buffer
 * that outlives its ownership also holds memory and misleads status.
 */
final class RebalanceHandler implements ConsumerRebalanceListener {
  private final KafkaWorker worker;

  RebalanceHandler(KafkaWorker worker) {
    this.worker = worker;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    // Commit what we hold for these partitions while they are still ours (only their tables):
    // wait for their tables' flushes in flight (within the poll budget), write the rest, then
    // drop it whether the flush went through or not: the next owner reads from the log. A flush
    // still in flight after the budget gives these partitions up (it writes none of them in a
    // later attempt); an attempt already committing may land, and the log's fence refuses what
    // the next owner also writes.
    Map<TableDelivery, List<SourcePartition>> byTable = byTable(partitions);
    worker.pollingResumed(); // we are inside poll(): the group waits for this callback
    byTable.keySet().forEach(worker::flush);
    byTable.forEach(TableDelivery::discard);
    worker.forget(partitions);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    // Another member may already own them: drop, never write, what was buffered. A flush in
    // flight gives them up too; if its current attempt lands them anyway, the fence refuses
    // whichever of it and the new owner's commit comes second (docs/exactly-once.md).
    byTable(partitions).forEach(TableDelivery::discard);
    worker.forget(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    Map<TableDelivery, List<SourcePartition>> byTable = byTable(partitions);
    byTable.forEach((d, ps) -> {
      // Anything still buffered for these partitions was read under an earlier ownership:
      // reading starts again from the log.
      d.discard(ps);
      worker.position(d, ps.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList());
    });
    worker.applyPauses();
  }

  private Map<TableDelivery, List<SourcePartition>> byTable(Collection<TopicPartition> partitions) {
    Map<TableDelivery, List<SourcePartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      TableDelivery d = worker.tableOf(tp);
      if (d != null) {
        byTable.computeIfAbsent(d, x -> new ArrayList<>()).add(new SourcePartition(tp.topic(), tp.partition()));
      }
    }
    return byTable;
  }
}
