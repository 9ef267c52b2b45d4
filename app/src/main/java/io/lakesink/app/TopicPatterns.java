package io.lakesink.app;

import io.lakesink.app.config.TopicPattern;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.event.NonTableTopic;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.TopicDiscovery;
import io.lakesink.kafka.WorkerStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the cluster's topics the {@code topic_pattern} subscriptions deliver, each to a table
 * of its own. A topic an entry names with {@code topic:} is matched by no pattern; one that two
 * patterns match goes to the first. A match is left out, with a log line and in {@code /status},
 * when its name says it carries no table changes (Debezium's heartbeat topics, and {@code
 * <prefix>.transaction} beside that prefix's table topics, as {@code init} judges it), or when its table
 * is already another topic's: at start that is refused as a configuration error naming both
 * topics, while running the new topic is simply not subscribed. Choosing one of the two by
 * arrival would let a restart, which sees both at once, choose differently.
 */
final class TopicPatterns implements TopicDiscovery {
  private static final Logger log = LoggerFactory.getLogger(TopicPatterns.class);

  private final List<TopicPattern> patterns;
  private final Set<String> named = new java.util.HashSet<>();
  /** Every table name taken (lower case, as catalogs compare them) → who writes it. */
  private final Map<String, String> owners = new HashMap<>();
  private final Map<TopicPattern, Map<String, String>> matched = new LinkedHashMap<>();
  private final Map<TopicPattern, Map<String, String>> skipped = new LinkedHashMap<>();
  private final Function<Subscription, KafkaWorker.Route> routes;
  private final Duration interval;

  /**
   * @param routes builds a matched topic's delivery and decoder; null when only matching ({@code check})
   * @param interval how often the cluster's topics are listed
   */
  TopicPatterns(WorkerConfig config, Function<Subscription, KafkaWorker.Route> routes, Duration interval) {
    this.patterns = config.patterns();
    this.routes = routes;
    this.interval = interval;
    List<Subscription> subs = config.subscriptions();
    for (int i = 0; i < subs.size(); i++) {
      named.add(subs.get(i).topic());
      take(subs.get(i), "topic " + subs.get(i).topic() + " (subscriptions[" + i + "])");
    }
    patterns.forEach(p -> {
      matched.put(p, new LinkedHashMap<>());
      skipped.put(p, new LinkedHashMap<>());
    });
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public List<KafkaWorker.Route> discover(Set<String> clusterTopics, boolean atStart) {
    List<KafkaWorker.Route> out = new ArrayList<>();
    for (Subscription s : match(clusterTopics, atStart)) {
      try {
        out.add(routes.apply(s));
      } catch (ConfigurationException e) {
        throw e;
      } catch (RuntimeException e) {
        // Its table could not be opened now (storage trouble): matched again at the next listing.
        if (atStart) {
          throw e; // as for an entry that names its topic
        }
        log.warn("Topic {} matched, but its table {} cannot be opened now ({}); tried again in {}", s.topic(), s.targetTable(),
            e.toString(), interval);
        forget(s);
      }
    }
    return out;
  }

  private void forget(Subscription s) {
    patterns.forEach(p -> matched.get(p).remove(s.topic()));
    names(s).forEach(owners::remove);
  }

  /**
   * The subscriptions of topics not seen before that are to be delivered, in name order.
   *
   * @throws ConfigurationException at start, naming every pair of topics that would share a table
   */
  List<Subscription> match(Collection<String> clusterTopics, boolean atStart) {
    List<Subscription> out = new ArrayList<>();
    List<ConfigurationException> clashes = new ArrayList<>();
    Set<String> prefixes = DebeziumTopics.prefixes(clusterTopics);
    for (String topic : new TreeSet<>(clusterTopics)) {
      Optional<TopicPattern> first = named.contains(topic) || seen(topic)
          ? Optional.empty() : patterns.stream().filter(p -> p.matches(topic)).findFirst();
      if (first.isEmpty()) {
        continue;
      }
      TopicPattern p = first.get();
      Optional<NonTableTopic> kind = NonTableTopic.byName(topic);
      if (kind.isPresent()) {
        log.info("{} matches topic {}, {}: not subscribed, it carries no table changes", p, topic, kind.get().what());
        skipped.get(p).put(topic, kind.get().what() + ": it carries no table changes");
        continue;
      }
      if (topic.startsWith("_")) {
        continue; // Kafka's own topics and its tools' (__consumer_offsets, _schemas), as init skips them
      }
      if (DebeziumTopics.isTransactionTopic(topic, prefixes)) {
        // <prefix>.transaction beside that prefix's table topics: a broad pattern (db1.*) matches
        // it, and subscribing it would only quarantine its table at the first record.
        log.info("{} matches topic {}, Debezium's transaction metadata: not subscribed, it carries no table changes", p, topic);
        skipped.get(p).put(topic, "Debezium's transaction metadata: it carries no table changes");
        continue;
      }
      Subscription s = p.forTopic(topic);
      Optional<String> owner = owner(s);
      if (owner.isPresent()) {
        ConfigurationException clash = Errors.patternTableClash(p.at() + ".topic_pattern", topic, s.targetTable(), owner.get());
        if (atStart) {
          clashes.add(clash);
        } else {
          log.error("Topic {} is not subscribed: {}", topic, clash.getMessage());
        }
        skipped.get(p).put(topic, clash.getMessage());
        continue;
      }
      take(s, "topic " + topic + " (" + p + ")");
      matched.get(p).put(topic, s.targetTable());
      log.info("{} matches topic {} → table {}", p, topic, s.targetTable());
      out.add(s);
    }
    if (!clashes.isEmpty()) {
      throw Errors.all(clashes);
    }
    return out;
  }

  private boolean seen(String topic) {
    return patterns.stream().anyMatch(p -> matched.get(p).containsKey(topic) || skipped.get(p).containsKey(topic));
  }

  /**
   * Whose table names the subscription's would take. Each subscription owns {@code <table>} and
   * {@code <table>_APPEND} whatever its mode (one mode's delivery reads the other's offsets), as
   * for entries that name their table.
   */
  private Optional<String> owner(Subscription s) {
    return names(s).stream().map(owners::get).filter(java.util.Objects::nonNull).findFirst();
  }

  private void take(Subscription s, String who) {
    names(s).forEach(n -> owners.putIfAbsent(n, who));
  }

  private static List<String> names(Subscription s) {
    String name = TableNames.sanitize(s.table());
    return List.of(name.toLowerCase(Locale.ROOT), TableNames.changelog(name).toLowerCase(Locale.ROOT));
  }

  @Override
  public List<WorkerStatus.PatternMatches> report() {
    return patterns.stream().map(p -> new WorkerStatus.PatternMatches(
        p.at(), p.regex().pattern(), copy(matched.get(p)), copy(skipped.get(p)))).toList();
  }

  private static Map<String, String> copy(Map<String, String> m) {
    return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
