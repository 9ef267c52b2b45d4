package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.kafka.avro.AvroRecords;
import io.lakesink.kafka.avro.TestSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakesink init} against a real broker holding what a Debezium connector writes: table
 * topics in JSON, JSON with schemas and Avro, a keyless one, an empty one, a table named
 * {@code transaction}, and the connector's heartbeat, transaction and schema-change topics.
 */
@Timeout(120)
class InitCommandTest {
  @TempDir Path dir;

  static TestSchemaRegistry registry;
  /** The connector's topic prefix, unique to this run: the shared broker holds other tests' topics. */
  static String prefix;
  static Pattern ours;

  static final Schema ITEM = new Schema.Parser().parse("""
      {"type":"record","name":"Value","namespace":"shop.public.items","fields":[{"name":"id","type":"long"}]}""");
  static final Schema ITEM_KEY = new Schema.Parser().parse("""
      {"type":"record","name":"Key","namespace":"shop.public.items","fields":[{"name":"id","type":"long"}]}""");

  @BeforeAll
  static void connectorTopics() throws Exception {
    registry = TestSchemaRegistry.start();
    prefix = SharedKafka.uniqueName("shop");
    ours = Pattern.compile("(" + Pattern.quote(DebeziumTopics.HEARTBEAT + ".") + ")?" + Pattern.quote(prefix) + "(\\..*)?");
    for (String t : List.of("public.orders", "public.customers", "public.items", "public.audit", "public.events",
        "public.transaction", "transaction")) {
      SharedKafka.broker().createTopic(prefix + "." + t, t.equals("public.orders") ? 2 : 1);
    }
    SharedKafka.broker().createTopic(prefix, 1);
    SharedKafka.broker().createTopic(DebeziumTopics.HEARTBEAT + "." + prefix, 1);
    try (KafkaProducer<byte[], byte[]> p = SharedKafka.producer()) {
      String orders = prefix + ".public.orders";
      SharedKafka.send(p, orders, 0, "{\"id\":3}", null); // tombstones first in both partitions: their value tells nothing
      SharedKafka.send(p, orders, 0, "{\"id\":3}", ChangelogEndToEndTest.envelope("c", 3, "pen", 1000));
      SharedKafka.send(p, orders, 1, "{\"id\":5}", null);
      SharedKafka.send(p, orders, 1, "{\"id\":4}", ChangelogEndToEndTest.envelope("c", 4, "ink", 1000));
      SharedKafka.send(p, prefix + ".public.customers", 0,
          withSchema("{\"tenant\":\"a\",\"id\":7}"), withSchema(ChangelogEndToEndTest.envelope("r", 7, "ann", 1000)));
      SharedKafka.send(p, prefix + ".public.events", 0, null, ChangelogEndToEndTest.envelope("c", 1, "login", 1000));
      SharedKafka.send(p, prefix + ".public.transaction", 0, "{\"id\":1}", ChangelogEndToEndTest.envelope("c", 1, "t", 1000));
      SharedKafka.send(p, prefix + ".transaction", 0, "{\"id\":\"571:53195829\"}",
          "{\"status\":\"BEGIN\",\"id\":\"571:53195829\",\"ts_ms\":1486500577125,\"event_count\":null,\"data_collections\":null}");
      SharedKafka.send(p, prefix, 0, "{\"databaseName\":\"shop\"}",
          "{\"source\":{\"server\":\"shop\"},\"databaseName\":\"shop\",\"ddl\":\"CREATE TABLE audit (id INT)\",\"tableChanges\":[]}");
      SharedKafka.send(p, DebeziumTopics.HEARTBEAT + "." + prefix, 0, "{\"serverName\":\"shop\"}", "{\"ts_ms\":1700000000000}");
      Schema envelope = AvroRecords.envelope(ITEM, false);
      int valueId = registry.register(prefix + ".public.items-value", envelope);
      int keyId = registry.register(prefix + ".public.items-key", ITEM_KEY);
      GenericData.Record row = new GenericData.Record(ITEM);
      row.put("id", 9L);
      GenericData.Record e = new GenericData.Record(envelope);
      e.put("after", row);
      e.put("source", AvroRecords.source(envelope, 1000L));
      e.put("op", "c");
      GenericData.Record key = new GenericData.Record(ITEM_KEY);
      key.put("id", 9L);
      p.send(new ProducerRecord<>(prefix + ".public.items", 0, AvroRecords.wire(keyId, ITEM_KEY, key),
          AvroRecords.wire(valueId, envelope, e))).get();
      p.flush();
    }
  }

