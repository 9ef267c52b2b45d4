package io.lakesink.app;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which of a broker's topics may carry a table's change events, judged by their names; {@link
 * SampleShape} then judges each by a record. Debezium names a table's topic {@code
 * <prefix>.<schema or database>.<table>} (SQL Server: {@code <prefix>.<database>.<schema>.<table>})
 * and its own topics {@code __debezium-heartbeat.<prefix>}, {@code <prefix>.transaction} and, for
 * schema changes, {@code <prefix>}.
 */
final class DebeziumTopics {
  static final String HEARTBEAT = "__debezium-heartbeat";
  /** Kafka Connect's own topics under their usual names (connect-offsets, my_connect_configs, …). */
  private static final Pattern CONNECT_INTERNAL = Pattern.compile("(?i)(.*[-_.])?connect[-_.](configs?|offsets?|status(es)?)");

  /**
   * @param candidates the topics to read a record of, in name order
   * @param prefixNamed the candidates named like a connector's prefix: its schema-change topic
   *     unless a record shows a table's change event
   * @param skipped topics skipped by name, with the reason
   * @param outsidePatterns how many topics {@code --include}/{@code --exclude} left out
   */
  record Selection(List<String> candidates, Set<String> prefixNamed, Map<String, String> skipped, int outsidePatterns, int total) {}

  private DebeziumTopics() {}

  /**
   * @param include whole-name patterns a topic must match one of (none: every topic)
   * @param exclude whole-name patterns a topic must match none of
   */
  static Selection select(Collection<String> topics, List<Pattern> include, List<Pattern> exclude) {
    Set<String> prefixes = prefixes(topics);
    List<String> candidates = new ArrayList<>();
    Set<String> prefixNamed = new HashSet<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    int outside = 0;
    for (String t : topics.stream().sorted().toList()) {
      boolean in = (include.isEmpty() || include.stream().anyMatch(p -> p.matcher(t).matches()))
          && exclude.stream().noneMatch(p -> p.matcher(t).matches());
      if (!in) {
        outside++;
        continue;
      }
      String reason = skipReason(t, prefixes);
      if (reason != null) {
        skipped.put(t, reason);
        continue;
      }
      candidates.add(t);
      if (prefixes.contains(t)) {
        prefixNamed.add(t);
      }
    }
    return new Selection(candidates, prefixNamed, skipped, outside, topics.size());
  }

  /** Why a topic cannot be a table's, by its name alone; null when it may be. */
  static String skipReason(String topic, Set<String> prefixes) {
    if (topic.startsWith(HEARTBEAT + ".") || topic.equals(HEARTBEAT)) {
      return "heartbeat";
    }
    if (topic.startsWith("_")) {
      return "internal"; // Kafka's and its tools' convention: __consumer_offsets, _schemas, _confluent-*
    }
    if (CONNECT_INTERNAL.matcher(topic).matches()) {
      return "Kafka Connect's own";
    }
    if (isTransactionTopic(topic, prefixes)) {
      return "transaction metadata";
    }
    return null;
  }

  /**
   * Whether a topic is a connector's transaction metadata, {@code <prefix>.transaction}, judged by
   * its name beside the others' ({@link #prefixes}): a table named {@code transaction} lies two
   * segments below its prefix ({@code dbserver1.public.transaction}) and is not taken for it.
   */
  static boolean isTransactionTopic(String topic, Set<String> prefixes) {
    return topic.endsWith(".transaction") && prefixes.contains(topic.substring(0, topic.length() - ".transaction".length()));
  }

  /**
   * The names that stand before two or more segments of another topic: every connector's prefix
   * ({@code dbserver1} of {@code dbserver1.public.orders}). A table's topic is never one, since
   * no topic lies two segments below it; {@code dbserver1.public} is not one either, so a table
   * named {@code transaction} ({@code dbserver1.public.transaction}) is not taken for metadata.
   */
  static Set<String> prefixes(Collection<String> topics) {
    Set<String> prefixes = new HashSet<>();
    for (String t : topics) {
      String[] parts = t.split("\\.", -1);
      StringBuilder p = new StringBuilder();
      for (int i = 0; i < parts.length - 2; i++) {
        p.append(i == 0 ? "" : ".").append(parts[i]);
        prefixes.add(p.toString());
      }
    }
    return prefixes;
  }
}
