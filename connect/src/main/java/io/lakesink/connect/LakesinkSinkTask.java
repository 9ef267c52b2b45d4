package io.lakesink.connect;

import io.delta.kernel.engine.Engine;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.catalog.unity.UnityCatalog;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushWriters;
import io.lakesink.delivery.modes.Deliveries;
import io.lakesink.delivery.SourcePartition;
import io.lakesink.delivery.TableDelivery;
import io.lakesink.delivery.TableStatus;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.decode.Decoders;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task: the standalone worker's discipline on Connect's consumer. Each topic has a
 * {@link TableDelivery} of the shared core; where a partition resumes is what its Delta table
 * stores (sought in {@link #open}), and Connect commits only offsets a Delta commit already
 * covers ({@link #preCommit}), so a restart or a rebalance neither loses nor repeats a record.
 * A record that cannot be decoded or delivered quarantines its table; the task and its other
 * tables go on.
 */
public final class LakesinkSinkTask extends SinkTask {
  private static final Logger log = LoggerFactory.getLogger(LakesinkSinkTask.class);
  static final Duration DECODE_RETRY = Duration.ofSeconds(5);
  static final Duration POSITION_RETRY = Duration.ofSeconds(5);
  static final Duration RELEASE_CHECK = Duration.ofSeconds(10);
  static final Duration FAULT_RECHECK = Duration.ofSeconds(30);
  /** A flush gives up retrying after this long, so put() returns well within max.poll.interval.ms. */
  static final Duration FLUSH_BUDGET = Duration.ofSeconds(60);
  static final Duration SETTLE = Duration.ofSeconds(30);

  /** A topic's delivery and decoder. */
  /**
   * @param decoder the subscription's format, for records whose key and value are bytes
   * @param connectData for records a converter turned into Connect data: Debezium JSON
   */
  private record Table(BufferedDelivery delivery, RecordDecoder decoder, RecordDecoder connectData) {}

  private final Clock clock = Clock.systemUTC();
  private final ConnectValues connectValues = new ConnectValues();
  private ConnectorSettings settings;
  private String connector;
  private volatile boolean stopped;
  private TableStorage storage;
  private Engine engine;
  private DeliveryContext deliveryContext;
  private SchemaRegistrySettings registry;
  private final Map<SchemaRegistrySettings, SchemaRegistryClient> registries = new HashMap<>();
  private final Map<String, Table> tables = new LinkedHashMap<>();
  /** The deliveries, for metrics read on other threads. */
  private final List<BufferedDelivery> deliveries = new CopyOnWriteArrayList<>();
  private TaskMetrics metrics;
  private final Pauses pauses = new Pauses();
  /** Per owned partition, the next offset to take: lower offsets are already in the table. */
  private final Map<TopicPartition, Long> next = new HashMap<>();
  /** Per owned partition, the next offset its table stores: all Connect may commit. */
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  /** Credentials or permissions refused (storage, registry), by source: message. */
  private final Map<String, String> faults = new LinkedHashMap<>();
  private long nextReleaseCheck;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    settings = new ConnectorSettings(props);
    registry = settings.schemaRegistry();
    storage = storage(settings);
    engine = KernelEngine.create(storage);
    metrics = new TaskMetrics(context.pluginMetrics(), deliveries);
    deliveryContext = DeliveryContext.of(settings.flushPolicy(), new QuarantineStore(storage))
        .withCatalog(catalog(settings)).withClock(clock).withMetrics(metrics).withMaintenance(settings.maintenance())
        // preCommit may only report offsets already in Delta, and put() flushes by policy: a
        // flush runs inside put(), on Connect's task thread, as before writer threads existed.
        .withWriters(FlushWriters.SYNCHRONOUS);
    log.info("lakesink sink task {} writing to {}", Version.get(), storage.describe());
    connector = props.getOrDefault("name", "");
    // Listed from the start, before Connect assigns partitions (the assignment is read in open).
    RunningTasks.publish(this, new TaskStatus(connector, clock.instant(), List.of(), List.of(), List.of()));
  }

  /**
   * Replaces what {@link LakesinkRestExtension} shows for this task. Built here, on the task's
   * thread, where the deliveries and the assignment are consistent; REST reads the snapshot.
   */
  private void publishStatus() {
    if (stopped) {
      return; // a stopped task is gone from the REST status, whatever Connect calls after stop
    }
    List<String> owned = context.assignment().stream()
        .map(TopicPartition::toString).sorted().toList();
    List<TableStatus> states = tables.values().stream().map(t -> t.delivery().status()).toList();
    RunningTasks.publish(this, new TaskStatus(connector, clock.instant(), owned, List.copyOf(faults.values()), states));
  }

  static TableStorage storage(ConnectorSettings s) {
    return switch (s.storageType()) {
      case "azure" -> AzureStorage.create(ConnectErrors.translating(() -> AzureStorageSettings.fromConfig(s.azureSection())));
      default -> new LocalStorage(Path.of(s.localPath()), s.prefix());
    };
  }

  static TableCatalog catalog(ConnectorSettings s) {
    return switch (s.catalogType()) {
      case "unity" -> ConnectErrors.translating(() -> UnityCatalog.fromSettings(s.unitySection()));
      default -> TableCatalog.NONE;
    };
  }

  /** The topic's table, built when one of its partitions is first assigned (topics.regex finds topics late). */
  private Table table(String topic) {
    return tables.computeIfAbsent(topic, t -> {
      Subscription s = settings.subscription(t);
      BufferedDelivery d = Deliveries.of(s, storage, engine, deliveryContext, settings.merge(), settings.keepsTable());
      d.syncCatalog(); // a table from an earlier run is registered, or checked, at start
      deliveries.add(d);
      metrics.table(d);
      log.info("Topic {} → {} ({})", t, storage.tableLocation(s.targetTable()), s.mode().name().toLowerCase());
      return new Table(d, Decoders.of(s, registry, registries).get(), new DebeziumJsonDecoder());
    });
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    Map<Table, List<TopicPartition>> byTable = byTable(partitions);
    byTable.forEach((t, tps) -> {
      // Anything still buffered for these partitions was read under an earlier ownership.
      t.delivery().discard(sources(tps));
      position(t.delivery(), tps);
    });
    pauses.apply(context);
    publishStatus();
  }

  /**
   * Where reading resumes: the offset the table's Delta log stores; a partition it has never
   * seen starts where Connect's consumer starts (the group's offset, else consumer.auto.offset.reset).
   * When the log cannot be read the partition stays paused and positioning is tried again.
   */
  private void position(TableDelivery d, List<TopicPartition> tps) {
    if (!d.state().delivering()) {
      pauses.add(tps, Pauses.Reason.QUARANTINED);
      return;
    }
    try {
      Map<SourcePartition, Long> stored = d.storedOffsets(sources(tps));
      for (TopicPartition tp : tps) {
        Long offset = stored.get(new SourcePartition(tp.topic(), tp.partition()));
        if (offset != null) {
          context.offset(tp, offset);
          next.put(tp, offset);
          committed.put(tp, offset);
        }
        pauses.remove(tp, Pauses.Reason.NO_POSITION);
        log.info("Assigned {} → {}, resuming at {}", tp, d.tableName(),
            offset != null ? "offset " + offset + " (from the Delta log)" : "Connect's consumer position");
      }
    } catch (TableFailureException e) {
      failTable(d, e);
    } catch (RuntimeException e) {
      log.warn("Cannot tell where to resume {} for {} yet, retrying in {}: {}", tps, d.tableName(), POSITION_RETRY, e.toString());
      long at = clock.millis() + POSITION_RETRY.toMillis();
      tps.forEach(tp -> pauses.addUntil(tp, Pauses.Reason.NO_POSITION, at));
    }
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    for (SinkRecord r : records) {
      handle(r);
      if (bufferedHeapBytes() > settings.bufferBytes()) {
        log.info("The task's buffers passed {} bytes (buffer.max.bytes): flushing every table", settings.bufferBytes());
        tables.values().forEach(t -> flush(t.delivery()));
      }
    }
    long now = clock.millis();
    for (Table t : tables.values()) {
      // Also how a failed flush is retried: flushDue waits out the delivery's retry delay.
      if (t.delivery().flushDue(now)) {
        flush(t.delivery());
      }
    }
    for (TopicPartition tp : pauses.due(Pauses.Reason.DECODE_RETRY, now)) {
      pauses.remove(tp, Pauses.Reason.DECODE_RETRY);
    }
    retryPositions(now);
    checkReleases(now);
    for (Table t : tables.values()) {
      try {
        t.delivery().maintain();
      } catch (TableFailureException e) {
        failTable(t.delivery(), e);
      } catch (RuntimeException e) {
        log.warn("Maintenance of {} failed, retried on the next put: {}", t.delivery().tableName(), e.toString());
      }
    }
    pauses.apply(context);
    publishStatus();
  }

  private void handle(SinkRecord r) {
    // The record's own topic, partition and offset, as Connect assigned and commits them, even
    // when a transformation renamed the topic.
    String topic = r.originalTopic();
    TopicPartition tp = new TopicPartition(topic, r.originalKafkaPartition());
    long offset = r.originalKafkaOffset();
    Table t = table(topic);
    TableDelivery delivery = t.delivery();
    Long expected = next.get(tp);
    if (!delivery.state().delivering() || pauses.blocksRecords(tp) || (expected != null && offset < expected)) {
      // Paused, quarantined, or already in the table: it is read again (or was written) from
      // the position the table stores.
      return;
    }
    next.put(tp, offset + 1);
    SourcePosition at = new SourcePosition(topic, tp.partition(), offset);
    ChangeEvent event;
    try {
      event = ConnectValues.isConnectData(r)
          ? t.connectData().decode(at, connectValues.key(r), connectValues.value(r))
          : t.decoder().decode(at, bytes(r.key()), bytes(r.value()));
    } catch (RetryableException e) {
      log.warn("Cannot decode {} yet, retrying in {}: {}", at, DECODE_RETRY, e.getMessage());
      readAgainLater(tp, offset, DECODE_RETRY);
      return;
    } catch (ConfigurationException e) {
      raiseFault("registry:" + topic, e);
      readAgainLater(tp, offset, FAULT_RECHECK);
      return;
    } catch (DecodeException e) {
      failTable(delivery, Errors.undecodable(delivery.tableName(), at, e.getMessage(), e));
      return;
    } catch (RuntimeException e) {
      log.error("Decoder bug at {}", at, e);
      failTable(delivery, Errors.decoderBug(delivery.tableName(), at, e));
      return;
    }
    clearFault("registry:" + topic);
    try {
      if (event == null) {
        delivery.skip(at);
      } else {
        delivery.accept(event);
      }
    } catch (TableFailureException e) {
      failTable(delivery, e);
    }
  }

  /** The record's key or value as lakesink decodes it: bytes or text, as the converters left them. */
  private static byte[] bytes(Object value) {
    return value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) value;
  }

  private void readAgainLater(TopicPartition tp, long offset, Duration after) {
    context.offset(tp, offset);
    next.put(tp, offset);
    pauses.addUntil(tp, Pauses.Reason.DECODE_RETRY, clock.millis() + after.toMillis());
  }

  /** Flushes one table and records what it committed; false when it must be retried. */
  private boolean flush(TableDelivery d) {
    Map<SourcePartition, Long> stored;
    try {
      stored = d.flush(clock.millis() + FLUSH_BUDGET.toMillis());
    } catch (TableFailureException e) {
      pauses.add(assigned(d), Pauses.Reason.QUARANTINED);
      return true;
    } catch (RetryableException e) {
      // Keep the buffer and stop reading this table until a flush gets through.
      log.warn("{}; reading of {} paused meanwhile", e.getMessage(), d.subscription().topic());
      pauses.add(assigned(d), Pauses.Reason.FLUSH_FAILING);
      return false;
    } catch (ConfigurationException e) {
      raiseFault("storage:" + d.tableName(), e);
      pauses.add(assigned(d), Pauses.Reason.FLUSH_FAILING);
      return false;
    }
    clearFault("storage:" + d.tableName());
    pauses.remove(assigned(d), Pauses.Reason.FLUSH_FAILING);
    stored.forEach((p, offset) -> committed.put(new TopicPartition(p.topic(), p.partition()), offset));
    return true;
  }

  /** Only offsets a Delta commit covers: Connect must never commit past what the tables hold. */
  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
    for (TopicPartition tp : currentOffsets.keySet()) {
      Long offset = committed.get(tp);
      if (offset != null) {
        safe.put(tp, new OffsetAndMetadata(offset));
      }
    }
    return safe;
  }

  /**
   * Partitions revoked (or lost): commit what is buffered for their tables while they may still
   * be ours, then drop it whether the flush went through or not; the next owner reads from the
   * Delta log, and the log's per-partition fence refuses a commit from an owner that was replaced.
   */
  @Override
  public void close(Collection<TopicPartition> partitions) {
    byTable(partitions).forEach((t, tps) -> {
      flush(t.delivery());
      t.delivery().discard(sources(tps));
    });
    pauses.forget(partitions);
    partitions.forEach(tp -> {
      next.remove(tp);
      committed.remove(tp);
    });
    publishStatus();
  }

  @Override
  public void stop() {
    stopped = true;
    RunningTasks.remove(this);
    if (settings == null) {
      return;
    }
    for (Table t : tables.values()) {
      try {
        t.delivery().settle(SETTLE);
      } catch (RuntimeException e) {
        log.warn("Background work of {} did not finish: {}", t.delivery().tableName(), e.toString());
      }
    }
    try {
      storage.close();
    } catch (Exception e) {
      log.warn("Closing storage failed: {}", e.toString());
    }
  }

  private void retryPositions(long now) {
    Map<TableDelivery, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : pauses.due(Pauses.Reason.NO_POSITION, now)) {
      byTable.computeIfAbsent(table(tp.topic()).delivery(), x -> new ArrayList<>()).add(tp);
    }
    byTable.forEach(this::position);
  }

  /** Quarantined tables an operator released resume from the offsets their table stores. */
  private void checkReleases(long now) {
    if (now < nextReleaseCheck) {
      return;
    }
    nextReleaseCheck = now + RELEASE_CHECK.toMillis();
    for (Table t : tables.values()) {
      TableDelivery d = t.delivery();
      if (d.state().delivering()) {
        continue;
      }
      try {
        if (d.releaseIfAllowed()) {
          List<TopicPartition> theirs = assigned(d);
          pauses.remove(theirs, Pauses.Reason.QUARANTINED);
          position(d, theirs);
        }
      } catch (RuntimeException e) {
        log.warn("Could not check the quarantine of {}: {}", d.tableName(), e.toString());
      }
    }
  }

  private void failTable(TableDelivery d, TableFailureException e) {
    try {
      d.fail(e);
    } catch (RuntimeException saveFailed) {
      log.error("Could not record the quarantine of {}: {}", d.tableName(), saveFailed.toString());
    }
    pauses.add(assigned(d), Pauses.Reason.QUARANTINED);
  }

  private void raiseFault(String source, ConfigurationException e) {
    if (faults.put(source, e.getMessage()) == null) {
      log.error("{} — lakesink keeps its buffers and checks again every {} s", e.getMessage(), FAULT_RECHECK.toSeconds());
    }
  }

  private void clearFault(String source) {
    if (!faults.isEmpty() && faults.remove(source) != null) {
      log.info("The fault on {} cleared; delivery goes on", source);
    }
  }

  private long bufferedHeapBytes() {
    long total = 0;
    for (Table t : tables.values()) {
      total += t.delivery().bufferedHeapBytes();
    }
    return total;
  }

  private List<TopicPartition> assigned(TableDelivery d) {
    List<TopicPartition> theirs = new ArrayList<>();
    for (TopicPartition tp : context.assignment()) {
      if (tp.topic().equals(d.subscription().topic())) {
        theirs.add(tp);
      }
    }
    return theirs;
  }

  private Map<Table, List<TopicPartition>> byTable(Collection<TopicPartition> partitions) {
    Map<Table, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      byTable.computeIfAbsent(table(tp.topic()), x -> new ArrayList<>()).add(tp);
    }
    return byTable;
  }

  private static List<SourcePartition> sources(Collection<TopicPartition> tps) {
    return tps.stream().map(tp -> new SourcePartition(tp.topic(), tp.partition())).toList();
  }

  /** Unused by Connect (it calls preCommit); flushing happens by policy in put(). */
  @Override
  public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {}
}
