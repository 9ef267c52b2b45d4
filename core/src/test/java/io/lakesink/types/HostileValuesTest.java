package io.lakesink.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Values a few bytes long that would take gigabytes or minutes to render or rescale: each is
 * refused at once. Every case runs under a timeout that fails the test instead of spinning.
 */
class HostileValuesTest {
  static final Duration QUICKLY = Duration.ofSeconds(10);
  static final BigDecimal HUGE = new BigDecimal("1e999999999");
  static final BigDecimal TINY = new BigDecimal("-1e-999999999");
  static final byte[] ONE = BigInteger.ONE.toByteArray();

  static void quickly(Executable e) {
    assertTimeoutPreemptively(QUICKLY, e);
  }

  static DecimalOutOfBoundsException outOfBounds(SourceType type, Object wire) {
    DecimalOutOfBoundsException e = assertThrows(
        DecimalOutOfBoundsException.class, () -> TypeMapping.convert(type, TypeMapping.columnType(type), wire));
    assertTrue(e.getMessage().contains("limit of 1000 digits"), e.getMessage());
    assertFalse(e.getMessage().contains("1E+999999999"), "the value itself is never shown: " + e.getMessage());
    return e;
  }

  @Test
  void variableScaleDecimalsWithAnAbsurdScaleAreRefused() {
    SourceType vsd = new SourceType("struct", TypeMapping.VARIABLE_SCALE_DECIMAL, Map.of());
    quickly(() -> {
      outOfBounds(vsd, Map.of("scale", -1_000_000_000, "value", ONE));
      outOfBounds(vsd, Map.of("scale", 1_000_000_000, "value", ONE));
      outOfBounds(vsd, Map.of("scale", Integer.MIN_VALUE, "value", ONE));
      outOfBounds(vsd, Map.of("scale", 0, "value", BigInteger.TEN.pow(1000).toByteArray()));
      byte[] megabyte = new byte[1 << 20];
      megabyte[0] = 1;
      outOfBounds(vsd, Map.of("scale", 0, "value", megabyte));
      assertEquals("0.0000000", TypeMapping.convert(vsd, ColumnType.STRING, Map.of("scale", 7, "value", new byte[1 << 20])),
          "a megabyte of zero bytes is just 0");
    });
  }

  @Test
  void decimalsAtTheLimitStillRender() throws Exception {
    SourceType vsd = new SourceType("struct", TypeMapping.VARIABLE_SCALE_DECIMAL, Map.of());
    String thousand = (String) TypeMapping.convert(vsd, ColumnType.STRING, Map.of("scale", -999, "value", ONE));
    assertEquals(1000, thousand.length());
    assertEquals("0." + "0".repeat(998) + "1", TypeMapping.convert(vsd, ColumnType.STRING, Map.of("scale", 999, "value", ONE)));
    assertEquals("0", TypeMapping.convert(vsd, ColumnType.STRING, Map.of("scale", -1_000_000_000, "value", new byte[] {0})),
        "zero renders as 0 whatever its scale");
  }

