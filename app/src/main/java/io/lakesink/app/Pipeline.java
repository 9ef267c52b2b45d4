package io.lakesink.app;

import io.lakesink.app.config.WorkerConfig;
import io.lakesink.delivery.BufferedDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.catalog.TableCatalog;
import io.lakesink.catalog.LoggedCurrentState;
import io.lakesink.catalog.unity.ClientEnvironment;
import io.lakesink.catalog.unity.UnityCatalog;
import io.lakesink.catalog.unity.UnitySettings;
import io.lakesink.changelog.WriteWarmUp;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateSpec;
import io.lakesink.view.HistoryView;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.modes.Deliveries;
import io.lakesink.delivery.FlushHook;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.currentstate.CurrentStateTable;
import io.lakesink.currentstate.KeptEntryRelease;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.Errors;
import io.lakesink.error.TableFailureException;
import io.lakesink.migration.ChangelogMigration;
import io.lakesink.migration.MigratingCatalog;
import io.lakesink.migration.MigrationHook;
import io.lakesink.migration.MigrationJournal;
import io.lakesink.kafka.KafkaWorker;
import io.lakesink.kafka.TopicDiscovery;
import io.lakesink.app.config.TopicPattern;
import java.util.stream.Stream;
import io.lakesink.kafka.decode.Decoders;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.avro.SchemaRegistrySettings;
import io.lakesink.kafka.decode.RecordDecoder;
import java.util.function.Supplier;
import io.lakesink.storage.LocalStorage;
import io.lakesink.storage.TableStorage;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import io.delta.kernel.engine.Engine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires a configuration into a running worker: storage, tables, deliveries, Kafka. */
public final class Pipeline {
  private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

  /** How often pattern subscriptions look for new topics, unless kafka.properties sets metadata.max.age.ms. */
  static final Duration PATTERN_REFRESH = Duration.ofSeconds(30);

  private Pipeline() {}

  /**
   * Builds each subscription's route: its delivery (registered in its catalog, migrated if due)
   * and decoder. Used at start for the entries that name their topic, and while running for each
   * topic a pattern matches.
   */
  private record Routes(WorkerConfig config, TableStorage storage, Engine engine, DeliveryContext context, Catalogs catalogs,
      MigratingCatalog migrating, MigrationJournal journal, MigrationHook migrationHook,
      Map<SchemaRegistrySettings, SchemaRegistryClient> registries) {
    Routes(WorkerConfig config, TableStorage storage, Engine engine, DeliveryContext context, Catalogs catalogs,
        MigratingCatalog migrating, MigrationJournal journal, MigrationHook migrationHook) {
      this(config, storage, engine, context, catalogs, migrating, journal, migrationHook, new java.util.concurrent.ConcurrentHashMap<>());
    }

    KafkaWorker.Route of(Subscription s) {
      // Each subscription registers in the catalog it names (default: the catalog: block).
      BufferedDelivery delivery = Deliveries.of(s, storage, engine, context.withCatalog(catalogs.of(s)), config.merge(),
          keepsTable(config, s));
      if (migrating != null && migrates(config, s)) {
        migrate(s, storage, engine, delivery, migrating, journal, migrationHook, context.clock());
      }
      releaseKeptEntry(s);
      delivery.syncCatalog(); // a table from an earlier run is registered, or checked, at start
      logRoute(config, storage, s);
      return new KafkaWorker.Route(delivery, decoder(s, config, registries));
    }

    /**
     * A changelog subscription switched from a kept table back to a view: the kept table's own
     * entry gives the name up before the view is built (KeptEntryRelease). The catalog out of
     * reach is logged and left for the next start: the view's build then reports the name taken.
     */
    private void releaseKeptEntry(Subscription s) {
      if (s.mode() != DeliveryMode.CHANGELOG || keepsTable(config, s) || !config.catalog().currentState(TableNames.sanitize(s.table())).build()) {
        return;
      }
      TableCatalog catalog = catalogs.of(s);
      String name = TableNames.sanitize(s.table());
      OwnerIdentity identity = catalog.entryName(name).map(e -> new OwnerIdentity(catalog.catalogName(), e)).orElse(null);
      try {
        keptTable(storage, engine, s).ifPresent(kept -> KeptEntryRelease.release(name, kept, catalogs.entries(), identity));
      } catch (RuntimeException e) {
        log.warn("Cannot release the catalog entry of the current-state table lakesink kept for {} yet (tried again at the"
            + " next start): {}", name, e.toString());
      }
    }
  }

