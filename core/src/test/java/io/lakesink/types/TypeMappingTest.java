package io.lakesink.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.event.ColumnType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TypeMappingTest {
  static Object convert(String base, String name, Object wire) throws UnconvertibleValueException {
    SourceType t = new SourceType(base, name, Map.of());
    return TypeMapping.convert(t, TypeMapping.columnType(t), wire);
  }

  @Test
  void timesOfDayAlwaysShowSeconds() throws Exception {
    assertEquals("10:00:00", convert("int64", TypeMapping.MICRO_TIME, 36_000_000_000L));
    assertEquals("10:00:00.500", convert("int32", TypeMapping.TIME, 36_000_500));
    assertEquals("24:00:00", convert("int64", TypeMapping.MICRO_TIME, 86_400_000_000L));
    assertEquals("00:00:00.000000001", convert("int64", TypeMapping.NANO_TIME, 1L));
  }

  @Test
  void decimalsDeltaCannotStoreBecomeStrings() {
    assertEquals(ColumnType.STRING, TypeMapping.columnType(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "-2", "connect.decimal.precision", "10"))));
    assertEquals(ColumnType.decimal(38, 0), TypeMapping.columnType(new SourceType("bytes", "decimal", Map.of("precision", "38"))));
    assertEquals(ColumnType.STRING, TypeMapping.columnType(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2"))));
  }
}
