package io.lakesink.kafka;

import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableDelivery;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop: reads records, decodes them, hands them to each topic's table delivery,
 * flushes when due, and commits Kafka group offsets only after the Delta commit covering them.
 * On every partition assignment it seeks to the offset the table's Delta log stores, so the log,
 * not the consumer group, decides where reading resumes.
 *
 * <p>Single-threaded: one thread polls, decodes, writes and commits.
 */
public final class KafkaWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaWorker.class);
  private static final Duration POLL = Duration.ofMillis(200);

  /** A table's subscription topic with its decoder. */
  public record Route(TableDelivery delivery, Supplier<RecordDecoder> decoder) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<String, TableDelivery> byTopic = new LinkedHashMap<>();
  private final Map<String, RecordDecoder> decoders = new HashMap<>();
  private final FlushHook hook;
  private final Clock clock;
  private final Duration assignmentTimeout;
  private final Map<TopicPartition, Long> endOffsets = new HashMap<>();
  private final Map<String, Long> consumed = new HashMap<>();
  /** Partitions paused while their table's flushes fail and are retried. */
  private final java.util.Set<TopicPartition> heldBack = new java.util.HashSet<>();
  /** Partitions paused after a retryable decode failure, and when to read them again. */
  private final Map<TopicPartition, Long> retryAt = new HashMap<>();
  static final Duration DECODE_RETRY = Duration.ofSeconds(5);
  private volatile boolean stopping;
  private volatile WorkerStatus status = WorkerStatus.STARTING;
  private long nextReleaseCheck;
  /** How often quarantined tables are checked for an operator's release. */
  public static final Duration RELEASE_CHECK = Duration.ofSeconds(10);

  public KafkaWorker(
      Map<String, Object> consumerProperties, List<Route> routes, FlushHook hook, Clock clock, Duration assignmentTimeout) {
    Properties props = new Properties();
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    props.putAll(consumerProperties);
    // Not overridable: offsets are committed by hand, after the Delta commit.
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(props);
    for (Route r : routes) {
      byTopic.put(r.delivery().subscription().topic(), r.delivery());
      decoders.put(r.delivery().subscription().topic(), r.decoder().get());
    }
    this.hook = hook;
    this.clock = clock;
    this.assignmentTimeout = assignmentTimeout;
  }

  /** Asks a running {@link #run} to flush, commit and return; safe from any thread. */
  public void stop() {
    stopping = true;
    consumer.wakeup();
  }

  /**
   * Consumes until {@link #stop} or, with {@code stopAtEnd}, until every assigned partition has
   * reached the end offset it had when assigned. Flushes and commits before returning.
   */
  public WorkerResult run(boolean stopAtEnd) {
    consumer.subscribe(byTopic.keySet(), new Rebalance());
    long deadline = clock.millis() + assignmentTimeout.toMillis();
    try {
      while (!stopping) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
        for (ConsumerRecord<byte[], byte[]> record : records) {
          handle(record);
        }
        flushDue();
        resumeRetries();
        checkReleases();
        byTopic.values().forEach(TableDelivery::maintain);
        status = snapshot();
        if (stopAtEnd) {
          if (consumer.assignment().isEmpty()) {
            if (clock.millis() > deadline) {
              log.warn("No partition was assigned within {}: do the topics {} exist?", assignmentTimeout, byTopic.keySet());
              break;
            }
          } else if (reachedEnd()) {
            break;
          }
        }
      }
    } catch (WakeupException e) {
      if (!stopping) {
        throw e;
      }
    }
    flushAll(true);
    // A delivering table still holding events could not write them (a retryable failure).
    boolean finalFlushFailed = byTopic.values().stream().anyMatch(d -> d.state().delivering() && d.bufferedEvents() > 0);
    status = snapshot();
    Map<String, DeliveryState> states = new LinkedHashMap<>();
    byTopic.values().forEach(d -> states.put(d.tableName(), d.state()));
    return new WorkerResult(states, finalFlushFailed);
  }

  /** The latest snapshot; safe to call from any thread. */
  public WorkerStatus status() {
    return status;
  }

  private WorkerStatus snapshot() {
    List<WorkerStatus.Subscription> subs = new ArrayList<>();
    for (TableDelivery d : byTopic.values()) {
      Map<Integer, Long> lag = new java.util.TreeMap<>();
      for (TopicPartition tp : assigned(d)) {
        consumer.currentLag(tp).ifPresent(l -> lag.put(tp.partition(), l));
      }
      subs.add(new WorkerStatus.Subscription(d.status(), Map.copyOf(lag), consumed.getOrDefault(d.subscription().topic(), 0L)));
    }
    return new WorkerStatus(clock.instant(), List.copyOf(subs));
  }

  private void resumeRetries() {
    long now = clock.millis();
    List<TopicPartition> due = new ArrayList<>();
    retryAt.forEach((tp, at) -> {
      if (at <= now) due.add(tp);
    });
    due.forEach(retryAt::remove);
    due.removeIf(tp -> !consumer.assignment().contains(tp) || !byTopic.get(tp.topic()).state().delivering());
    consumer.resume(due);
  }

  /** Resumes quarantined tables an operator released, from the offsets their table stores. */
  private void checkReleases() {
    long now = clock.millis();
    if (now < nextReleaseCheck) {
      return;
    }
    nextReleaseCheck = now + RELEASE_CHECK.toMillis();
    for (TableDelivery d : byTopic.values()) {
      if (d.state().delivering()) {
        continue;
      }
      try {
        if (!d.releaseIfAllowed()) {
          continue;
        }
      } catch (RetryableException e) {
        log.warn("Could not check the quarantine of {}: {}", d.tableName(), e.getMessage());
        continue;
      }
      List<TopicPartition> theirs = assigned(d);
      Map<SourcePartition, Long> stored =
          d.storedOffsets(theirs.stream().map(tp -> new SourcePartition(tp.topic(), tp.partition())).toList());
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new java.util.HashSet<>(theirs));
      for (TopicPartition tp : theirs) {
        Long next = stored.get(new SourcePartition(tp.topic(), tp.partition()));
        if (next != null) {
          consumer.seek(tp, next);
        } else if (committed.get(tp) != null) {
          consumer.seek(tp, committed.get(tp).offset());
        } else {
          consumer.seekToBeginning(List.of(tp));
        }
      }
      consumer.resume(theirs);
    }
  }

  private void handle(ConsumerRecord<byte[], byte[]> record) {
    consumed.merge(record.topic(), 1L, Long::sum);
    TableDelivery delivery = byTopic.get(record.topic());
    if (delivery == null || !delivery.state().delivering()) {
      return; // a quarantined table's partitions are paused; records already fetched are left unread
    }
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (retryAt.containsKey(tp)) {
      return; // waiting to re-read this partition from an earlier record
    }
    SourcePosition at = new SourcePosition(record.topic(), record.partition(), record.offset());
    ChangeEvent event;
    try {
      event = decoders.get(record.topic()).decode(at, record.key(), record.value());
    } catch (RetryableException e) {
      // The record may be fine (the schema registry is unreachable): read it again later.
      log.warn("Cannot decode {} yet, retrying in {}: {}", at, DECODE_RETRY, e.getMessage());
      consumer.seek(tp, record.offset());
      consumer.pause(List.of(tp));
      retryAt.put(tp, clock.millis() + DECODE_RETRY.toMillis());
      return;
    } catch (DecodeException | RuntimeException e) {
      failTable(delivery, Errors.undecodable(delivery.tableName(), at, e.getMessage(), e));
      return;
    }
    if (event == null) {
      delivery.skip(at);
      return;
    }
    try {
      delivery.accept(event);
    } catch (TableFailureException e) {
      failTable(delivery, e);
    }
  }

  private void flushDue() {
    long now = clock.millis();
    for (TableDelivery d : byTopic.values()) {
      if (d.flushDue(now)) {
        flush(d, true);
      }
    }
  }

  private void flushAll(boolean commitToKafka) {
    for (TableDelivery d : byTopic.values()) {
      flush(d, commitToKafka);
    }
  }

  private void flush(TableDelivery d, boolean commitToKafka) {
    Map<SourcePartition, Long> committed;
    try {
      committed = d.flush();
    } catch (TableFailureException e) {
      pause(d);
      return;
    } catch (RetryableException e) {
      // Keep the buffer, stop reading more for this table until a flush gets through: a long
      // storage outage must not grow the buffer without bound.
      log.warn("{}; will retry, reading of {} paused meanwhile", e.getMessage(), d.subscription().topic());
      holdBack(d);
      return;
    }
    release(d);
    if (committed.isEmpty()) {
      return;
    }
    hook.at(d.tableName(), FlushStep.AFTER_COMMIT);
    if (commitToKafka) {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      committed.forEach(
          (p, next) -> {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (consumer.assignment().contains(tp)) {
              offsets.put(tp, new OffsetAndMetadata(next));
            }
          });
      if (!offsets.isEmpty()) {
        consumer.commitSync(offsets);
      }
    }
  }

  private void holdBack(TableDelivery d) {
    for (TopicPartition tp : assigned(d)) {
      if (!retryAt.containsKey(tp)) {
        heldBack.add(tp);
      }
    }
    consumer.pause(heldBack);
  }

  /** Resumes what {@link #holdBack} paused for this table, once a flush went through. */
  private void release(TableDelivery d) {
    List<TopicPartition> theirs = new ArrayList<>();
    heldBack.removeIf(tp -> {
      if (tp.topic().equals(d.subscription().topic())) {
        theirs.add(tp);
        return true;
      }
      return false;
    });
    theirs.removeIf(tp -> !consumer.assignment().contains(tp));
    if (!theirs.isEmpty() && d.state().delivering()) {
      consumer.resume(theirs);
    }
  }

  private void failTable(TableDelivery d, TableFailureException e) {
    d.fail(e);
    pause(d);
  }

  private void pause(TableDelivery d) {
    consumer.pause(assigned(d));
  }

  /** The partitions of this table's topic currently assigned to this worker. */
  private List<TopicPartition> assigned(TableDelivery d) {
    List<TopicPartition> theirs = new ArrayList<>();
    for (TopicPartition tp : consumer.assignment()) {
      if (tp.topic().equals(d.subscription().topic())) {
        theirs.add(tp);
      }
    }
    return theirs;
  }

  private boolean reachedEnd() {
    for (TopicPartition tp : consumer.assignment()) {
      TableDelivery d = byTopic.get(tp.topic());
      if (!d.state().delivering()) {
        continue;
      }
      Long end = endOffsets.get(tp);
      if (retryAt.containsKey(tp) || (end != null && consumer.position(tp) < end)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(30));
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      // Commit what we hold for these partitions while they are still ours; the next owner
      // starts from the table's offsets, so nothing buffered here may be written later.
      flushAll(true);
      for (TopicPartition tp : partitions) {
        endOffsets.remove(tp);
        retryAt.remove(tp);
        heldBack.remove(tp);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      // Another member may already own them: drop, never write, what was buffered.
      Map<TableDelivery, List<SourcePartition>> byTable = new HashMap<>();
      for (TopicPartition tp : partitions) {
        TableDelivery d = byTopic.get(tp.topic());
        byTable.computeIfAbsent(d, x -> new ArrayList<>()).add(new SourcePartition(tp.topic(), tp.partition()));
        endOffsets.remove(tp);
        retryAt.remove(tp);
        heldBack.remove(tp);
      }
      byTable.forEach(TableDelivery::discard);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      Map<TableDelivery, List<SourcePartition>> byTable = new LinkedHashMap<>();
      for (TopicPartition tp : partitions) {
        byTable.computeIfAbsent(byTopic.get(tp.topic()), x -> new ArrayList<>())
            .add(new SourcePartition(tp.topic(), tp.partition()));
      }
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(partitions);
      endOffsets.putAll(ends);
      byTable.forEach(
          (d, ps) -> {
            Map<SourcePartition, Long> stored = d.storedOffsets(ps);
            for (SourcePartition p : ps) {
              TopicPartition tp = new TopicPartition(p.topic(), p.partition());
              Long next = stored.get(p);
              if (next != null && d.state().delivering()) {
                // Seeking outside the partition would make the consumer reset silently:
                // a replay (duplicates) or a gap (lost events). Stop the table instead.
                if (next > ends.get(tp)) {
                  d.fail(Errors.offsetsAheadOfTopic(d.tableName(), p.toString(), next, ends.get(tp)));
                } else if (next < beginnings.get(tp)) {
                  d.fail(Errors.offsetsBehindRetention(d.tableName(), p.toString(), next, beginnings.get(tp)));
                } else {
                  consumer.seek(tp, next);
                }
              }
              log.info("Assigned {} → {}, resuming at {}", p, d.tableName(), next != null ? "offset " + next + " (from the Delta log)" : "the group's committed offset or the earliest");
            }
            if (!d.state().delivering()) {
              consumer.pause(ps.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList());
            }
          });
    }
  }
}