  private static void logRoute(WorkerConfig config, TableStorage storage, Subscription s) {
    if (s.mode() == DeliveryMode.MERGE) {
      log.info("Subscription {} → {} (merge: the table holds the current state)", s.topic(), storage.tableLocation(s.targetTable()));
    } else if (!config.catalog().currentState(TableNames.sanitize(s.table())).build()) {
      log.info("Subscription {} → {} (changelog; current_state.build is false: no current-state object)",
          s.topic(), storage.tableLocation(s.targetTable()));
    } else if (keepsTable(config, s)) {
      log.info("Subscription {} → {} (changelog); its current state is the Delta table {}, kept by lakesink from the"
          + " changelog (current_state.object: table)", s.topic(), storage.tableLocation(s.targetTable()),
          storage.tableLocation(TableNames.sanitize(s.table())));
    } else if (builtOnWarehouse(config, s)) {
      log.info("Subscription {} → {} (changelog); its current-state {} is built on SQL warehouse {}{}",
          s.topic(), storage.tableLocation(s.targetTable()), config.catalog().currentStateKind(TableNames.sanitize(s.table())).word(),
          config.catalog().settings().get("warehouse_id"),
          s.primaryKey().isEmpty() ? ", keyed on the record key (no primary_key configured)" : "");
    } else {
      log.info(
          "Subscription {} → {} (changelog); current-state view, to run in Databricks (no catalog.warehouse_id){}:\n{}",
          s.topic(), storage.tableLocation(s.targetTable()),
          s.primaryKey().isEmpty()
              ? " (no primary_key configured: deduplicated on the record key once lakesink saw one, which it logs then)"
              : "",
          viewSql(config, s));
    }
  }

  public static TableStorage storage(WorkerConfig.StorageSettings settings) {
    return switch (settings.type()) {
      case "local" -> new LocalStorage(Path.of(settings.path()), settings.prefix());
      case "azure" -> AzureStorage.create(AzureStorageSettings.fromConfig(settings.settings()));
      default -> throw Errors.invalid("storage.type", "is '" + settings.type() + "'", "use local or azure");
    };
  }

  /** The Delta table a subscription writes, in this storage. */
  public static DeltaTable table(TableStorage storage, Engine engine, Subscription s) {
    return new DeltaTable(engine, storage.tableLocation(s.targetTable()));
  }

  /**
   * The catalog tables are registered in. It also builds each changelog's current-state object
   * on {@code catalog.warehouse_id}; without a warehouse (or a catalog) it logs the statement
   * again whenever the changelog's columns change.
   */
  public static TableCatalog catalog(WorkerConfig config) {
    Map<String, CurrentStateSpec> specs = currentStates(config);
    return switch (config.catalog().type()) {
      case "unity" -> UnityCatalog.create(UnitySettings.fromConfig(config.catalog().settings()), ClientEnvironment.system(), specs);
      default -> specs.isEmpty() ? TableCatalog.NONE : new LoggedCurrentState(specs, config.catalog().namespace());
    };
  }

  /** What each changelog subscription asks of its current-state object, by changelog table name. */
  static Map<String, CurrentStateSpec> currentStates(WorkerConfig config) {
    Map<String, CurrentStateSpec> specs = new HashMap<>();
    for (Subscription s : config.subscriptions()) {
      if (s.mode() == DeliveryMode.CHANGELOG) {
        // A kept table's spec has kind TABLE: no view is built or logged under its name, only
        // its history view is built on a warehouse.
        CurrentStateSpec spec = currentState(config, s);
        specs.put(spec.changelog(), spec);
      }
    }
    return specs;
  }

  private static CurrentStateSpec currentState(WorkerConfig config, Subscription s) {
    String table = TableNames.sanitize(s.table());
    return new CurrentStateSpec(table, s.primaryKey(), s.includeMetadataColumns(), config.catalog().currentStateKind(table),
        config.catalog().currentState(table));
  }

