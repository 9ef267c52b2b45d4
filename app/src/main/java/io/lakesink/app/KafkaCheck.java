package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** The connection test's Kafka step: the cluster answers and every subscribed topic exists. */
final class KafkaCheck {
  private KafkaCheck() {}

  static void run(WorkerConfig config) throws Exception {
    Map<String, Object> props = new HashMap<>(config.kafka().properties());
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 25_000);
    try (Admin admin = Admin.create(props)) {
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<String> missing = config.subscriptions().stream().map(Subscription::topic).filter(t -> !topics.contains(t)).toList();
      if (!missing.isEmpty()) {
        throw new IllegalStateException("topics not found: " + missing + " (check the subscriptions' topic names and the ACLs)");
      }
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("no answer from " + config.kafka().bootstrapServers() + " within 30 s", e);
    }
  }
}
