package io.lakesink.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NonTableTopicTest {
  @Test
  void onlyTheHeartbeatPrefixIsRecognisedByName() {
    assertEquals(Optional.of(NonTableTopic.HEARTBEAT), NonTableTopic.byName("__debezium-heartbeat.dbserver1"));
    assertEquals(Optional.of(NonTableTopic.HEARTBEAT), NonTableTopic.byName("__debezium-heartbeat"));
    // A router can give a table these names: their records decide.
    assertEquals(Optional.empty(), NonTableTopic.byName("dbserver1.transaction"));
    assertEquals(Optional.empty(), NonTableTopic.byName("dbserver1"));
    assertEquals(Optional.empty(), NonTableTopic.byName("dbserver1.inventory.__debezium-heartbeat"));
  }

  @Test
  void recordsAreRecognisedByTheirSchemaNameOrTheirFields() {
    assertEquals(Optional.of(NonTableTopic.SCHEMA_CHANGES), shape(null, "source", "ts_ms", "databaseName", "schemaName", "ddl", "tableChanges"));
    assertEquals(Optional.of(NonTableTopic.SCHEMA_CHANGES), shape("io.debezium.connector.mysql.SchemaChangeValue", "anything"));
    assertEquals(Optional.of(NonTableTopic.TRANSACTION_METADATA), shape(null, "status", "id", "event_count", "data_collections", "ts_ms"));
    assertEquals(Optional.of(NonTableTopic.TRANSACTION_METADATA), shape("io.debezium.connector.common.TransactionMetadataValue", "x"));
    assertEquals(Optional.of(NonTableTopic.HEARTBEAT), shape("io.debezium.connector.common.Heartbeat", "ts_ms"));
    // Table rows that share some of those names are rows.
    assertEquals(Optional.empty(), shape(null, "ts_ms"));
    assertEquals(Optional.empty(), shape(null, "id", "status", "ddl"));
    assertEquals(Optional.empty(), shape("dbserver1.inventory.orders.Value", "id", "status"));
  }

  private static Optional<NonTableTopic> shape(String schemaName, String... fields) {
    return NonTableTopic.byShape(schemaName, Set.of(fields)::contains);
  }
}