  @Test
  void connectAndAvroDecimalsWithANegativeOrAbsurdScaleAreRefused() {
    quickly(() -> {
      for (String scale : new String[] {"-1000000000", "1000000000", "2147483647", "-2147483648"}) {
        outOfBounds(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", scale, "connect.decimal.precision", "10")), ONE);
        outOfBounds(new SourceType("bytes", "decimal", Map.of("scale", scale)), ByteBuffer.wrap(ONE));
        outOfBounds(new SourceType("bytes", "decimal", Map.of("scale", scale, "precision", "2147483647")), ONE);
      }
      // A JSON number (decimal.format=NUMERIC) into a decimal(10,2) column or a wide string column.
      outOfBounds(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2", "connect.decimal.precision", "10")), HUGE);
      outOfBounds(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2", "connect.decimal.precision", "10")), TINY);
      outOfBounds(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2", "connect.decimal.precision", "50")), HUGE);
      outOfBounds(new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "1000000000")), BigDecimal.ONE);
    });
  }

  @Test
  void decimalsThatDoNotFitTheirSchemaAreRefused() {
    SourceType d = new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "2", "connect.decimal.precision", "5"));
    UnconvertibleValueException wide = assertThrows(UnconvertibleValueException.class,
        () -> TypeMapping.convert(d, ColumnType.decimal(5, 2), new BigDecimal("1234.56").unscaledValue().toByteArray()));
    assertTrue(wide.getMessage().contains("decimal(5,2)"), wide.getMessage());
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(d, ColumnType.decimal(5, 2), new BigDecimal("1.234")));
    UnconvertibleValueException scale = assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(
        new SourceType("bytes", TypeMapping.CONNECT_DECIMAL, Map.of("scale", "two")), ColumnType.STRING, ONE));
    assertTrue(scale.getMessage().contains("'two'"), scale.getMessage());
    assertEquals(ColumnType.STRING, TypeMapping.columnType(new SourceType("bytes", "decimal", Map.of("precision", "x", "scale", "1"))),
        "an unreadable precision does not fail the schema");
  }

  @Test
  void timestampsAndDatesDeltaCannotStoreAreRefused() {
    SourceType millis = new SourceType("int64", TypeMapping.TIMESTAMP, Map.of());
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(millis, ColumnType.TIMESTAMP, Long.MAX_VALUE));
    SourceType zoned = new SourceType("string", TypeMapping.ZONED_TIMESTAMP, Map.of());
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(zoned, ColumnType.TIMESTAMP, "+999999-01-01T00:00:00Z"));
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(zoned, ColumnType.TIMESTAMP, "yesterday"));
    SourceType day = new SourceType("int64", TypeMapping.DATE, Map.of());
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(day, ColumnType.DATE, 1L << 40));
    // A TIME is a duration of any length (TimeText): only a value that is not an integer is refused.
    SourceType time = new SourceType("int64", TypeMapping.MICRO_TIME, Map.of());
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(time, ColumnType.STRING, "12:00:00"));
    assertThrows(UnconvertibleValueException.class, () -> TypeMapping.convert(day, ColumnType.DATE, "3"), "wrong wire type");
  }

  @Test
  void coercionsRefuseHostileDecimalsQuickly() {
    quickly(() -> {
      for (BigDecimal d : new BigDecimal[] {HUGE, TINY}) {
        assertThrows(ValueCoercion.DoesNotFit.class, () -> ValueCoercion.coerce(d, ColumnType.decimal(38, 0), ColumnType.decimal(38, 2)));
        assertThrows(ValueCoercion.DoesNotFit.class, () -> ValueCoercion.coerce(d, ColumnType.decimal(38, 0), ColumnType.STRING));
        assertThrows(ValueCoercion.DoesNotFit.class, () -> ValueCoercion.coerce(d, ColumnType.decimal(38, 0), ColumnType.BIGINT));
        assertThrows(ValueCoercion.DoesNotFit.class, () -> ValueCoercion.coerce(d, ColumnType.decimal(38, 0), ColumnType.INT));
        assertEquals(d.toString(), ValueCoercion.render(d), "rendered in scientific notation, never in full");
      }
    });
    assertThrows(ValueCoercion.DoesNotFit.class,
        () -> ValueCoercion.coerce(LocalDate.MAX, ColumnType.DATE, ColumnType.TIMESTAMP), "no timestamp for that date");
  }

  @Test
  void castsRefuseHostileNumbersQuickly() {
    quickly(() -> {
      for (BigDecimal d : new BigDecimal[] {HUGE, TINY}) {
        IllegalArgumentException text = assertThrows(IllegalArgumentException.class, () -> Casts.cast(d, ColumnType.STRING));
        assertTrue(text.getMessage().contains("1000 digits"), text.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Casts.cast(d, ColumnType.BIGINT));
      }
      assertThrows(IllegalArgumentException.class, () -> Casts.cast("1e999999999", ColumnType.BIGINT));
      assertThrows(IllegalArgumentException.class, () -> Casts.cast("-1e-999999999", ColumnType.BIGINT));
      IllegalArgumentException longText = assertThrows(IllegalArgumentException.class, () -> Casts.cast("9".repeat(5_000_000), ColumnType.BIGINT));
      assertTrue(longText.getMessage().contains("5000000 characters"), longText.getMessage());
      assertThrows(IllegalArgumentException.class, () -> Casts.cast("9".repeat(5_000_000), ColumnType.DOUBLE));
      assertEquals(Double.POSITIVE_INFINITY, Casts.cast(HUGE, ColumnType.DOUBLE));
      assertThrows(IllegalArgumentException.class, () -> Casts.cast("+999999-01-01T00:00:00Z", ColumnType.TIMESTAMP));
      assertThrows(IllegalArgumentException.class, () -> Casts.cast(LocalDate.MAX, ColumnType.TIMESTAMP));
    });
    assertEquals(new BigDecimal("12.5").toPlainString(), Casts.cast(new BigDecimal("12.5"), ColumnType.STRING));
    assertEquals(1000L, Casts.cast("1e3", ColumnType.BIGINT));
    assertEquals(Double.NaN, Casts.cast(" NaN ", ColumnType.DOUBLE));
    assertEquals(Instant.parse("2026-01-01T00:00:00Z"), Casts.cast("2026-01-01T00:00:00Z", ColumnType.TIMESTAMP));
  }
}
