package io.lakesink.sources;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The MySQL column types the end-to-end test covers, each with how the database renders a value for
 * comparison (an SQL expression over the column) and how lakesink's value must relate to it, as
 * docs/types.md documents: with a schema (JSON with schemas, Avro) the typed value, without one the
 * text of Debezium's JSON value.
 */
final class MySqlColumns {
  private MySqlColumns() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How lakesink's value is compared with the database's rendering. */
  enum Kind {
    TEXT, INT, BOOL, DECIMAL, DOUBLE, DATE,
    /** DATETIME(4..6): io.debezium.time.MicroTimestamp, microseconds since the epoch. */
    MICRO_TIMESTAMP,
    /** DATETIME(0..3): io.debezium.time.Timestamp, milliseconds since the epoch. */
    MILLI_TIMESTAMP,
    /** TIMESTAMP: io.debezium.time.ZonedTimestamp, ISO-8601 text in UTC. */
    ZONED_TIMESTAMP,
    /** TIME: io.debezium.time.MicroTime, microseconds (a duration, beyond one day and negative). */
    MICRO_TIME,
    /** BLOB: bytes, base64. */
    BYTES,
    /** BIT(n > 1): io.debezium.data.Bits, bytes least significant first, base64. */
    BITS,
    /** JSON and GEOMETRY (a struct, written as JSON text): compared as JSON trees. */
    JSON_TEXT
  }

  /**
   * @param sql the column's definition
   * @param render the database's rendering, {@code {c}} standing for the column
   * @param deltaType the Delta type with a schema (without one every column is {@code string})
   */
  record Col(String name, String sql, Kind kind, String render, String deltaType) {
    String select() {
      return render.replace("{c}", "`" + name + "`");
    }
  }

  private static String zeroIsNull(String format) {
    // Debezium sends a zero date of a nullable column as null (it is no instant).
    return "IF(CAST({c} AS CHAR) LIKE '0000-00-00%', NULL, " + format + ")";
  }

  private static final String GEOMETRY_JSON =
      "CONCAT('{\"wkb\":\"', REPLACE(TO_BASE64(ST_AsBinary({c})), '\\n', ''), '\",\"srid\":', IF(ST_SRID({c}) = 0, 'null', ST_SRID({c})), '}')";

