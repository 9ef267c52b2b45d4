package io.lakesink.event;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * The topics a Debezium connector writes besides its tables' change events. Subscribed by
 * mistake, each of their records would become a row of nonsense or a quarantine; they are refused
 * instead, by name where Debezium's naming is unambiguous and by the records' shape otherwise.
 */
public enum NonTableTopic {
  HEARTBEAT("Debezium's heartbeat topic",
      "its records only carry a timestamp (named __debezium-heartbeat.<topic.prefix> by default)"),
  TRANSACTION_METADATA("Debezium's transaction-metadata topic",
      "its records mark where source transactions begin and end (status BEGIN/END, event_count), named"
          + " <topic.prefix>.transaction by default"),
  SCHEMA_CHANGES("Debezium's schema-change topic",
      "its records carry DDL statements and table definitions (ddl, tableChanges), named exactly the"
          + " connector's topic.prefix");

  /** Debezium's default {@code topic.heartbeat.prefix}: heartbeat topics are {@code <it>.<topic.prefix>}. */
  public static final String HEARTBEAT_PREFIX = "__debezium-heartbeat";

  private final String what;
  private final String why;

  NonTableTopic(String what, String why) {
    this.what = what;
    this.why = why;
  }

  /** What the topic is, for messages: "Debezium's heartbeat topic". */
  public String what() {
    return what;
  }

  /** How its records look, for messages. */
  public String why() {
    return why;
  }

  /**
   * By name alone: only Debezium's heartbeat prefix, which no table topic takes (the double
   * underscore marks Kafka-internal names). {@code <prefix>.transaction} and a bare
   * {@code <prefix>} can be table topics after a topic router, so their records decide.
   */
  public static Optional<NonTableTopic> byName(String topic) {
    return topic.equals(HEARTBEAT_PREFIX) || topic.startsWith(HEARTBEAT_PREFIX + ".")
        ? Optional.of(HEARTBEAT)
        : Optional.empty();
  }

  /**
   * By a record's shape: the name of its value schema (Avro, or a JSON schema), else its
   * top-level fields. A change event has an {@code op} and row images, or (flattened) the row's
   * columns; these records have fields no Debezium envelope has together.
   *
   * @param schemaName the value schema's full name, or null when the record has none
   * @param hasField whether the value has a top-level field of this name
   */
  public static Optional<NonTableTopic> byShape(String schemaName, Predicate<String> hasField) {
    if (schemaName != null) {
      if (schemaName.equals("io.debezium.connector.common.Heartbeat")) {
        return Optional.of(HEARTBEAT);
      }
      if (schemaName.equals("io.debezium.connector.common.TransactionMetadataValue")) {
        return Optional.of(TRANSACTION_METADATA);
      }
      if (schemaName.startsWith("io.debezium.connector.") && schemaName.endsWith(".SchemaChangeValue")) {
        return Optional.of(SCHEMA_CHANGES);
      }
    }
    if (hasField.test("ddl") && hasField.test("tableChanges")) {
      return Optional.of(SCHEMA_CHANGES);
    }
    if (hasField.test("status") && hasField.test("id") && hasField.test("event_count") && hasField.test("data_collections")) {
      return Optional.of(TRANSACTION_METADATA);
    }
    return Optional.empty();
  }
}
