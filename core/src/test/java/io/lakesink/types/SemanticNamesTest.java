package io.lakesink.types;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SemanticNamesTest {
  private static SourceType t(String base, String name) {
    return new SourceType(base, name, Map.of());
  }

  @Test
  void documentedNamesAreUnderstood() {
    for (SourceType s : new SourceType[] {
        t("int64", null), t("int64", TypeMapping.NANO_TIMESTAMP), t("string", TypeMapping.ZONED_TIMESTAMP),
        t("bytes", TypeMapping.CONNECT_DECIMAL), t("string", "io.debezium.data.Xml"), t("double", "io.debezium.time.MicroDuration"),
        t("string", "io.debezium.time.Interval"), t("int32", "io.debezium.time.Year"), t("string", "uuid"), t("long", "timestamp-micros")}) {
      assertTrue(SemanticNames.understood(s), s.toString());
    }
  }

  @Test
  void anUnknownNameOnAPrimitiveIsNotUnderstood() {
    assertFalse(SemanticNames.understood(t("int64", "io.debezium.time.PicoTimestamp")));
    assertFalse(SemanticNames.understood(t("bytes", "big-decimal"))); // an Avro logical type lakesink has no rule for
    assertFalse(SemanticNames.understood(t("string", "com.example.Money")));
  }

  @Test
  void structsArraysAndMapsAreJsonTextWhateverTheirName() {
    assertTrue(SemanticNames.understood(t("struct", "io.debezium.data.geometry.Point")));
    assertTrue(SemanticNames.understood(t("record", "server1.inventory.customers.Address")));
    assertTrue(SemanticNames.understood(t("array", "io.debezium.data.DoubleVector")));
  }
}
