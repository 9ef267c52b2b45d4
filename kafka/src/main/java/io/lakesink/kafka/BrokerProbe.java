package io.lakesink.kafka;

import io.lakesink.error.Errors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Asks Kafka, every {@link #EVERY}, for the end offsets of the assigned partitions, waiting at
 * most {@link #TIMEOUT}. A poll that returns nothing cannot tell an idle topic from a broker that
 * is gone, and the consumer retries its own requests quietly; this small request, made by the
 * worker's own consumer (so with its address, security and permissions), can. Two failures in a
 * row count as an outage, so one slow answer on a busy broker does not. The answers also refresh
 * the end offsets the consumer computes lag from, for paused partitions too, which no fetch
 * refreshes.
 *
 * <p>Runs on the poll thread (the consumer is not thread-safe): a probe of a broker that does not
 * answer holds the loop for {@link #TIMEOUT}, which is why it is short; buffered rows are
 * committed meanwhile on the writer threads.
 */
final class BrokerProbe {
  static final Duration EVERY = Duration.ofSeconds(2);
  static final Duration TIMEOUT = Duration.ofSeconds(1);
  static final int FAILURES_FOR_OUTAGE = 2;

  /** What one call found. */
  enum Outcome { NOT_DUE, ANSWERED, FAILED }

  private final Consumer<?, ?> consumer;
  private final String bootstrap;
  private final Clock clock;
  private long next;
  private int failuresInARow;
  private Instant firstFailure;
  private String problem;
  private boolean answeredAfterFailures;

  BrokerProbe(Consumer<?, ?> consumer, String bootstrap, Clock clock) {
    this.consumer = consumer;
    this.bootstrap = bootstrap;
    this.clock = clock;
  }

  /**
   * Probes when due: the assigned partitions, or before any are assigned (the group cannot form
   * while Kafka is away) those of the subscribed topics.
   */
  Outcome probe(Collection<String> topics) {
    if (clock.millis() < next) {
      return Outcome.NOT_DUE;
    }
    try {
      List<TopicPartition> partitions = new ArrayList<>(consumer.assignment());
      if (partitions.isEmpty()) {
        for (String topic : topics) {
          for (PartitionInfo p : consumer.partitionsFor(topic, TIMEOUT)) {
            partitions.add(new TopicPartition(p.topic(), p.partition()));
          }
        }
      }
      if (!partitions.isEmpty()) {
        consumer.endOffsets(partitions, TIMEOUT);
      }
      answeredAfterFailures = failuresInARow > 0;
      failuresInARow = 0;
      firstFailure = null;
      return Outcome.ANSWERED;
    } catch (WakeupException | InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      if (failuresInARow++ == 0) {
        firstFailure = clock.instant();
      }
      problem = Errors.kafkaNotAnswering(bootstrap, TIMEOUT, failuresInARow, e.toString());
      return Outcome.FAILED;
    } finally {
      next = clock.millis() + EVERY.toMillis();
    }
  }

  /** Whether the last probe failed: calls that would wait for Kafka had better not, for now. */
  boolean failing() {
    return failuresInARow > 0;
  }

  /** Whether the last probe answered after one or more failed. */
  boolean answeredAfterFailures() {
    return answeredAfterFailures;
  }

  /** Whether the failures so far make an outage. */
  boolean down() {
    return failuresInARow >= FAILURES_FOR_OUTAGE;
  }

  /** When the failures in a row began: the outage's start. */
  Instant firstFailure() {
    return firstFailure;
  }

  String problem() {
    return problem;
  }
}
