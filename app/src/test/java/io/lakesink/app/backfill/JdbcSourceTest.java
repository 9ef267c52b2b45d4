package io.lakesink.app.backfill;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.event.ColumnType;
import io.lakesink.types.TypeMapping;
import java.sql.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

class JdbcSourceTest {
  @Test
  void theUrlShownAndUsedForTheIdHoldsNoCredential() {
    assertEquals("jdbc:postgresql://db:5432/shop", JdbcSource.safeUrl("jdbc:postgresql://db:5432/shop?user=a&password=secret"));
    assertEquals("jdbc:postgresql://db/shop", JdbcSource.safeUrl("jdbc:postgresql://me:secret@db/shop"));
    assertEquals("jdbc:sqlserver://db:1433", JdbcSource.safeUrl("jdbc:sqlserver://db:1433;user=a;password=secret"));
  }

  @Test
  void aSourceTableIsReadInKeyOrderWithQuotedKeyColumns() {
    assertEquals("SELECT * FROM public.orders ORDER BY \"Id\", \"we\"\"ird\"",
        JdbcSource.tableQuery("public.orders", List.of("Id", "we\"ird"), "\""));
    assertEquals("SELECT * FROM t", JdbcSource.tableQuery("t", List.of(), "\""));
  }

  @Test
  void columnsAreTypedAsDebeziumTypesThem() {
    assertEquals(ColumnType.INT, type(Types.SMALLINT, "int2", 5, 0));
    assertEquals(ColumnType.BIGINT, type(Types.BIGINT, "int8", 19, 0));
    assertEquals(ColumnType.decimal(10, 2), type(Types.NUMERIC, "numeric", 10, 2));
    assertEquals(ColumnType.STRING, type(Types.NUMERIC, "numeric", 0, 0), "numeric without precision: text, every digit kept");
    assertEquals(ColumnType.DATE, type(Types.DATE, "date", 13, 0));
    assertEquals(ColumnType.TIMESTAMP, type(Types.TIMESTAMP, "timestamp", 29, 6));
    assertEquals(TypeMapping.ZONED_TIMESTAMP, JdbcSource.sourceType(Types.TIMESTAMP, "timestamptz", 35, 6).semanticName(),
        "PostgreSQL reports timestamptz as a timestamp");
    assertEquals(ColumnType.STRING, type(Types.TIME, "time", 15, 6), "time of day is text, as the stream renders it");
    assertEquals(TypeMapping.MICRO_TIME, JdbcSource.sourceType(Types.TIME, "time", 15, 6).semanticName(),
        "time(4) to time(6): microseconds, as Debezium's adaptive mode sends them");
    assertEquals(TypeMapping.TIME, JdbcSource.sourceType(Types.TIME, "time", 12, 3).semanticName(),
        "time(0) to time(3): milliseconds, so the text has the stream's 3 fraction digits");
    assertEquals(TypeMapping.TIME, JdbcSource.sourceType(Types.TIME, "time", 8, 0).semanticName());
    assertEquals(ColumnType.STRING, type(Types.BINARY, "bytea", 0, 0), "bytes are base64 text");
    assertEquals(ColumnType.BOOLEAN, type(Types.BIT, "bool", 1, 0));
  }

  private static ColumnType type(int jdbc, String name, int precision, int scale) {
    return TypeMapping.columnType(JdbcSource.sourceType(jdbc, name, precision, scale));
  }
}
