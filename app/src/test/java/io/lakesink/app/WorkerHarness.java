package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.storage.TableStorage;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Runs the real worker against the shared broker and reads what it wrote. */
final class WorkerHarness {
  final Path data;
  final String groupId;
  private final StringBuilder subscriptions = new StringBuilder();
  String delivery = "  flush_interval: 1s\n";
  /** Extra lines under kafka:, e.g. consumer properties. */
  String kafkaExtra = "";
  /** The lines under storage:; local in {@link #data} unless a test says otherwise. */
  String storage;
  /** The broker's address; the shared broker unless a test runs its own. */
  String bootstrap;

  WorkerHarness(Path data) {
    this.data = data;
    this.groupId = SharedKafka.uniqueName("group");
  }

  WorkerHarness subscribe(String yamlEntry) {
    subscriptions.append(yamlEntry.indent(2));
    return this;
  }

  WorkerConfig config() {
    return new ConfigLoader(name -> null).parse(yaml(), "test");
  }

  String yaml() {
    return
        "kafka:\n  bootstrap_servers: " + (bootstrap != null ? bootstrap : SharedKafka.bootstrap()) + "\n  group_id: " + groupId + "\n" + kafkaExtra
            + "storage:\n" + (storage != null ? storage : "  type: local\n  path: " + data + "\n")
            + "delivery:\n" + delivery
            + "status:\n  host: 127.0.0.1\n  port: 0\n"
            + "subscriptions:\n" + subscriptions;
  }

  int runToEnd() {
    return Commands.run(config(), true, FlushHook.NONE);
  }

  /** Runs to the end and returns the tables' states instead of an exit code. */
  io.lakesink.kafka.WorkerResult runForResult() {
    try (TableStorage storage = Pipeline.storage(config().storage());
        var worker = Pipeline.worker(config(), storage, FlushHook.NONE, java.time.Clock.systemUTC())) {
      return worker.run(true);
    }
  }

  int runToEnd(FlushHook hook) {
    return Commands.run(config(), true, hook);
  }

  Subscription subscription(String table) {
    return config().subscriptions().stream().filter(s -> s.table().equals(table)).findFirst().orElseThrow();
  }

  DeltaTable table(String table) {
    TableStorage storage = Pipeline.storage(config().storage());
    return Pipeline.table(storage, KernelEngine.create(storage), subscription(table));
  }

  List<Map<String, Object>> rows(String table) {
    return DeltaTableReader.readAll(table(table));
  }

  Map<SourcePartition, Long> storedOffsets(String table, String topic, int partitions) {
    TableStorage storage = Pipeline.storage(config().storage());
    var delivery = new io.lakesink.changelog.ChangelogDelivery(subscription(table), table(table),
        io.lakesink.delivery.DeliveryContext.of(config().delivery(), new io.lakesink.quarantine.QuarantineStore(storage)));
    // (any mode's delivery reads offsets the same way; the changelog one needs the fewest settings)
    List<SourcePartition> ps = new java.util.ArrayList<>();
    for (int p = 0; p < partitions; p++) ps.add(new SourcePartition(topic, p));
    return delivery.storedOffsets(ps);
  }

  Map<Integer, Long> groupOffsets(String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrap());
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
      Map<Integer, Long> result = new HashMap<>();
      offsets.forEach((tp, o) -> {
        if (tp.topic().equals(topic) && o != null) result.put(tp.partition(), o.offset());
      });
      return result;
    }
  }
}