  @AfterAll
  static void stopRegistry() {
    registry.close();
  }

  /** The JSON converter with schemas.enable=true; init reads the payload's field names only. */
  static String withSchema(String payload) {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":false,\"name\":\"shop.Envelope\"},\"payload\":" + payload + "}";
  }

  @Test
  void oneSubscriptionPerTableTopicWithItsKeyAndFormatThatTheLoaderAccepts() throws Exception {
    Path file = dir.resolve("lakesink.yaml");
    CommandLineTest.Output run = CommandLineTest.run("init", "--bootstrap-servers", SharedKafka.bootstrap(),
        "--schema-registry-url", registry.url(), "--include", ours.pattern(), "--output", file.toString());
    assertEquals(Main.OK, run.exit(), run.err());
    assertTrue(run.err().contains("Wrote " + file + ": 6 subscriptions (1 without a record"), run.err());
    String yaml = Files.readString(file);

    Map<String, Subscription> subs = subscriptions(withStorage(yaml), n -> null);
    assertEquals(List.of("audit", "customers", "events", "items", "orders", "transaction"),
        subs.keySet().stream().map(t -> t.substring(t.lastIndexOf('.') + 1)).sorted().toList(),
        "Debezium's heartbeat, transaction and schema-change topics are no subscriptions; a table named transaction is");
    Subscription orders = subs.get(prefix + ".public.orders");
    assertEquals(prefix.replace('-', '_') + "_public_orders", orders.table(), "the topic's name, sanitized");
    assertEquals(DeliveryMode.CHANGELOG, orders.mode());
    assertEquals(SourceFormat.JSON, orders.format());
    assertEquals(List.of("id"), orders.primaryKey());
    Subscription customers = subs.get(prefix + ".public.customers");
    assertEquals(List.of("tenant", "id"), customers.primaryKey(), "the payload's fields of a key with a schema");
    assertEquals(SourceFormat.JSON, customers.format());
    Subscription items = subs.get(prefix + ".public.items");
    assertEquals(SourceFormat.AVRO, items.format());
    assertEquals(List.of("id"), items.primaryKey(), "the Avro key's fields, from the registry");
    Subscription audit = subs.get(prefix + ".public.audit");
    assertEquals(SourceFormat.AUTO, audit.format());
    assertEquals(List.of(), audit.primaryKey());
    assertEquals(List.of(), subs.get(prefix + ".public.events").primaryKey());

    assertTrue(yaml.contains("# " + prefix + ".public.audit: no record yet, so its key and format could not be seen"), yaml);
    assertTrue(yaml.contains("# " + prefix + ".public.customers: JSON with schemas"), yaml);
    assertTrue(yaml.contains("# " + prefix + ".public.orders: JSON without schemas"), yaml);
    assertTrue(yaml.contains("# " + prefix + ".public.events: JSON without schemas (every column a string; the converter's"
        + " schemas.enable=true types them)\n"), yaml);
    assertTrue(yaml.contains("# records have no key (a table without a primary key): merge needs primary_key"), yaml);
    assertTrue(yaml.contains("#   " + DebeziumTopics.HEARTBEAT + "." + prefix + ": heartbeat"), yaml);
    assertTrue(yaml.contains("#   " + prefix + ".transaction: transaction metadata"), yaml);
    assertTrue(yaml.contains("#   " + prefix + ": schema changes"), yaml);
    assertTrue(yaml.contains("url: " + '"' + registry.url() + '"'), yaml);
    assertTrue(yaml.contains("or merge: one row per primary key"), yaml);

    CommandLineTest.Output again = CommandLineTest.run("init", "--bootstrap-servers", SharedKafka.bootstrap(),
        "--include", Pattern.quote(prefix + ".public.orders"), "--output", file.toString());
    assertEquals(ExitCode.USAGE.code, again.exit());
    assertTrue(again.err().contains(file + " exists and lakesink init does not overwrite it: choose another --output,"
        + " or add --force"), again.err());
    assertEquals(yaml, Files.readString(file));
    CommandLineTest.Output forced = CommandLineTest.run("init", "--bootstrap-servers", SharedKafka.bootstrap(),
        "--include", Pattern.quote(prefix + ".public.orders"), "--output", file.toString(), "--force");
    assertEquals(Main.OK, forced.exit(), forced.err());
    assertEquals(List.of(prefix + ".public.orders"), List.copyOf(subscriptions(withStorage(Files.readString(file)), n -> null).keySet()));
  }

