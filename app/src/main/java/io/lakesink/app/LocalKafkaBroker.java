package io.lakesink.app;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka (KRaft, broker and controller combined) running in this JVM, with
 * its data in a temporary directory. For the demo and tests; never for production.
 */
public final class LocalKafkaBroker implements AutoCloseable {
  private final KafkaClusterTestKit kit;

  private LocalKafkaBroker(KafkaClusterTestKit kit) {
    this.kit = kit;
  }

  public static LocalKafkaBroker start() {
    try {
      KafkaClusterTestKit kit =
          new KafkaClusterTestKit.Builder(
                  new TestKitNodes.Builder()
                      .setCombined(true)
                      .setNumBrokerNodes(1)
                      .setNumControllerNodes(1)
                      .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                      .build())
              .setConfigProp("offsets.topic.replication.factor", "1")
              .setConfigProp("offsets.topic.num.partitions", "4")
              .setConfigProp("transaction.state.log.replication.factor", "1")
              .setConfigProp("transaction.state.log.min.isr", "1")
              .setConfigProp("group.initial.rebalance.delay.ms", "0")
              .setConfigProp("auto.create.topics.enable", "false")
              .build();
      formatQuietly(kit);
      kit.startup();
      kit.waitForReadyBrokers();
      return new LocalKafkaBroker(kit);
    } catch (Exception e) {
      throw new IllegalStateException("Could not start the local Kafka broker: " + e, e);
    }
  }

  /**
   * Kafka's storage formatter prints its bootstrap metadata to standard output, which is the
   * demo's output: keep it, and show it (on standard error) only if formatting fails. Nothing
   * else runs yet when the broker is formatted, so taking System.out for that moment is safe.
   */
  private static void formatQuietly(KafkaClusterTestKit kit) throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    System.setOut(new PrintStream(kept, true, StandardCharsets.UTF_8));
    try {
      kit.format();
    } catch (Exception e) {
      System.err.print(kept.toString(StandardCharsets.UTF_8));
      throw e;
    } finally {
      System.setOut(out);
    }
  }

  public String bootstrapServers() {
    return kit.bootstrapServers();
  }

  public void createTopic(String name, int partitions) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(Map.of()))).all().get();
      awaitLeaders(admin, name, partitions);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Could not create topic " + name + ": " + e.getCause(), e);
    }
  }

  /**
   * Waits until the broker serves every partition as leader. Creating a topic returns before
   * that; a producer writing at once can meet NOT_LEADER_OR_FOLLOWER, and an idempotent
   * producer retrying through it has been seen to wedge on OUT_OF_ORDER_SEQUENCE_NUMBER.
   */
  private static void awaitLeaders(Admin admin, String name, int partitions)
      throws InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        var description = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
        long led = description.partitions().stream().filter(p -> p.leader() != null && !p.leader().isEmpty()).count();
        if (led == partitions) {
          awaitServing(admin, name, partitions);
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
          throw e;
        }
        // the broker has not taken the new topic in yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Topic " + name + " has no leader for every partition after 60 s");
      }
      Thread.sleep(50); // polling the broker's state, not guessing at timing
    }
  }

  /**
   * The metadata names a leader before that broker's replica manager has become it: a produce
   * in that moment still meets NOT_LEADER_OR_FOLLOWER (seen in CI, and the idempotent producer
   * then wedged on OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout). Listing each
   * partition's end offset is answered by the leader's replica manager only, and the admin
   * client retries it until it is: once it returns, every partition takes writes.
   */
  private static void awaitServing(Admin admin, String name, int partitions)
      throws InterruptedException, ExecutionException {
    Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new org.apache.kafka.common.TopicPartition(name, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    admin.listOffsets(latest).all().get();
  }

  /**
   * Stops the broker, leaving the controller and the data: clients meet a broker that no longer
   * answers, as in an outage. {@link #restartBroker} brings it back on the same port.
   */
  void stopBroker() {
    var broker = kit.brokers().values().iterator().next();
    broker.shutdown();
    broker.awaitShutdown();
  }

  void restartBroker() {
    kit.brokers().values().iterator().next().startup();
  }

  /** Deletes a topic and waits until the broker no longer lists it. */
  public void deleteTopic(String name) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin.deleteTopics(List.of(name)).all().get();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (admin.listTopics().names().get().contains(name)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Topic " + name + " still listed 60 s after its deletion");
        }
        Thread.sleep(50); // polling a condition, with a deadline
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Could not delete topic " + name + ": " + e.getCause(), e);
    }
  }

  @Override
  public void close() {
    try {
      kit.close();
    } catch (Exception e) {
      throw new IllegalStateException("Could not stop the local Kafka broker", e);
    }
  }
}
