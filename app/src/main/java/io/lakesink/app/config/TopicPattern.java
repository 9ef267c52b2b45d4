package io.lakesink.app.config;

import io.lakesink.config.Subscription;
import java.util.regex.Pattern;

/**
 * A {@code topic_pattern} subscription entry: every topic of the cluster the regex matches as a
 * whole (as Kafka Connect's {@code topics.regex}) is delivered to a table of its own, with the
 * entry's mode, format, key and column rules.
 *
 * @param at the entry's key path, {@code subscriptions[2]}, for messages
 * @param regex the whole topic name must match
 * @param template the entry's settings; its topic is the regex, its table the name template
 */
public record TopicPattern(String at, Pattern regex, Subscription template) {
  /** The table template's placeholder for the topic's last dot-separated segment. */
  public static final String TABLE = "${table}";
  /** The table template's placeholder for the whole topic name. */
  public static final String TOPIC = "${topic}";

  public boolean matches(String topic) {
    return regex.matcher(topic).matches();
  }

  /** The subscription this entry makes of one matching topic. */
  public Subscription forTopic(String topic) {
    Subscription t = template;
    return new Subscription(topic, tableName(topic), t.mode(), t.primaryKey(), t.format(), t.includeMetadataColumns(),
        t.columns());
  }

  /**
   * The table name of a topic: by default its last segment, which is the source table in
   * Debezium's {@code <topic.prefix>.<schema>.<table>}. Taken from the name rather than from the
   * events' {@code source.table} because the table must be known before any record is read: to
   * refuse a clash before anything is subscribed, and for a topic that holds no record yet.
   */
  String tableName(String topic) {
    String last = topic.substring(topic.lastIndexOf('.') + 1);
    return template.table().replace(TABLE, last).replace(TOPIC, topic);
  }

  @Override
  public String toString() {
    return at + ".topic_pattern '" + regex.pattern() + "'";
  }
}