  /** The current-state view of a subscription, for logs and {@code lakesink views}. */
  public static String viewSql(WorkerConfig config, Subscription s) {
    return currentState(config, s).definition(config.catalog().namespace(), List.of(), List.of()).manualStatement();
  }

  /**
   * The current-state table lakesink keeps for a changelog subscription, when one is at its path:
   * a Delta table there marked as kept from this changelog ({@link CurrentStateTable#SOURCE_PROPERTY});
   * anything else at the path (a former MERGE table, another tool's) is not it.
   */
  public static Optional<DeltaTable> keptTable(TableStorage storage, Engine engine, Subscription s) {
    if (s.mode() != DeliveryMode.CHANGELOG) {
      return Optional.empty();
    }
    String name = TableNames.sanitize(s.table());
    DeltaTable kept = new DeltaTable(engine, storage.tableLocation(name));
    return kept.exists() && TableNames.changelog(name).equals(kept.properties().get(CurrentStateTable.SOURCE_PROPERTY))
        ? Optional.of(kept) : Optional.empty();
  }

  /** Whether lakesink keeps the subscription's current state as a Delta table ({@code current_state.object: table}). */
  public static boolean keepsTable(WorkerConfig config, Subscription s) {
    String table = TableNames.sanitize(s.table());
    return s.mode() == DeliveryMode.CHANGELOG && config.catalog().currentState(table).build()
        && config.catalog().currentStateKind(table) == CurrentStateKind.TABLE;
  }

