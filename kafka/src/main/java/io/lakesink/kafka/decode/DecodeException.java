package io.lakesink.kafka.decode;

import io.lakesink.error.Errors;
import io.lakesink.event.NonTableTopic;
import java.util.Optional;

/** A record that cannot be decoded; the message says what is wrong with it. */
public final class DecodeException extends Exception {
  private final NonTableTopic nonTableTopic;

  public DecodeException(String message) {
    this(message, (Throwable) null);
  }

  public DecodeException(String message, Throwable cause) {
    super(message, cause);
    this.nonTableTopic = null;
  }

  private DecodeException(NonTableTopic kind, String message) {
    super(message);
    this.nonTableTopic = kind;
  }

  /** A record of a topic Debezium writes besides the tables' (heartbeats, transactions, schema changes). */
  public static DecodeException nonTableRecord(String topic, NonTableTopic kind) {
    return new DecodeException(kind, Errors.nonTableRecord(topic, kind));
  }

  /** What kind of topic the record came from, when it is one that carries no table changes. */
  public Optional<NonTableTopic> nonTableTopic() {
    return Optional.ofNullable(nonTableTopic);
  }
}