  static final List<Col> ALL_TYPES = List.of(
      new Col("id", "INT PRIMARY KEY", Kind.INT, "{c}", "int"),
      new Col("flag", "TINYINT(1)", Kind.INT, "{c}", "int"), // int16 in Debezium: TINYINT(1) is a number in MySQL
      new Col("big_u", "BIGINT UNSIGNED", Kind.DECIMAL, "CAST({c} AS CHAR)", "decimal(20,0)"),
      new Col("yr", "YEAR", Kind.INT, "CAST({c} AS UNSIGNED)", "int"),
      new Col("color", "ENUM('red','green','blue')", Kind.TEXT, "{c}", "string"),
      new Col("tags", "SET('a','b','c')", Kind.TEXT, "{c}", "string"),
      new Col("doc", "JSON", Kind.JSON_TEXT, "{c}", "string"),
      new Col("bits", "BIT(10)", Kind.BITS, "CAST({c} + 0 AS CHAR)", "string"),
      new Col("bit1", "BIT(1)", Kind.BOOL, "IF({c} IS NULL, NULL, IF({c} = b'1', 'true', 'false'))", "boolean"),
      new Col("shape", "GEOMETRY", Kind.JSON_TEXT, GEOMETRY_JSON, "string"),
      new Col("dur", "TIME(6)", Kind.MICRO_TIME, "CAST({c} AS CHAR)", "string"),
      new Col("dt", "DATETIME(6)", Kind.MICRO_TIMESTAMP, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"), "timestamp"),
      new Col("dt0", "DATETIME", Kind.MILLI_TIMESTAMP, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"), "timestamp"),
      new Col("ts", "TIMESTAMP(6) NULL", Kind.ZONED_TIMESTAMP, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"), "timestamp"),
      new Col("d", "DATE", Kind.DATE, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d')"), "date"),
      new Col("money", "DECIMAL(65,30)", Kind.DECIMAL, "CAST({c} AS CHAR)", "string"),
      new Col("price", "DECIMAL(10,2)", Kind.DECIMAL, "CAST({c} AS CHAR)", "decimal(10,2)"),
      new Col("blob_col", "BLOB", Kind.BYTES, "REPLACE(TO_BASE64({c}), '\\n', '')", "string"),
      new Col("txt", "VARCHAR(100) CHARACTER SET utf8mb4", Kind.TEXT, "{c}", "string"),
      new Col("dbl", "DOUBLE", Kind.DOUBLE, "CAST({c} AS CHAR)", "double"),
      new Col("note", "VARCHAR(20)", Kind.TEXT, "{c}", "string")); // added by ALTER TABLE halfway

  /** The other integer widths, FLOAT, the text and binary types, POINT, and the other precisions. */
  static final List<Col> MORE_TYPES = List.of(
      new Col("id", "INT PRIMARY KEY", Kind.INT, "{c}", "int"),
      new Col("small", "SMALLINT", Kind.INT, "{c}", "int"),
      new Col("med", "MEDIUMINT", Kind.INT, "{c}", "int"),
      new Col("big", "BIGINT", Kind.INT, "{c}", "bigint"),
      new Col("f", "FLOAT", Kind.DOUBLE, "CAST({c} AS CHAR)", "float"), // values with few digits: see Rows
      new Col("ch", "CHAR(5)", Kind.TEXT, "{c}", "string"),
      new Col("tx", "TEXT", Kind.TEXT, "{c}", "string"),
      new Col("bin", "BINARY(3)", Kind.BYTES, "REPLACE(TO_BASE64({c}), '\\n', '')", "string"),
      new Col("vb", "VARBINARY(10)", Kind.BYTES, "REPLACE(TO_BASE64({c}), '\\n', '')", "string"),
      new Col("pt", "POINT", Kind.JSON_TEXT, // io.debezium.data.geometry.Point: the coordinates too
          "CONCAT('{\"x\":', ST_X({c}), ',\"y\":', ST_Y({c}), ',', SUBSTRING(" + GEOMETRY_JSON + ", 2))", "string"),
      new Col("ts0", "TIMESTAMP NULL", Kind.ZONED_TIMESTAMP, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"), "timestamp"),
      new Col("dt3", "DATETIME(3)", Kind.MILLI_TIMESTAMP, zeroIsNull("DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')"), "timestamp"),
      new Col("t0", "TIME", Kind.MICRO_TIME, "CAST(CAST({c} AS TIME(6)) AS CHAR)", "string")); // MicroTime at any precision

  static final List<Col> ORDERS = List.of(
      new Col("id", "INT PRIMARY KEY", Kind.INT, "{c}", "int"),
      new Col("name", "VARCHAR(40)", Kind.TEXT, "{c}", "string"),
      new Col("qty", "INT", Kind.INT, "{c}", "int"));

  /**
   * Whether lakesink's value equals the database's rendering.
   *
   * @param typed whether the format carried a schema
   */
  static boolean matches(Col c, boolean typed, String db, Object lake) {
    if (db == null || lake == null) {
      return db == null && lake == null;
    }
    if (!typed && !(lake instanceof String)) {
      return false; // without a schema every column is text
    }
    String text = lake instanceof String s ? s : null;
    return switch (c.kind()) {
      case TEXT -> db.equals(lake);
      case INT -> db.equals(String.valueOf(lake));
      case BOOL -> db.equals(String.valueOf(lake));
      case DECIMAL -> typed
          ? db.equals(lake instanceof BigDecimal b ? b.toPlainString() : lake) // exact, plain notation, all of the scale
          : new BigDecimal(db).compareTo(new BigDecimal(text)) == 0; // a JSON number, as the converter wrote it
      case DOUBLE -> Double.parseDouble(db) == (typed ? ((Number) lake).doubleValue() : Double.parseDouble(text));
      case DATE -> typed ? db.equals(lake.toString()) : LocalDate.parse(db).toEpochDay() == Long.parseLong(text);
      case MICRO_TIMESTAMP -> typed ? instant(db).equals(lake) : micros(instant(db)) == Long.parseLong(text);
      case MILLI_TIMESTAMP -> typed ? instant(db).equals(lake) : instant(db).toEpochMilli() == Long.parseLong(text);
      case ZONED_TIMESTAMP -> typed ? instant(db).equals(lake) : instant(db).equals(Instant.parse(text));
      case MICRO_TIME -> typed ? db.equals(lake) : timeMicros(db) == Long.parseLong(text);
      case BYTES -> db.equals(lake);
      case BITS -> bitsBase64(new BigInteger(db), Integer.parseInt(c.sql().replaceAll("\\D", ""))).equals(lake);
      case JSON_TEXT -> json(db).equals(NUMBERS_BY_VALUE, json(text));
    };
  }

  /** {@code yyyy-MM-dd HH:mm:ss.ffffff} in UTC (the server's time zone). */
  static Instant instant(String db) {
    return LocalDateTime.parse(db.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
  }

  private static long micros(Instant i) {
    return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000; // Instant.until(MICROS) overflows beyond 292 years
  }

  /** {@code [-]H+:MM:SS.ffffff} as microseconds. */
  static long timeMicros(String db) {
    boolean negative = db.startsWith("-");
    String[] hms = (negative ? db.substring(1) : db).split(":");
    BigDecimal seconds = new BigDecimal(hms[2]);
    long micros = (Long.parseLong(hms[0]) * 3600 + Long.parseLong(hms[1]) * 60) * 1_000_000L
        + seconds.movePointRight(6).longValueExact();
    return negative ? -micros : micros;
  }

  /** {@code 0} and {@code 0.0} are one coordinate. */
  private static final Comparator<JsonNode> NUMBERS_BY_VALUE = (a, b) ->
      a.isNumber() && b.isNumber() ? Double.compare(a.doubleValue(), b.doubleValue()) : a.equals(b) ? 0 : 1;

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      return JSON.getNodeFactory().textNode("not JSON: " + text);
    }
  }

  /** BIT(n) as Debezium sends it: the value's bytes, least significant first. */
  static String bitsBase64(BigInteger value, int bits) {
    byte[] out = new byte[(bits + 7) / 8];
    byte[] big = value.toByteArray();
    for (int i = 0; i < out.length && i < big.length; i++) {
      out[i] = big[big.length - 1 - i];
    }
    return Base64.getEncoder().encodeToString(out);
  }
}
