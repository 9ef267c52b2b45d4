package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.error.Errors;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * The connection test's Kafka step: the cluster answers and every subscribed topic exists. A
 * failure names the configured addresses, the cause as far as it can be told, and the key to
 * change (messages in {@link Errors}).
 */
final class KafkaCheck {
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private KafkaCheck() {}

  /** @return the cluster's topics, for what the pattern subscriptions match */
  static Set<String> run(WorkerConfig config) {
    return run(config, TIMEOUT);
  }

  /** @param timeout for each connection attempt, and for the cluster to answer */
  static Set<String> run(WorkerConfig config, Duration timeout) {
    Set<String> topics = topics(config.kafka().bootstrapServers(), config.kafka().properties(), timeout);
    List<String> missing = config.subscriptions().stream().map(Subscription::topic).filter(t -> !topics.contains(t)).toList();
    if (!missing.isEmpty()) {
      throw new Failed(Errors.kafkaTopicsMissing(missing));
    }
    return topics;
  }

  /**
   * The check's lines for the pattern subscriptions: each with the topics it matched (and their
   * tables) and those it leaves out; false when two topics would share a table.
   */
  static boolean patterns(WorkerConfig config, Set<String> topics, java.io.PrintStream out) {
    TopicPatterns patterns = new TopicPatterns(config, null, Duration.ZERO);
    boolean ok = true;
    try {
      patterns.match(topics, true);
    } catch (io.lakesink.error.ConfigurationException e) {
      out.println("FAIL  kafka: the topic patterns — " + e.getMessage().replace("\n", "\n      "));
      ok = false;
    }
    for (io.lakesink.kafka.WorkerStatus.PatternMatches m : patterns.report()) {
      out.println((m.matched().isEmpty() ? "warn  " : "ok    ") + "kafka: " + m.at() + ".topic_pattern '" + m.pattern()
          + "' matches " + m.matched().size() + (m.matched().size() == 1 ? " topic" : " topics")
          + (m.matched().isEmpty() ? " yet (a topic created later is picked up while the worker runs)" : ""));
      m.matched().forEach((topic, table) -> out.println("        " + topic + " → " + table));
      m.skipped().forEach((topic, why) -> out.println("        " + topic + " not subscribed: " + why));
    }
    return ok;
  }

  /**
   * The cluster's topic names (without Kafka's internal ones), or a {@link Failed} that names the
   * address, the cause and the key to change.
   *
   * @param timeout for each connection attempt, and for the cluster to answer
   */
  static Set<String> topics(String bootstrap, Map<String, String> properties, Duration timeout) {
    BootstrapProbe.Result probe = BootstrapProbe.probe(bootstrap, timeout);
    if (probe.reachable().isEmpty()) {
      throw new Failed(Errors.kafkaUnreachable(bootstrap, probe.problems()));
    }
    Map<String, Object> props = new HashMap<>(properties);
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    try (Admin admin = Admin.create(props)) {
      return admin.listTopics().names().get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new Failed(failure(e.getCause(), bootstrap, probe, properties, timeout));
    } catch (KafkaException e) { // Admin.create: a property Kafka refuses (a JAAS line it cannot parse, …)
      throw new Failed(failure(e, bootstrap, probe, properties, timeout));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new Failed(noAnswer(bootstrap, probe, properties, timeout));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failed("interrupted");
    }
  }

  /** Why the admin client failed, for an address that accepted a connection. */
  static String failure(Throwable e, String bootstrap, BootstrapProbe.Result probe, Map<String, String> properties, Duration timeout) {
    SecretScrubber scrub = new SecretScrubber(properties);
    if (e instanceof SslAuthenticationException) {
      return Errors.kafkaTlsFailed(bootstrap, scrub.apply(rootMessage(e)));
    }
    if (e instanceof SaslAuthenticationException) {
      return Errors.kafkaAuthenticationFailed(bootstrap,
          properties.getOrDefault(SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM), scrub.apply(e.getMessage()));
    }
    if (e instanceof AuthorizationException) {
      return Errors.kafkaNotAuthorized(bootstrap, scrub.apply(e.getMessage()));
    }
    if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
      return noAnswer(bootstrap, probe, properties, timeout);
    }
    return Errors.kafkaCheckFailed(bootstrap, scrub.apply(rootMessage(e)));
  }

  private static String noAnswer(String bootstrap, BootstrapProbe.Result probe, Map<String, String> properties, Duration timeout) {
    String protocol = properties.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL);
    return Errors.kafkaNoAnswer(bootstrap, probe.reachable(), probe.problems(), protocol, BootstrapProbe.seconds(timeout));
  }

  /**
   * The reason is in the innermost cause: "PKIX path building failed" under "SSL handshake
   * failed", a JAAS parse error under "Failed to create new KafkaAdminClient".
   */
  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  /** A failed step; its message is the whole explanation (no cause for the step to append). */
  static final class Failed extends IllegalStateException {
    Failed(String message) {
      super(message);
    }
  }
}
