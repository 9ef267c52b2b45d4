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
  void timesHaveAFixedWidthPerUnit() throws Exception {
    assertEquals("10:00:00.000000", convert("int64", TypeMapping.MICRO_TIME, 36_000_000_000L));
    assertEquals("10:00:00.500", convert("int32", TypeMapping.TIME, 36_000_500));
    assertEquals("10:00:00.500", convert("int32", TypeMapping.CONNECT_TIME, 36_000_500));
    assertEquals("10:00:00.500", convert("int32", "time-millis", 36_000_500));
    assertEquals("10:00:00.000500", convert("int64", "time-micros", 36_000_000_500L));
    assertEquals("00:00:00.000000001", convert("int64", TypeMapping.NANO_TIME, 1L));
    assertEquals("12:34:56.500000000", convert("int64", TypeMapping.NANO_TIME, 45_296_500_000_000L));
  }

  @Test
  void midnightAndTheEndOfTheDay() throws Exception {
    assertEquals("00:00:00.000", convert("int32", TypeMapping.TIME, 0));
    assertEquals("00:00:00.000000", convert("int64", TypeMapping.MICRO_TIME, 0L));
    assertEquals("00:00:00.000000000", convert("int64", TypeMapping.NANO_TIME, 0L));
    assertEquals("24:00:00.000000", convert("int64", TypeMapping.MICRO_TIME, 86_400_000_000L), "PostgreSQL's 24:00:00");
  }

  /** MySQL's TIME is a duration from -838:59:59 to 838:59:59, not a time of day. */
  @Test
  void timesBeyondOneDayAndNegativeOnes() throws Exception {
    assertEquals("838:59:59.000000", convert("int64", TypeMapping.MICRO_TIME, 3_020_399_000_000L));
    assertEquals("-838:59:59.000000", convert("int64", TypeMapping.MICRO_TIME, -3_020_399_000_000L));
    assertEquals("100:00:00.000000", convert("int64", TypeMapping.MICRO_TIME, 360_000_000_000L));
    assertEquals("-00:00:01.000000", convert("int64", TypeMapping.MICRO_TIME, -1_000_000L));
    assertEquals("-00:00:00.000001", convert("int64", TypeMapping.MICRO_TIME, -1L));
    assertEquals("-12:34:56.789", convert("int32", TypeMapping.TIME, -45_296_789));
    assertEquals("838:59:59.999999999", convert("int64", TypeMapping.NANO_TIME, 3_020_399_999_999_999L));
    assertEquals("25:00:00.000", convert("int32", TypeMapping.TIME, 90_000_000));
  }

  /** Any 64-bit count renders exactly; none overflows (Long.MIN_VALUE has no positive twin). */
  @Test
  void theWholeRangeOfALongRenders() throws Exception {
    assertEquals("2562047788:00:54.775807", convert("int64", TypeMapping.MICRO_TIME, Long.MAX_VALUE));
    assertEquals("-2562047788:00:54.775808", convert("int64", TypeMapping.MICRO_TIME, Long.MIN_VALUE));
    assertEquals("-2562047:47:16.854775808", convert("int64", TypeMapping.NANO_TIME, Long.MIN_VALUE));
  }

  @Test
  void decimalsDeltaCannotStoreBecomeStrings() {
    assertEquals(ColumnType.STRING, TypeMapping.columnType(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "-2", "connect.decimal.precision", "10"))));
    assertEquals(ColumnType.decimal(38, 0), TypeMapping.columnType(new SourceType("bytes", "decimal", Map.of("precision", "38"))));
    assertEquals(ColumnType.STRING, TypeMapping.columnType(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2"))));
  }
}
