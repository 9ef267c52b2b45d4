package io.lakesink.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Topics the worker finds on the cluster while it runs (pattern subscriptions). The worker lists
 * the cluster's topics every {@link #interval} and subscribes to exactly the topics it has a
 * route for: a topic that matches but must not be delivered (it carries no table changes, its
 * table is another topic's) is never subscribed, so no record of it is ever read.
 */
public interface TopicDiscovery {
  /** Nothing to find: the worker reads the topics its routes name. */
  TopicDiscovery NONE = new TopicDiscovery() {
    @Override
    public Duration interval() {
      return Duration.ofDays(365);
    }

    @Override
    public List<KafkaWorker.Route> discover(Set<String> clusterTopics, boolean atStart) {
      return List.of();
    }

    @Override
    public List<WorkerStatus.PatternMatches> report() {
      return List.of();
    }
  };

  /** How often the cluster's topics are listed. */
  Duration interval();

  /**
   * The routes of topics not seen before that are to be delivered. Called on the worker's thread.
   *
   * @param clusterTopics every topic of the cluster
   * @param atStart whether this is the first listing: a clash found then is the configuration's
   *     (a {@link io.lakesink.error.ConfigurationException} stops the worker); one found later
   *     leaves the new topic unsubscribed, reported in {@link #report}
   */
  List<KafkaWorker.Route> discover(Set<String> clusterTopics, boolean atStart);

  /** What each pattern matched and left out, for {@code /status}; safe from any thread. */
  List<WorkerStatus.PatternMatches> report();
}