  /**
   * The history view {@code <table>_HISTORY} of a changelog subscription with a primary key, for
   * {@code lakesink views}; empty without a key (the changelog itself is then every version).
   */
  public static java.util.Optional<String> historySql(WorkerConfig config, Subscription s) {
    if (s.mode() != DeliveryMode.CHANGELOG || s.primaryKey().isEmpty()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(HistoryView.sql(config.catalog().namespace(), TableNames.sanitize(s.table()), s.primaryKey(),
        s.includeMetadataColumns()));
  }

  /** Whether the worker builds the subscription's current-state object itself (on a warehouse). */
  static boolean builtOnWarehouse(WorkerConfig config, Subscription s) {
    return config.catalog().type().equals("unity") && config.catalog().settings().get("warehouse_id") != null
        && config.catalog().currentState(TableNames.sanitize(s.table())).build();
  }

  /**
   * Whether a subscription's former MERGE table is migrated into its changelog: a changelog
   * subscription of the default catalog whose view is built on that catalog's warehouse.
   */
  private static boolean migrates(WorkerConfig config, Subscription s) {
    // A kept table takes the MERGE table's path and name: it refuses the old table instead (docs/current-state-table.md).
    return s.mode() == DeliveryMode.CHANGELOG && builtOnWarehouse(config, s) && !keepsTable(config, s)
        && config.catalogName(s).equals(WorkerConfig.DEFAULT_CATALOG);
  }

  /**
   * The MERGE → changelog migration of a changelog subscription built on a warehouse that finds
   * its former MERGE table: the copy runs here, before the worker delivers anything, so nothing
   * newer reaches the changelog first; the rename and the view follow on the catalog thread. A
   * merged value the changelog cannot hold stops the subscription (quarantine, offsets frozen).
   */
  private static void migrate(Subscription s, TableStorage storage, Engine engine, BufferedDelivery delivery,
      MigratingCatalog migrating, MigrationJournal journal, MigrationHook hook, Clock clock) {
    if (!delivery.state().delivering()) {
      return; // stopped by an earlier copy (or anything else): nothing moves until that is resolved
    }
    String name = TableNames.sanitize(s.table());
    ChangelogMigration migration = new ChangelogMigration(name, new DeltaTable(engine, storage.tableLocation(name)),
        new DeltaTable(engine, storage.tableLocation(TableNames.changelog(name))), journal, hook, clock);
    if (!migration.pending()) {
      return;
    }
    log.info("Subscription {}: migrating its MERGE table {} to the changelog (step reached: {})", s.topic(), name,
        migration.step().map(Enum::name).orElse("none"));
    try {
      migration.copy();
      migrating.add(migration);
    } catch (TableFailureException e) {
      delivery.fail(e);
    } catch (RuntimeException e) {
      // Storage trouble must not stop the worker: the subscription is delivered (a later change
      // ranks above a copied row whenever the copy lands), the MERGE table keeps the name and
      // is reported, and the next start copies.
      log.error("Subscription {}: the rows of MERGE table {} could not be copied into the changelog now ({}); it stays"
          + " under its name, the changelog is written, and the copy is tried again at the next start", s.topic(), name,
          e.getMessage());
    }
  }

  /**
   * The size limit is an estimate of what a merge holds; it does not know the JVM's heap. A
   * limit above half the heap lets through a merge that can run out of memory instead of being
   * refused, so say so at start.
   */
  private static void warnIfMergeLimitExceedsHeap(WorkerConfig config) {
    boolean merges = Stream.concat(config.subscriptions().stream(), config.patterns().stream().map(TopicPattern::template))
        .anyMatch(s -> s.mode() == DeliveryMode.MERGE);
    long heap = Runtime.getRuntime().maxMemory();
    if (merges && config.merge().scanLimitBytes() > heap / 2) {
      log.warn("The MERGE size limit ({} MiB) is more than half this worker's heap ({} MiB): a merge near the limit"
          + " may run out of memory. Raise the heap (LAKESINK_JAVA_OPTS=-Xmx…) or lower DELTA_MERGE_SCAN_LIMIT_MB.",
          config.merge().scanLimitBytes() >> 20, heap >> 20);
    }
  }

  /** One decoder per subscription; one registry client (and schema cache) for all of them. */
  private static Supplier<RecordDecoder> decoder(
      Subscription s, WorkerConfig config, Map<SchemaRegistrySettings, SchemaRegistryClient> registries) {
    return Decoders.of(s, config.schemaRegistry(), registries);
  }

  public static KafkaWorker worker(WorkerConfig config, TableStorage storage, FlushHook hook, Clock clock) {
    return worker(config, storage,
        DeliveryContext.of(config.delivery(), new QuarantineStore(storage)).withHook(hook).withClock(clock)
            .withCatalog(catalog(config)));
  }

  public static KafkaWorker worker(WorkerConfig config, TableStorage storage, DeliveryContext context) {
    return worker(config, storage, context, MigrationHook.NONE);
  }

  /** @param migrationHook where tests stop a MERGE → changelog migration between a step and its record */
  static KafkaWorker worker(WorkerConfig config, TableStorage storage, DeliveryContext context, MigrationHook migrationHook) {
    // While the consumer joins its group: the first real flush then runs on a warm write path.
    context.writers().runBeside(WriteWarmUp::once);
    Engine engine = KernelEngine.create(storage);
    MigratingCatalog migrating = null;
    if (Stream.concat(config.subscriptions().stream(), config.patterns().stream().map(TopicPattern::template))
        .anyMatch(s -> migrates(config, s))) {
      migrating = new MigratingCatalog(context.catalog());
      context = context.withCatalog(migrating);
    }
    Routes routes = new Routes(config, storage, engine, context, new Catalogs(config, context.catalog(), storage), migrating,
        new MigrationJournal(storage), migrationHook);
    List<KafkaWorker.Route> named = config.subscriptions().stream().map(routes::of).toList();
    warnIfMergeLimitExceedsHeap(config);
    Map<String, Object> props = new HashMap<>(config.kafka().properties());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.kafka().groupId());
    if (config.kafka().instanceId() != null) {
      props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.kafka().instanceId()); // static membership
    }
    TopicDiscovery discovery = TopicDiscovery.NONE;
    if (!config.patterns().isEmpty()) {
      // Kafka's default (5 minutes) would find a new topic that late; the worker lists topics as often.
      props.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, String.valueOf(PATTERN_REFRESH.toMillis()));
      discovery = new TopicPatterns(config, routes::of,
          Duration.ofMillis(Long.parseLong(String.valueOf(props.get(ConsumerConfig.METADATA_MAX_AGE_CONFIG)).trim())));
    }
    return new KafkaWorker(props, named, discovery, context.hook(), context.clock(), Duration.ofSeconds(60),
        config.maxBufferBytes(), context.writers().progress());
  }
}
