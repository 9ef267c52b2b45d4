package io.lakesink.kafka;

import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.delivery.ServiceWait;
import io.lakesink.delivery.TableStatus;
import io.lakesink.error.Errors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outside services the worker waits on while they do not answer, and what waits on each:
 * Kafka (every table: nothing new can be read), the schema registry (the partitions whose next
 * record needs a schema it cannot give), and storage (the tables whose commits fail; each table's
 * delivery knows that, this class only lists it). An outage opens on the first failure that
 * counts and closes by itself when the service answers again. Poll thread only; the status
 * snapshot reads it through {@link #overlay} and {@link #list}.
 */
final class ServiceOutages {
  static final String KAFKA = "kafka";
  static final String SCHEMA_REGISTRY = "schema_registry";
  static final String STORAGE = BufferedDelivery.STORAGE;
  private static final Logger log = LoggerFactory.getLogger(ServiceOutages.class);

  private final Clock clock;
  private ServiceWait kafka;
  private ServiceWait registry;
  /** Partitions whose next record waits on the registry, with their table. */
  private final Map<TopicPartition, String> waitingOnRegistry = new LinkedHashMap<>();

  ServiceOutages(Clock clock) {
    this.clock = clock;
  }

  void kafkaDown(String problem, Instant since) {
    if (kafka == null) {
      log.warn("{}: reading waits for it; rows already read are still committed, group offsets once it answers", problem);
      kafka = new ServiceWait(problem, since);
    } else {
      kafka = kafka.again(problem);
    }
  }

  /** Kafka answered; whether that ended an outage. */
  boolean kafkaAnswered() {
    if (kafka == null) {
      return false;
    }
    log.info("Kafka answers again, after {} s without an answer", secondsSince(kafka));
    kafka = null;
    return true;
  }

  boolean kafkaDown() {
    return kafka != null;
  }

  void registryFailed(TopicPartition tp, String table, String problem) {
    if (registry == null) {
      log.warn("The schema registry does not answer ({}); {} waits for it", problem, table);
      registry = new ServiceWait(problem, clock.instant());
    } else {
      registry = registry.again(problem);
    }
    waitingOnRegistry.put(tp, table);
  }

  /** The registry answered for this partition's record (with a schema, or with a final refusal). */
  void registryAnswered(TopicPartition tp) {
    if (registry != null && waitingOnRegistry.remove(tp) != null && waitingOnRegistry.isEmpty()) {
      log.info("The schema registry answers again, after {} s without an answer", secondsSince(registry));
      registry = null;
    }
  }

  /** Partitions this worker no longer owns wait on nothing here. */
  void forget(Collection<TopicPartition> tps) {
    tps.forEach(waitingOnRegistry::remove);
    if (waitingOnRegistry.isEmpty()) {
      registry = null;
    }
  }

  /** A table's status with the Kafka and registry outages it waits on (storage is the delivery's own). */
  TableStatus overlay(TableStatus status) {
    if (registry != null && waitingOnRegistry.containsValue(status.table())) {
      status = status.waitingOn(SCHEMA_REGISTRY,
          Errors.waitingOnSchemaRegistry(registry.problem(), KafkaWorker.DECODE_RETRY), registry.since());
    }
    if (kafka != null) {
      status = status.waitingOn(KAFKA, Errors.waitingOnKafka(kafka.problem()), kafka.since());
    }
    return status;
  }

  /**
   * The outages for {@code /status}, in a fixed order (Kafka, registry, storage).
   *
   * @param tables each table's status, already {@linkplain #overlay overlaid}
   * @param assigned each table's assigned partitions
   * @param storage the storage wait of each table whose commits fail
   */
  List<WorkerStatus.Outage> list(
      List<TableStatus> tables, Map<String, List<TopicPartition>> assigned, Map<String, ServiceWait> storage) {
    List<WorkerStatus.Outage> outages = new ArrayList<>();
    if (kafka != null) {
      outages.add(outage(KAFKA, kafka, waiting(tables, assigned, KAFKA)));
    }
    if (registry != null) {
      TreeSet<String> partitions = new TreeSet<>();
      waitingOnRegistry.keySet().forEach(tp -> partitions.add(tp.toString()));
      outages.add(new WorkerStatus.Outage(SCHEMA_REGISTRY, registry.since(), registry.problem(),
          List.copyOf(new TreeSet<>(waitingOnRegistry.values())), List.copyOf(partitions)));
    }
    Optional<ServiceWait> first = storage.values().stream().min((a, b) -> a.since().compareTo(b.since()));
    first.ifPresent(wait -> outages.add(outage(STORAGE, wait, waiting(tables, assigned, STORAGE))));
    return List.copyOf(outages);
  }

  private static WorkerStatus.Outage outage(String service, ServiceWait wait, Map<String, List<TopicPartition>> waiting) {
    TreeSet<String> partitions = new TreeSet<>();
    waiting.values().forEach(tps -> tps.forEach(tp -> partitions.add(tp.toString())));
    return new WorkerStatus.Outage(
        service, wait.since(), wait.problem(), List.copyOf(new TreeSet<>(waiting.keySet())), List.copyOf(partitions));
  }

  /** The tables that show {@code service} in their {@code waiting_on}, with their partitions. */
  private static Map<String, List<TopicPartition>> waiting(
      List<TableStatus> tables, Map<String, List<TopicPartition>> assigned, String service) {
    Map<String, List<TopicPartition>> waiting = new LinkedHashMap<>();
    for (TableStatus t : tables) {
      if (t.waitingOn().contains(service)) {
        waiting.put(t.table(), assigned.getOrDefault(t.table(), List.of()));
      }
    }
    return waiting;
  }

  private long secondsSince(ServiceWait wait) {
    return Duration.between(wait.since(), clock.instant()).toSeconds();
  }
}
