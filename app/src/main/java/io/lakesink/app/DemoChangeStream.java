package io.lakesink.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A sample Debezium change stream for an {@code orders} table, as the JSON converter writes it
 * with {@code schemas.enable=true}: a snapshot, inserts, updates, deletes with tombstones, and
 * two updates of one key with the same source timestamp.
 */
public final class DemoChangeStream {
  public static final String TOPIC = "demo.public.orders";
  public static final int PARTITIONS = 2;
  static final long T0 = 1_760_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One row image of the demo table. */
  public record Order(long id, String customer, String status, String amount, LocalDate orderDate, long updatedAtMicros) {}

  /** A change: op, row (null for a tombstone), source timestamp. */
  public record Change(String op, long id, Order before, Order after, long tsMs) {}

  public static List<Change> changes() {
    LocalDate day = LocalDate.of(2026, 11, 2);
    List<Change> c = new ArrayList<>();
    String[] customers = {"ada", "grace", "linus", "barbara", "ken"};
    for (int i = 1; i <= 5; i++) {
      c.add(new Change("r", i, null, new Order(i, customers[i - 1], "pending", (10 * i) + ".50", day, T0 * 1000), T0));
    }
    c.add(new Change("c", 6, null, new Order(6, "margaret", "pending", "60.00", day.plusDays(1), (T0 + 10_000) * 1000), T0 + 10_000));
    c.add(new Change("u", 1, null, new Order(1, "ada", "paid", "10.50", day, (T0 + 20_000) * 1000), T0 + 20_000));
    c.add(new Change("u", 1, null, new Order(1, "ada", "shipped", "10.50", day, (T0 + 30_000) * 1000), T0 + 30_000));
    Order three = new Order(3, "linus", "pending", "30.50", day, T0 * 1000);
    c.add(new Change("d", 3, three, null, T0 + 40_000));
    // Two updates of order 2 committed in the same millisecond: the Kafka offset breaks the tie.
    c.add(new Change("u", 2, null, new Order(2, "grace", "paid", "20.50", day, (T0 + 50_000) * 1000), T0 + 50_000));
    c.add(new Change("u", 2, null, new Order(2, "grace", "cancelled", "20.50", day, (T0 + 50_000) * 1000), T0 + 50_000));
    c.add(new Change("c", 7, null, new Order(7, "dennis", "pending", "-5.25", day.plusDays(2), (T0 + 60_000) * 1000), T0 + 60_000));
    Order seven = new Order(7, "dennis", "pending", "-5.25", day.plusDays(2), (T0 + 60_000) * 1000);
    c.add(new Change("d", 7, seven, null, T0 + 70_000));
    c.add(new Change("u", 4, null, new Order(4, "barbara", "pending", "99.99", day, (T0 + 80_000) * 1000), T0 + 80_000));
    return c;
  }

  /** Produces the stream to {@link #TOPIC}. */
  public static int produce(String bootstrapServers) {
    return produce(bootstrapServers, TOPIC);
  }

  /** Produces the stream to a topic of {@link #PARTITIONS} partitions; key {@code id} goes to {@code id % PARTITIONS}. */
  public static int produce(String bootstrapServers, String topic) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    int records = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (Change change : changes()) {
        int partition = (int) (change.id() % PARTITIONS);
        byte[] key = key(change.id());
        producer.send(new ProducerRecord<>(topic, partition, key, value(change)));
        records++;
        if (change.op().equals("d")) {
          producer.send(new ProducerRecord<>(topic, partition, key, null)); // Debezium's tombstone
          records++;
        }
      }
      producer.flush();
    }
    return records;
  }

  static byte[] key(long id) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode schema = root.putObject("schema");
    schema.put("type", "struct").put("optional", false).put("name", "demo.public.orders.Key");
    schema.putArray("fields").addObject().put("type", "int64").put("optional", false).put("field", "id");
    root.putObject("payload").put("id", id);
    return bytes(root);
  }

  static byte[] value(Change change) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode schema = root.putObject("schema");
    schema.put("type", "struct").put("optional", false).put("name", "demo.public.orders.Envelope");
    ArrayNode fields = schema.putArray("fields");
    rowSchema(fields.addObject(), "before");
    rowSchema(fields.addObject(), "after");
    ObjectNode source = fields.addObject().put("type", "struct").put("optional", false).put("field", "source");
    ArrayNode sourceFields = source.putArray("fields");
    sourceFields.addObject().put("type", "string").put("optional", false).put("field", "connector");
    sourceFields.addObject().put("type", "int64").put("optional", false).put("field", "ts_ms");
    sourceFields.addObject().put("type", "string").put("optional", true).put("field", "snapshot");
    fields.addObject().put("type", "string").put("optional", false).put("field", "op");
    fields.addObject().put("type", "int64").put("optional", true).put("field", "ts_ms");

    ObjectNode payload = root.putObject("payload");
    rowPayload(payload, "before", change.before());
    rowPayload(payload, "after", change.after());
    payload.putObject("source").put("connector", "postgresql").put("ts_ms", change.tsMs())
        .put("snapshot", change.op().equals("r") ? "true" : "false");
    payload.put("op", change.op());
    payload.put("ts_ms", change.tsMs() + 250); // the connector saw it a little later
    return bytes(root);
  }

  private static void rowSchema(ObjectNode field, String name) {
    field.put("type", "struct").put("optional", true).put("name", "demo.public.orders.Value").put("field", name);
    ArrayNode f = field.putArray("fields");
    f.addObject().put("type", "int64").put("optional", false).put("field", "id");
    f.addObject().put("type", "string").put("optional", true).put("field", "customer");
    f.addObject().put("type", "string").put("optional", true).put("field", "status");
    ObjectNode amount = f.addObject().put("type", "bytes").put("optional", true)
        .put("name", "org.apache.kafka.connect.data.Decimal").put("version", 1).put("field", "amount");
    amount.putObject("parameters").put("scale", "2").put("connect.decimal.precision", "10");
    f.addObject().put("type", "int32").put("optional", true).put("name", "io.debezium.time.Date").put("version", 1).put("field", "order_date");
    f.addObject().put("type", "int64").put("optional", true).put("name", "io.debezium.time.MicroTimestamp").put("version", 1).put("field", "updated_at");
  }

  private static void rowPayload(ObjectNode payload, String name, Order o) {
    if (o == null) {
      payload.putNull(name);
      return;
    }
    payload.putObject(name)
        .put("id", o.id())
        .put("customer", o.customer())
        .put("status", o.status())
        .put("amount", Base64.getEncoder().encodeToString(new BigDecimal(o.amount()).unscaledValue().toByteArray()))
        .put("order_date", (int) o.orderDate().toEpochDay())
        .put("updated_at", o.updatedAtMicros());
  }

  private static byte[] bytes(ObjectNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
