package io.lakesink.kafka;

import io.lakesink.delivery.DeliveryState;
import io.lakesink.delivery.FlushHook;
import io.lakesink.delivery.FlushStep;
import io.lakesink.delivery.ProgressSignal;
import io.lakesink.delivery.ServiceWait;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableDelivery;
import io.lakesink.delivery.TableStatus;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.PartitionPauses.Reason;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop: reads records, decodes them, hands them to each topic's table delivery,
 * flushes when due, and commits Kafka group offsets only after the Delta commit covering them.
 * Where reading resumes is decided by the table's Delta log ({@link #position}), not by the
 * consumer group.
 *
 * <p>One thread polls, buffers and commits group offsets; the Kafka consumer is touched by it
 * alone. The records a poll returns are decoded on every core ({@link DecodePool}) and their
 * outcomes applied by the poll thread partition by partition in offset order, exactly as if it
 * had decoded them itself. A table's due flush runs on a writer thread ({@link io.lakesink.delivery.FlushWriters})
 * while this thread keeps reading, one flush in flight per table; the loop collects each outcome
 * and only then commits the group offsets it stored. Nothing a table, a record or an outside
 * service does may end the loop: every failure is retried (the partitions paused meanwhile) or
 * quarantines the one table it belongs to.
 */
public final class KafkaWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaWorker.class);
  private static final Duration POLL = Duration.ofMillis(200);
  static final Duration DECODE_RETRY = Duration.ofSeconds(5);
  static final Duration POSITION_RETRY = Duration.ofSeconds(5);
  /** How often quarantined tables are checked for an operator's release. */
  public static final Duration RELEASE_CHECK = Duration.ofSeconds(10);
  /** How long a run that ends waits for catalog registrations in flight. */
  private static final Duration SETTLE = Duration.ofSeconds(60);
  /** Broker calls made while positioning partitions. */
  private static final Duration BROKER_CALL = Duration.ofSeconds(15);
  /**
   * A group offset commit: the loop waits for it, and a broker that just went away would hold
   * it that long before the probe can tell; one that failed is committed later anyway.
   */
  private static final Duration GROUP_COMMIT = Duration.ofSeconds(5);

  /** A table's subscription topic with its decoder. */
  public record Route(TableDelivery delivery, Supplier<RecordDecoder> decoder) {}

  private final KafkaConsumer<byte[], ByteBuffer> consumer;
  private final Map<String, TableDelivery> byTopic = new LinkedHashMap<>();
  private final DecodePool decoders;
  private final FlushHook hook;
  private final Clock clock;
  private final Duration assignmentTimeout;
  /** How long the loop may spend between polls: half of what Kafka allows before evicting us. */
  private final long pollBudgetMillis;
  private final Map<TopicPartition, Long> endOffsets = new HashMap<>();
  private final Map<String, Long> consumed = new HashMap<>();
  final PartitionPauses pauses = new PartitionPauses();
  private volatile boolean stopping;
  /** After the loop: no probe follows, so a single failed probe no longer holds group offsets back. */
  private boolean finalFlush;
  /** A group commit failed: the next ones wait for the probe's next answer instead of each waiting {@link #GROUP_COMMIT}. */
  private boolean groupCommitFailed;
  private volatile WorkerStatus status = WorkerStatus.STARTING;
  private long nextReleaseCheck;
  private long lastPollMillis;
  private boolean buffersFull;
  /** What the poll thread waits on while {@link #buffersFull}: a flush or a follow ended. */
  private final ProgressSignal progress;
  /** When reading last paused for the budget ({@link System#nanoTime}), and how long it waited before that. */
  private long buffersFullSince;
  private long buffersFullNanos;
  private boolean backPressureOnly; // the current BUFFERS_FULL pause waits only for flushes being written
  /** Worker-level faults by source ("storage:<table>", "registry:<topic>"): message. */
  private final Map<String, String> faults = new LinkedHashMap<>();
  static final Duration FAULT_RECHECK = Duration.ofSeconds(30);
  private final long maxBufferBytes;
  private final ServiceOutages outages;
  private final BrokerProbe probe;
  /**
   * Group offsets not committed yet: the commit failed, or Kafka does not answer (waiting
   * {@link #BROKER_CALL} for it after every flush would hold the loop). Committed with the next
   * flush's, or as soon as Kafka answers again.
   */
  private final Map<TopicPartition, OffsetAndMetadata> pendingGroupOffsets = new HashMap<>();
  private final TopicDiscovery discovery;
  /** The topics the consumer is subscribed to: those of {@link #byTopic}, once discovered ones are added. */
  private Set<String> subscribed = Set.of();
  private boolean discovered;
  private long nextDiscovery;

  /** The default worker-wide buffer budget: a quarter of the heap. */
  public static long defaultBufferBudget() {
    return Runtime.getRuntime().maxMemory() / 4;
  }

  /**
   * @param discovery finds more topics to deliver while running (pattern subscriptions)
   * @param maxBufferBytes what all tables' buffers may hold on the heap together; past it the
   *     largest buffers are flushed, and reading pauses while flushes cannot make room
   * @param progress given when a flush or a follow of the routes' deliveries ends ({@link
   *     io.lakesink.delivery.FlushWriters#progress}): reading paused for the buffer budget goes on
   *     at once, not at the end of a poll (one nobody gives: at the end of a poll, as before)
   */
  public KafkaWorker(
      Map<String, Object> consumerProperties, List<Route> routes, TopicDiscovery discovery, FlushHook hook, Clock clock,
      Duration assignmentTimeout, long maxBufferBytes, ProgressSignal progress) {
    Properties props = new Properties();
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    // Records of aborted producer transactions are never delivered.
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.putAll(consumerProperties);
    // Not overridable: offsets are committed by hand, after the Delta commit.
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    // Values are read where the consumer fetched them, not copied into an array each: decoders
    // take the buffer (RecordDecoder) and keep nothing of it, so no event holds on to a fetch.
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
    this.pollBudgetMillis =
        Long.parseLong(String.valueOf(props.getOrDefault(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "300000"))) / 2;
    this.consumer = new KafkaConsumer<>(props);
    this.decoders = DecodePool.forThisMachine();
    routes.forEach(this::add);
    this.discovery = discovery;
    this.hook = hook;
    this.clock = clock;
    this.assignmentTimeout = assignmentTimeout;
    this.maxBufferBytes = maxBufferBytes;
    this.progress = progress;
    this.outages = new ServiceOutages(clock);
    this.probe = new BrokerProbe(consumer, String.valueOf(props.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)), clock);
  }

  private void add(Route r) {
    byTopic.put(r.delivery().subscription().topic(), r.delivery());
    decoders.add(r.delivery().subscription().topic(), r.decoder());
  }

  /** Asks a running {@link #run} to flush, commit and return; safe from any thread. */
  public void stop() {
    stopping = true;
    consumer.wakeup();
    progress.signal(); // a poll thread waiting for room ends its wait (its next poll sees the wakeup)
  }

  /**
   * Consumes until {@link #stop} or, with {@code stopAtEnd}, until every assigned partition has
   * reached the end offset it had when assigned. Flushes and commits before returning.
   */
  public WorkerResult run(boolean stopAtEnd) {
    RebalanceHandler rebalances = new RebalanceHandler(this);
    discoverTopics(true);
    long deadline = clock.millis() + assignmentTimeout.toMillis();
    try {
      while (!stopping) {
        subscribe(rebalances);
        ConsumerRecords<byte[], ByteBuffer> records = subscribed.isEmpty() ? idle() : buffersFull ? awaitRoom() : consumer.poll(POLL);
        lastPollMillis = clock.millis();
        // What all tables buffer, summed once per poll and then moved by what each record adds to
        // its own table: summing every table's buffer after every record cost a call per table per
        // event (500 tables, 500 calls). Flushes that finish meanwhile only lower the true total,
        // so this never misses a budget overrun; past the budget the full check runs and re-sums.
        long buffered = bufferedHeapBytes();
        for (DecodePool.PartitionRuns p : decoders.start(records, this::reading).partitions()) {
          TableDelivery delivery = byTopic.get(p.partition().topic());
          // Counted per partition of a poll, not per record: a boxed sum for every record was 2 % of allocation.
          consumed.merge(p.partition().topic(), (long) p.records().size(), Long::sum);
          for (int i = 0; i < p.records().size(); i++) {
            long before = delivery == null ? 0 : delivery.bufferedHeapBytes();
            handle(p.records().get(i), p.partition(), delivery, p.outcome(i));
            buffered += delivery == null ? 0 : delivery.bufferedHeapBytes() - before;
            if (buffered > maxBufferBytes) {
              keepWithinBudget();
              buffered = bufferedHeapBytes();
            }
          }
        }
        flushDue();
        keepWithinBudget();
        retryDecodes();
        retryPositions();
        checkBroker();
        checkReleases();
        maintainTables();
        discoverTopics(false);
        pauses.apply(consumer);
        status = snapshot();
        if (stopAtEnd && !faults.isEmpty()) {
          log.error("Stopping: a worker-level fault would not clear by itself: {}", faults.values());
          break;
        }
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
    lastPollMillis = clock.millis();
    finalFlush = true;
    boolean finalFlushFailed = !flushAll();
    for (TableDelivery d : byTopic.values()) {
      try {
        d.settle(SETTLE);
      } catch (RuntimeException e) {
        log.warn("Background work of {} did not finish: {}", d.tableName(), e.toString());
      }
    }
    status = snapshot();
    Map<String, DeliveryState> states = new LinkedHashMap<>();
    byTopic.values().forEach(d -> states.put(d.tableName(), d.state()));
    return new WorkerResult(states, finalFlushFailed, faults());
  }

  /**
   * Lists the cluster's topics when due and adds the routes of new ones {@link #discovery} wants
   * delivered; the consumer subscribes to them before its next poll, and a new topic's partitions
   * are positioned from its table's Delta log on assignment, as every other's.
   */
  private void discoverTopics(boolean atStart) {
    long now = clock.millis();
    if (discovery == TopicDiscovery.NONE || now < nextDiscovery || (atStart && discovered)) {
      return;
    }
    Set<String> topics;
    try {
      topics = consumer.listTopics(BROKER_CALL).keySet();
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      log.warn("Could not list the topics for the pattern subscriptions, retrying in {}: {}", POSITION_RETRY, e.toString());
      nextDiscovery = now + POSITION_RETRY.toMillis();
      return;
    }
    nextDiscovery = now + discovery.interval().toMillis();
    for (Route r : discovery.discover(topics, !discovered)) {
      add(r);
    }
    discovered = true;
  }

  /** Subscribes to the routed topics, when they changed since the last call. */
  private void subscribe(RebalanceHandler rebalances) {
    if (subscribed.equals(byTopic.keySet())) {
      return;
    }
    subscribed = Set.copyOf(byTopic.keySet());
    if (!subscribed.isEmpty()) {
      // A changed subscription rebalances the group: partitions held now are revoked (flushed)
      // and assigned again, resuming from their tables' logs.
      consumer.subscribe(subscribed, rebalances);
    }
  }

  /**
   * Every partition is paused for the budget: waits for a flush or a follow to end (or a poll's
   * time), then polls without waiting, which keeps the consumer in its group and runs a
   * rebalance's callbacks as a poll would. A poll of paused partitions would wait its whole time
   * however soon the flush that makes room ends.
   */
  private ConsumerRecords<byte[], ByteBuffer> awaitRoom() {
    try {
      progress.await(POLL);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
      return ConsumerRecords.empty();
    }
    return consumer.poll(Duration.ZERO);
  }

  /** No topic to read yet (a pattern that matches nothing so far): wait as a poll would. */
  private ConsumerRecords<byte[], ByteBuffer> idle() {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    }
    return ConsumerRecords.empty();
  }

  /** The latest snapshot; safe to call from any thread. */
  public WorkerStatus status() {
    return status;
  }

  private WorkerStatus snapshot() {
    List<WorkerStatus.Subscription> subs = new ArrayList<>();
    List<TableStatus> tables = new ArrayList<>();
    Map<String, List<TopicPartition>> assigned = new HashMap<>();
    Map<String, ServiceWait> storage = new HashMap<>();
    for (TableDelivery d : byTopic.values()) {
      List<TopicPartition> theirs = assigned(d);
      TableStatus table = outages.overlay(d.status());
      tables.add(table);
      assigned.put(d.tableName(), theirs);
      d.storageWait().ifPresent(w -> storage.put(d.tableName(), w));
      subs.add(new WorkerStatus.Subscription(
          table, PartitionLags.of(consumer, theirs), consumed.getOrDefault(d.subscription().topic(), 0L)));
    }
    long waited = buffersFullNanos + (buffersFull ? System.nanoTime() - buffersFullSince : 0);
    return new WorkerStatus(clock.instant(), List.copyOf(subs), faults(), outages.list(tables, assigned, storage),
        discovery.report(), Duration.ofNanos(waited));
  }

  /**
   * Asks Kafka whether it answers, when due ({@link BrokerProbe}): opens an outage after two
   * failures in a row, closes it at the first answer, and then commits the group offsets held
   * back meanwhile.
   */
  private void checkBroker() {
    BrokerProbe.Outcome outcome = probe.probe(byTopic.keySet());
    if (outcome == BrokerProbe.Outcome.ANSWERED) {
      boolean retry = groupCommitFailed;
      groupCommitFailed = false;
      if (outages.kafkaAnswered() | probe.answeredAfterFailures() | retry) {
        commitPendingGroupOffsets();
      }
    } else if (outcome == BrokerProbe.Outcome.FAILED && probe.down()) {
      outages.kafkaDown(probe.problem(), probe.firstFailure());
    }
  }

  /** Whether records of this partition are read now; the same test decides whether to decode them ahead. */
  private boolean reading(TopicPartition tp) {
    TableDelivery delivery = byTopic.get(tp.topic());
    return delivery != null && delivery.state().delivering() && !pauses.has(tp, Reason.DECODE_RETRY)
        && !pauses.has(tp, Reason.NO_POSITION);
  }

  /**
   * Applies one record at its turn: {@code decoded} is its outcome from the decoder threads, or
   * {@link DecodePool#NOT_DECODED} (then it is decoded here, should its partition be read after all).
   */
  private void handle(ConsumerRecord<byte[], ByteBuffer> record, TopicPartition tp, TableDelivery delivery, Object decoded) {
    if (!reading(tp)) {
      // Records fetched before the partition was paused are left unread: it is re-read from
      // its position when the pause ends.
      return;
    }
    // No position of its own for a record that decodes to an event: the event has one.
    ChangeEvent event;
    try {
      event = outcome(decoded == DecodePool.NOT_DECODED ? decoders.decodeNow(record) : decoded);
    } catch (RetryableException e) {
      // The record may be fine (the schema registry is unreachable): read it again later.
      log.warn("Cannot decode {} yet, retrying in {}: {}", positionOf(record), DECODE_RETRY, e.getMessage());
      outages.registryFailed(tp, delivery.tableName(), e.getMessage());
      readAgainLater(tp, record.offset(), DECODE_RETRY);
      return;
    } catch (ConfigurationException e) {
      // The registry refused our credentials: every record of the topic would fail the same way.
      // It answered, though: a fault, not an outage.
      outages.registryAnswered(tp);
      raiseFault("registry:" + record.topic(), e);
      readAgainLater(tp, record.offset(), FAULT_RECHECK);
      return;
    } catch (DecodeException e) {
      outages.registryAnswered(tp);
      failTable(delivery, Errors.undecodable(delivery.tableName(), positionOf(record), e.getMessage(), e));
      return;
    } catch (RuntimeException e) {
      // Decoders report every input problem as a DecodeException: anything else is a bug in
      // lakesink, said as such (the record may be fine), with its stack trace in the log only.
      SourcePosition at = positionOf(record);
      log.error("Decoder bug at {}", at, e);
      failTable(delivery, Errors.decoderBug(delivery.tableName(), at, e));
      return;
    }
    outages.registryAnswered(tp);
    if (!faults.isEmpty()) {
      clearFault("registry:" + record.topic());
    }
    try {
      if (event == null) {
        delivery.skip(positionOf(record));
      } else {
        delivery.accept(event);
      }
    } catch (TableFailureException e) {
      failTable(delivery, e);
    }
  }

  private static SourcePosition positionOf(ConsumerRecord<byte[], ByteBuffer> record) {
    return new SourcePosition(record.topic(), record.partition(), record.offset());
  }

  /** A decoder's outcome as if it was decoded here: the event, or its exception thrown. */
  private static ChangeEvent outcome(Object decoded) throws DecodeException {
    if (decoded instanceof DecodePool.Failure f) {
      if (f.cause() instanceof DecodeException e) {
        throw e;
      } else if (f.cause() instanceof RuntimeException e) {
        throw e;
      } else if (f.cause() instanceof Error e) {
        throw e;
      }
      throw new IllegalStateException("a decoder threw " + f.cause(), f.cause()); // no other checked exception is declared
    }
    return (ChangeEvent) decoded;
  }

  private void readAgainLater(TopicPartition tp, long offset, Duration after) {
    consumer.seek(tp, offset);
    pauses.addUntil(tp, Reason.DECODE_RETRY, clock.millis() + after.toMillis());
    pauses.apply(consumer);
  }

  /**
   * A worker-level fault: credentials or permissions refused by storage or the registry. It is
   * not a table's fault, so no table is quarantined; it is reported once, {@code /health} turns
   * unhealthy, and the affected work is retried every {@link #FAULT_RECHECK} until it passes.
   */
  private void raiseFault(String source, ConfigurationException e) {
    if (faults.put(source, e.getMessage()) == null) {
      log.error("{} — lakesink keeps its buffers and checks again every {} s", e.getMessage(), FAULT_RECHECK.toSeconds());
    }
  }

  private void clearFault(String source) {
    if (faults.remove(source) != null) {
      log.info("The fault on {} cleared; delivery goes on", source);
    }
  }

  /** Worker-level faults still present, for status and for {@code run --stop-at-end}. */
  public List<String> faults() {
    return List.copyOf(faults.values());
  }

  /** Collects finished flushes, and starts the due ones: a table with one in flight keeps buffering. */
  private void flushDue() {
    long now = clock.millis();
    for (TableDelivery d : byTopic.values()) {
      afterFlush(d, d::finishedFlush);
      if (!d.flushing() && d.flushDue(now)) {
        startFlush(d);
      }
    }
  }

  private void startFlush(TableDelivery d) {
    d.startFlush(clock.millis() + pollBudgetMillis);
    afterFlush(d, d::finishedFlush); // a synchronous delivery (or a quick one) is done already
  }

  /** Flushes every table; returns whether all of them got through. */
  private boolean flushAll() {
    boolean ok = true;
    for (TableDelivery d : byTopic.values()) {
      ok &= flush(d);
    }
    return ok;
  }

  /**
   * Flushes one table now (revoke, shutdown): waits for its flush in flight, within the poll
   * budget, then writes what is left on this thread, and commits the group offsets of both.
   * Returns false when it must be retried.
   */
  boolean flush(TableDelivery d) {
    long deadline = lastPollMillis + pollBudgetMillis;
    afterFlush(d, () -> d.awaitFlush(deadline));
    if (d.flushing()) {
      log.warn("A flush of {} is still in flight after the poll budget; its partitions' events are not waited for",
          d.tableName());
      return false;
    }
    return afterFlush(d, () -> Optional.of(d.flush(deadline)));
  }

  /**
   * Applies a flush's outcome, if there is one: the group offsets after the Delta commit, the
   * table's partitions paused while its flushes fail. Returns false when it must be retried.
   */
  private boolean afterFlush(TableDelivery d, Supplier<Optional<Map<SourcePartition, Long>>> outcome) {
    Map<SourcePartition, Long> committed;
    try {
      Optional<Map<SourcePartition, Long>> finished = outcome.get();
      if (finished.isEmpty()) {
        return true; // nothing finished
      }
      committed = finished.get();
    } catch (TableFailureException e) {
      pauses.add(assigned(d), Reason.QUARANTINED);
      return true;
    } catch (RetryableException e) {
      // Keep the buffer, stop reading more for this table until a flush gets through: a long
      // storage outage must not grow the buffer without bound.
      log.warn("{}; reading of {} paused meanwhile", e.getMessage(), d.subscription().topic());
      pauses.add(assigned(d), Reason.FLUSH_FAILING);
      return false;
    } catch (ConfigurationException e) {
      raiseFault("storage:" + d.tableName(), e);
      pauses.add(assigned(d), Reason.FLUSH_FAILING);
      return false;
    }
    clearFault("storage:" + d.tableName());
    pauses.remove(assigned(d), Reason.FLUSH_FAILING);
    if (committed.isEmpty()) {
      return true;
    }
    hook.at(d.tableName(), FlushStep.AFTER_COMMIT);
    commitGroupOffsets(committed);
    return true;
  }

  /**
   * The group offsets only serve lag monitoring (the Delta log decides where reading resumes),
   * so a refused group commit (this member was evicted, a rebalance is under way) is logged and
   * left to the next commit.
   */
  private void commitGroupOffsets(Map<SourcePartition, Long> committed) {
    committed.forEach((p, next) -> pendingGroupOffsets.merge(new TopicPartition(p.topic(), p.partition()),
        new OffsetAndMetadata(next), (a, b) -> a.offset() >= b.offset() ? a : b));
    commitPendingGroupOffsets();
  }

  private void commitPendingGroupOffsets() {
    pendingGroupOffsets.keySet().retainAll(consumer.assignment());
    if (pendingGroupOffsets.isEmpty() || ((probe.failing() || groupCommitFailed) && !finalFlush) || outages.kafkaDown()) {
      return; // Kafka did not answer the last probe: committed once it does
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(pendingGroupOffsets);
    try {
      consumer.commitSync(offsets, GROUP_COMMIT);
      offsets.forEach(pendingGroupOffsets::remove);
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      groupCommitFailed = true;
      log.warn("Could not commit group offsets {} ({}); the Delta log holds them, the group catches up later", offsets, e.toString());
    }
  }

  /**
   * Keeps all buffers together within {@link #maxBufferBytes}, events in flight included: starts
   * flushes of the largest first (a table whose flushes are failing is left alone, it is retried
   * on its own schedule; one with a flush in flight waits for it), and when that does not make
   * room at once, pauses every partition until flushes get through (or a kept table's follow,
   * whose changes count too, ends). Reading resumes
   * below 80 % of the budget, so the worker does not flap at the limit.
   */
  private void keepWithinBudget() {
    long total = bufferedHeapBytes();
    if (total <= maxBufferBytes) {
      if (buffersFull && total <= maxBufferBytes / 10 * 8) {
        buffersFull = false;
        buffersFullNanos += System.nanoTime() - buffersFullSince;
        pauses.remove(consumer.assignment(), Reason.BUFFERS_FULL);
        if (backPressureOnly) {
          log.debug("Buffers are below the budget again ({} of {} bytes); reading resumes", total, maxBufferBytes);
        } else {
          log.info("Buffers are below the budget again ({} of {} bytes); reading resumes", total, maxBufferBytes);
        }
      }
      return;
    }
    // What follows hold is not flushed away: flushing early for it would only cut the buffers into
    // more, smaller commits (and more follows); reading waits for the follow instead (below).
    long held = heldHeapBytes();
    List<TableDelivery> largestFirst = new ArrayList<>(byTopic.values());
    largestFirst.sort((a, b) -> Long.compare(b.bufferedHeapBytes(), a.bufferedHeapBytes()));
    for (TableDelivery d : largestFirst) {
      if (total - held <= maxBufferBytes / 10 * 8 || d.bufferedHeapBytes() == 0) {
        break;
      }
      if (!d.flushing() && assigned(d).stream().noneMatch(tp -> pauses.has(tp, Reason.FLUSH_FAILING))) {
        log.debug("Buffers hold {} bytes, over the budget of {}: flushing {} early", total, maxBufferBytes, d.tableName());
        startFlush(d);
        total = bufferedHeapBytes(); // in-flight events count until committed: lower only once written
      }
    }
    if (total > maxBufferBytes && !buffersFull) {
      buffersFull = true;
      buffersFullSince = System.nanoTime();
      pauses.add(consumer.assignment(), Reason.BUFFERS_FULL);
      pauses.apply(consumer);
      // Catching up a backlog, the budget is routinely reached while a flush is being written:
      // back-pressure, not a fault, and it comes and goes with every batch. Only a pause that
      // flushes cannot end on their own (failing, or none running) is worth a warning.
      backPressureOnly = byTopic.values().stream()
          .anyMatch(d -> d.flushing() || d.heldByMaintenance() || d.heldHeapBytes() > 0)
          && consumer.assignment().stream().noneMatch(tp -> pauses.has(tp, Reason.FLUSH_FAILING));
      if (backPressureOnly) {
        log.debug("Buffers hold {} bytes, over the budget of {} (delivery.max_buffer_bytes): reading waits for the flushes"
            + " being written", total, maxBufferBytes);
      } else {
        log.warn("Buffers hold {} bytes, over the budget of {} (delivery.max_buffer_bytes), and flushes cannot make room:"
            + " reading pauses until they can", total, maxBufferBytes);
      }
    }
  }

  /** What the kept tables' follows hold beside the buffers. */
  private long heldHeapBytes() {
    long total = 0;
    for (TableDelivery d : byTopic.values()) {
      total += d.heldHeapBytes();
    }
    return total;
  }

  /** What all tables' buffers hold, and what their kept tables' follows hold beside them. */
  private long bufferedHeapBytes() {
    long total = 0;
    for (TableDelivery d : byTopic.values()) {
      total += d.bufferedHeapBytes() + d.heldHeapBytes();
    }
    return total;
  }

  /** Quarantined tables an operator released resume from the offsets their table stores. */
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
        if (d.releaseIfAllowed()) {
          List<TopicPartition> theirs = assigned(d);
          pauses.remove(theirs, Reason.QUARANTINED);
          position(d, theirs);
        }
      } catch (RuntimeException e) {
        log.warn("Could not check the quarantine of {}: {}", d.tableName(), e.toString());
      }
    }
  }

  private void maintainTables() {
    for (TableDelivery d : byTopic.values()) {
      try {
        d.maintain();
      } catch (TableFailureException e) {
        failTable(d, e);
      } catch (RuntimeException e) {
        log.warn("Maintenance of {} failed, retried on the next loop: {}", d.tableName(), e.toString());
      }
    }
  }

  private void retryDecodes() {
    for (TopicPartition tp : pauses.due(Reason.DECODE_RETRY, clock.millis())) {
      pauses.remove(tp, Reason.DECODE_RETRY);
    }
  }

  private void retryPositions() {
    Map<TableDelivery, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : pauses.due(Reason.NO_POSITION, clock.millis())) {
      byTable.computeIfAbsent(byTopic.get(tp.topic()), x -> new ArrayList<>()).add(tp);
    }
    byTable.forEach(this::position);
  }

  /**
   * Where reading resumes, the one rule: the offset the table's Delta log stores for the
   * partition; a partition it has never seen starts at the group's committed offset, else at
   * the earliest. A stored offset outside the partition quarantines the table (seeking there
   * would make the consumer reset silently: a replay or a gap). When the log or the broker
   * cannot be read, the partition stays paused and positioning is tried again.
   */
  void position(TableDelivery d, List<TopicPartition> tps) {
    if (tps.isEmpty()) {
      return;
    }
    if (!d.state().delivering()) {
      pauses.add(tps, Reason.QUARANTINED);
      return;
    }
    afterFlush(d, d::finishedFlush);
    if (d.flushing()) {
      // What the log stores depends on the batch in flight: look again on the next loop, after
      // its outcome, without holding up the poll (or the rebalance callback) meanwhile.
      long now = clock.millis();
      tps.forEach(tp -> pauses.addUntil(tp, Reason.NO_POSITION, now));
      return;
    }
    List<SourcePartition> ps = tps.stream().map(tp -> new SourcePartition(tp.topic(), tp.partition())).toList();
    try {
      Map<SourcePartition, Long> stored = d.storedOffsets(ps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps, BROKER_CALL);
      Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(tps, BROKER_CALL);
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new java.util.HashSet<>(tps), BROKER_CALL);
      endOffsets.putAll(ends);
      for (TopicPartition tp : tps) {
        Long next = stored.get(new SourcePartition(tp.topic(), tp.partition()));
        if (next != null && next > ends.get(tp)) {
          throw Errors.offsetsAheadOfTopic(d.tableName(), tp.toString(), next, ends.get(tp));
        } else if (next != null && next < beginnings.get(tp)) {
          throw Errors.offsetsBehindRetention(d.tableName(), tp.toString(), next, beginnings.get(tp));
        }
      }
      for (TopicPartition tp : tps) {
        Long next = stored.get(new SourcePartition(tp.topic(), tp.partition()));
        OffsetAndMetadata group = committed.get(tp);
        if (next != null) {
          consumer.seek(tp, next);
        } else if (group != null) {
          consumer.seek(tp, group.offset());
        } else {
          consumer.seekToBeginning(List.of(tp));
        }
        pauses.remove(tp, Reason.NO_POSITION);
        log.info("Assigned {} → {}, resuming at {}", tp, d.tableName(),
            next != null ? "offset " + next + " (from the Delta log)" : group != null ? "the group's offset " + group.offset() : "the earliest offset");
      }
    } catch (TableFailureException e) {
      failTable(d, e);
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      log.warn("Cannot tell where to resume {} for {} yet, retrying in {}: {}", tps, d.tableName(), POSITION_RETRY, e.toString());
      long at = clock.millis() + POSITION_RETRY.toMillis();
      tps.forEach(tp -> pauses.addUntil(tp, Reason.NO_POSITION, at));
    }
  }

  private void failTable(TableDelivery d, TableFailureException e) {
    try {
      d.fail(e);
    } catch (RuntimeException saveFailed) {
      // Recording the quarantine failed (storage down): the table is stopped all the same, and
      // the record is written again when it is next quarantined.
      log.error("Could not record the quarantine of {}: {}", d.tableName(), saveFailed.toString());
    }
    pauses.add(assigned(d), Reason.QUARANTINED);
    outages.forget(assigned(d)); // a quarantined table reads nothing: it waits on no registry
  }

  /** The partitions of this table's topic currently assigned to this worker. */
  List<TopicPartition> assigned(TableDelivery d) {
    List<TopicPartition> theirs = new ArrayList<>();
    for (TopicPartition tp : consumer.assignment()) {
      if (tp.topic().equals(d.subscription().topic())) {
        theirs.add(tp);
      }
    }
    return theirs;
  }

  TableDelivery tableOf(TopicPartition tp) {
    return byTopic.get(tp.topic());
  }

  /** Forgets what this worker kept about partitions it no longer owns. */
  void forget(Collection<TopicPartition> tps) {
    pauses.forget(tps);
    tps.forEach(endOffsets::remove);
    tps.forEach(pendingGroupOffsets::remove);
    outages.forget(tps);
  }

  /** Applies pause decisions made inside a rebalance callback before poll fetches. */
  void applyPauses() {
    pauses.apply(consumer);
  }

  void pollingResumed() {
    lastPollMillis = clock.millis();
  }

  private boolean reachedEnd() {
    for (TopicPartition tp : consumer.assignment()) {
      TableDelivery d = byTopic.get(tp.topic());
      if (!d.state().delivering()) {
        continue;
      }
      Long end = endOffsets.get(tp);
      if (pauses.has(tp, Reason.DECODE_RETRY) || pauses.has(tp, Reason.NO_POSITION)
          || (end != null && consumer.position(tp) < end)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(30));
  }
}
