package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.FlushHook;
import io.lakesink.storage.TableStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@code lakesink demo}: a local Kafka broker, a sample Debezium stream, and the real worker
 * delivering it into Delta tables in a local directory, then the current state as the view
 * computes it.
 */
final class Demo {
  static final String MARKER = ".lakesink-demo";

  private Demo() {}

  static int run(String dataDir) {
    Path data = Path.of(dataDir).toAbsolutePath();
    prepare(data);
    System.out.println("Starting a local Kafka broker (KRaft, in this JVM)...");
    try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
      broker.createTopic(DemoChangeStream.TOPIC, DemoChangeStream.PARTITIONS);
      int records = DemoChangeStream.produce(broker.bootstrapServers());
      System.out.println("Produced " + records + " Debezium change records to " + DemoChangeStream.TOPIC);

      Path configFile = data.resolve("lakesink.yaml");
      write(configFile, config(broker.bootstrapServers(), data));
      WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
      int exit = Commands.run(config, true, FlushHook.NONE);
      if (exit != Main.OK) {
        return exit;
      }
      Subscription orders = config.subscriptions().get(0);
      try (TableStorage storage = Pipeline.storage(config.storage())) {
        System.out.println();
        System.out.print(Commands.currentState(storage, orders));
        System.out.println();
        System.out.println("Current-state view (run it in Databricks, or read the changelog directly):");
        System.out.println(Pipeline.viewSql(config, orders));
        System.out.println();
        System.out.println("Changelog table: " + storage.tableLocation(orders.targetTable()));
        System.out.println("Configuration:   " + configFile);
        System.out.println("Show it again:   bin/lakesink show --config " + configFile + " --table orders");
      }
      return Main.OK;
    }
  }

  static String config(String bootstrap, Path data) {
    return """
        kafka:
          bootstrap_servers: %s
          group_id: lakesink-demo
        storage:
          type: local
          path: %s
        delivery:
          flush_interval: 2s
        status:
          host: 127.0.0.1
          port: 0
        subscriptions:
          - topic: %s
            table: orders
            primary_key: [id]
        """.formatted(bootstrap, data, DemoChangeStream.TOPIC);
  }

  /** The demo owns its directory: it starts empty each time, and only ever deletes its own. */
  private static void prepare(Path data) {
    try {
      if (Files.exists(data)) {
        if (!Files.exists(data.resolve(MARKER))) {
          throw new io.lakesink.error.ConfigurationException(
              data + " exists and was not created by the demo; choose another --data directory.");
        }
        try (Stream<Path> all = Files.walk(data)) {
          all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
      Files.createDirectories(data);
      Files.createFile(data.resolve(MARKER));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
