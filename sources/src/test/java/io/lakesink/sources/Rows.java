package io.lakesink.sources;

/**
 * The statements the end-to-end test runs at the source, phase by phase: a modest number of rows,
 * chosen for the edges of each type (extremes, negative and beyond-a-day times, zero dates, dates
 * before 1970 and near year 1, 4-byte UTF-8, nulls).
 */
final class Rows {
  private Rows() {}

  private static final String ALL = "INSERT INTO all_types (id, flag, big_u, yr, color, tags, doc, bits, bit1, shape, dur, dt, dt0, ts, d,"
      + " money, price, blob_col, txt, dbl) VALUES ";

  /** In the tables before the connector starts: read by its snapshot. */
  static final String[] SNAPSHOT = {
    ALL + "(1, 1, 42, 2024, 'green', 'a,c', '{\"k\": [1, 2], \"s\": \"x\"}', b'1010000001', b'1', ST_GeomFromText('POINT(1 2)'),"
        + " '12:34:56.5', '2024-02-29 23:59:59.123456', '2024-02-29 23:59:59', '2024-02-29 23:59:59.654321', '2024-02-29',"
        + " '12345.678900000000000000000000000001', 12.50, x'00FF10', 'héllo wörld 😀 漢字', 3.25)",
    ALL + "(2, 0, 18446744073709551615, 1901, 'red', '', '[]', b'0000000000', b'0', ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0)'),"
        + " '838:59:59', '0001-01-01 00:00:00.000001', '9999-12-31 23:59:59', '1970-01-01 00:00:01', '0001-01-01',"
        + " '-99999999999999999999999999999999999.999999999999999999999999999999', -99999999.99, x'', '', -1.5e300)",
    "INSERT INTO all_types (id) VALUES (3)",
    // Zero dates (the server runs without strict mode, as many MySQL installations do).
    ALL + "(7, 127, 0, 2155, 'blue', 'a,b,c', '{\"deep\": {\"a\": [true, null, 1.5]}}', b'1111111111', b'1',"
        + " ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 0))'), '-838:59:59', '0000-00-00 00:00:00', '0000-00-00 00:00:00',"
        + " '0000-00-00 00:00:00', '0000-00-00', '0.000000000000000000000000000001', 0.01, x'0102030405060708090a', 'Ωμέγα 𝄞', 0)",
    // FLOAT values with few significant digits: Debezium's snapshot keeps about 6 of a FLOAT.
    "INSERT INTO more_types VALUES (1, -32768, 8388607, -9223372036854775808, 1.5, 'abc', 'a text ✓', x'0102ff', x'', "
        + " ST_GeomFromText('POINT(-71.06 42.36)', 4326), '2001-02-03 04:05:06', '1999-12-31 23:59:59.999', '-00:30:00'),"
        + " (2, 32767, -8388608, 9223372036854775807, -0.25, '', '', x'ffffff', x'00010203', ST_GeomFromText('POINT(0 0)'),"
        + " '2038-01-19 03:14:07', '0001-01-01 00:00:00.001', '838:59:59')",
    "INSERT INTO orders VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3), (4, 'four', 4), (5, 'five', 5),"
        + " (6, 'six', 6), (7, 'seven', 7), (8, 'eight', 8)",
  };

  /** Inserts, updates and deletes while the connector streams the binlog. */
  static final String[] CHANGES = {
    ALL + "(4, -128, 9223372036854775808, 1970, 'green', 'b', '{\"nested\": {\"a\": null}}', b'0000000001', b'0',"
        + " ST_GeomFromText('POINT(3 4)', 4326), '-00:00:01', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59',"
        + " '2038-01-19 03:14:07.999999', '1969-07-20', '1E-30', 99999999.99, x'ff', 'snow ☃ man', 1.0E-300)",
    ALL + "(5, 1, 1, 2000, NULL, 'c', 'null', b'1000000000', NULL, NULL, '100:00:00', '1583-01-01 12:00:00', '1000-01-01 00:00:00',"
        + " '1970-01-01 00:00:01.000001', '1583-01-01', '-0.5', -0.01, NULL, 'emoji 👍🏽', NULL)",
    "UPDATE all_types SET color = 'blue', tags = 'a,b,c', dur = '00:00:00', txt = 'ünïcödé ✓', money = 0, big_u = 18446744073709551614"
        + " WHERE id = 1",
    "UPDATE all_types SET dur = '-12:00:00.000001', doc = '{\"replaced\": true}', dt = '2000-01-01 00:00:00' WHERE id = 2",
    "DELETE FROM all_types WHERE id = 3",
    "INSERT INTO more_types VALUES (3, 0, 0, 0, 1024, 'x', 'третий', x'0a0b0c', x'ff', ST_GeomFromText('POINT(1 1)', 3857),"
        + " '1970-01-01 00:00:01', '1970-01-01 00:00:00', '-838:59:59')",
    "UPDATE more_types SET tx = 'updated 𝄞', f = -2, dt3 = '2020-02-29 12:00:00.5' WHERE id = 1",
    "DELETE FROM more_types WHERE id = 2",
    "UPDATE orders SET qty = 30, name = 'three!' WHERE id = 3",
    "DELETE FROM orders WHERE id IN (2, 8)",
    "INSERT INTO orders VALUES (9, 'nine', 9)",
  };

  /** A column added while streaming, and rows that use it. */
  static final String[] ADD_COLUMN = {
    "ALTER TABLE all_types ADD COLUMN note VARCHAR(20)",
    ALL.replace(", dbl)", ", dbl, note)") + "(6, 0, 7, 1999, 'red', 'a', '{}', b'0101010101', b'1', ST_GeomFromText('POINT(0 0)'),"
        + " '23:59:59.999999', '2010-10-10 10:10:10.101010', '2010-10-10 10:10:10', '2010-10-10 10:10:10.101010', '2010-10-10',"
        + " '1.5', 1.50, x'00', 'after the alter', 2.5, 'added')",
    "UPDATE all_types SET note = 'later' WHERE id = 2",
  };

  /** A truncate, then rows written after it: only those remain (the case). */
  static final String[] TRUNCATE = {
    "TRUNCATE TABLE orders",
    "INSERT INTO orders VALUES (3, 'again', 33), (101, 'new', 1), (102, 'new', 2)",
  };
}
