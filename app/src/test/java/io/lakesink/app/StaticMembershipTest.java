package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka.instance_id} reaches the real consumer as {@code group.instance.id}. A static
 * member does not leave its group when it stops, so right after the worker ends the broker still
 * lists it under that id: the seat a restarted worker takes back without a rebalance.
 */
@Timeout(300)
class StaticMembershipTest {
  @TempDir Path data;

  @Test
  void theWorkerJoinsItsGroupAsTheConfiguredStaticMember() throws Exception {
    String topic = SharedKafka.newTopic("static-member", 1);
    try (KafkaProducer<byte[], byte[]> producer = SharedKafka.producer()) {
      SharedKafka.send(producer, topic, 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("c", 1, "a", 1000));
      producer.flush();
    }
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: t}");
    w.kafkaExtra = "  instance_id: lakesink-replica-1\n";

    assertEquals(Main.OK, w.runToEnd());

    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrap()))) {
      ConsumerGroupDescription group =
          admin.describeConsumerGroups(List.of(w.groupId)).all().get(60, TimeUnit.SECONDS).get(w.groupId);
      List<Optional<String>> ids = group.members().stream().map(MemberDescription::groupInstanceId).toList();
      assertEquals(List.of(Optional.of("lakesink-replica-1")), ids);
    }
  }
}