  @Test
  void kafkaSettingsOfAnExistingFileWithoutItsSecretsAndExcludedTopicsLeftOut() throws Exception {
    Path existing = dir.resolve("old.yaml");
    String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter22\";";
    Files.writeString(existing, """
        kafka:
          bootstrap_servers: ${env:BROKERS}
          group_id: shop-sink
          properties:
            security.protocol: PLAINTEXT
            sasl.jaas.config: '%s'
        """.formatted(jaas));
    ConfigLoader env = new ConfigLoader(Map.of("BROKERS", SharedKafka.bootstrap()));
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    Path file = dir.resolve("out/lakesink.yaml");
    int exit = InitCommand.run(new InitCommand.Request(null, existing, null, List.of(ours),
        List.of(Pattern.compile(".*\\.(orders|customers|audit)")), file, false, Duration.ofSeconds(10)), env,
        new PrintStream(report, true, StandardCharsets.UTF_8));
    assertEquals(Main.OK, exit, report.toString(StandardCharsets.UTF_8));
    assertTrue(report.toString(StandardCharsets.UTF_8).contains("by --include/--exclude. Fill in storage"), report.toString(StandardCharsets.UTF_8));
    String yaml = Files.readString(file);
    assertFalse(yaml.contains("hunter22"), "no secret is written: " + yaml);
    assertTrue(yaml.contains("bootstrap_servers: \"${env:BROKERS}\""), yaml);
    assertTrue(yaml.contains("\"sasl.jaas.config\": \"${env:KAFKA_SASL_JAAS_CONFIG}\"   # a secret, not copied"), yaml);
    assertTrue(yaml.contains("url: \"${env:SCHEMA_REGISTRY_URL}\""), "Avro topics need a registry: " + yaml);

    Map<String, String> variables = Map.of("BROKERS", "b:9092", "KAFKA_SASL_JAAS_CONFIG", jaas, "SCHEMA_REGISTRY_URL", "http://127.0.0.1:8081");
    WorkerConfig config = new ConfigLoader(variables).parse(withStorage(yaml), "generated");
    assertEquals("shop-sink", config.kafka().groupId());
    assertEquals(jaas, config.kafka().properties().get("sasl.jaas.config"));
    Map<String, Subscription> subs = config.subscriptions().stream().collect(Collectors.toMap(Subscription::topic, s -> s));
    assertEquals(3, subs.size(), subs.keySet().toString());
    Subscription items = subs.get(prefix + ".public.items");
    assertEquals(SourceFormat.AVRO, items.format());
    assertEquals(List.of(), items.primaryKey(), "without a registry the Avro key's fields are unknown");
    assertTrue(yaml.matches("(?s).*\n    # primary_key: \\[\\.\\.\\.] +# the key is Avro: init needs --schema-registry-url to see its fields.*"), yaml);
  }

  @Test
  void anUnreachableBrokerAndNoTableTopicAreNamedWithWhatToChange() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    CommandLineTest.Output refused = CommandLineTest.run("init", "--bootstrap-servers", "127.0.0.1:" + port);
    assertEquals(ExitCode.CHECK_FAILED.code, refused.exit());
    assertTrue(refused.err().contains("lakesink init could not read the topics. No broker of kafka.bootstrap_servers (127.0.0.1:"
        + port + ") can be reached: 127.0.0.1:" + port + ": connection refused"), refused.err());
    assertTrue(refused.err().contains("For init, kafka.bootstrap_servers is --bootstrap-servers"), refused.err());
    assertEquals("", refused.out());

    CommandLineTest.Output none = CommandLineTest.run("init", "--bootstrap-servers", SharedKafka.bootstrap(),
        "--include", Pattern.quote(prefix) + "(\\.transaction)?", "--exclude", "nothing");
    assertEquals(ExitCode.CHECK_FAILED.code, none.exit());
    assertTrue(none.err().contains("No Debezium table topic found at " + SharedKafka.bootstrap()), none.err());
    assertTrue(none.err().contains("and 2 are not a table's change events (" + prefix + ": schema changes, "
        + prefix + ".transaction: transaction metadata)"), none.err());
    assertTrue(none.err().contains("Check that --bootstrap-servers names the cluster"), none.err());

    CommandLineTest.Output noBroker = CommandLineTest.run("init");
    assertEquals(ExitCode.CONFIGURATION.code, noBroker.exit());
    assertTrue(noBroker.err().contains("lakesink init needs the broker: give --bootstrap-servers host:port"), noBroker.err());

    CommandLineTest.Output badPattern = CommandLineTest.run("init", "--bootstrap-servers", SharedKafka.bootstrap(), "--include", "(");
    assertEquals(ExitCode.USAGE.code, badPattern.exit());
    assertTrue(badPattern.err().contains("--include ( is not a Java regular expression"), badPattern.err());
  }

  @Test
  void namesAloneSkipTheClustersAndTheConnectorsOwnTopics() {
    List<String> topics = List.of("__consumer_offsets", "_schemas", "my_connect_configs", "connect-offsets",
        "__debezium-heartbeat.dbserver1", "dbserver1", "dbserver1.transaction", "dbserver1.public.orders",
        "dbserver1.public.transaction", "my.server.transaction", "my.server.inv.items", "sql.transaction", "sql.db.dbo.t");
    DebeziumTopics.Selection s = DebeziumTopics.select(topics, List.of(), List.of(Pattern.compile(".*items")));
    assertEquals(List.of("dbserver1", "dbserver1.public.orders", "dbserver1.public.transaction", "sql.db.dbo.t"), s.candidates());
    assertEquals(java.util.Set.of("dbserver1"), s.prefixNamed(), "the schema-change topic, unless a record shows a table's events");
    assertEquals(Map.of("__consumer_offsets", "internal", "_schemas", "internal", "my_connect_configs", "Kafka Connect's own",
        "connect-offsets", "Kafka Connect's own", "__debezium-heartbeat.dbserver1", "heartbeat",
        "dbserver1.transaction", "transaction metadata", "my.server.transaction", "transaction metadata",
        "sql.transaction", "transaction metadata"), s.skipped());
    assertEquals(1, s.outsidePatterns(), "my.server.inv.items is excluded, yet still shows that my.server is a prefix");
  }

  /** What a user does first: say where the tables go. */
  private String withStorage(String yaml) {
    String line = "  # path: /var/lib/lakesink ";
    assertTrue(yaml.contains(line), yaml);
    return yaml.replace(line, "  path: \"" + dir.resolve("tables") + "\" #");
  }

  private static Map<String, Subscription> subscriptions(String yaml, Function<String, String> env) {
    return new ConfigLoader(env).parse(yaml, "generated").subscriptions().stream()
        .collect(Collectors.toMap(Subscription::topic, s -> s));
  }
}
