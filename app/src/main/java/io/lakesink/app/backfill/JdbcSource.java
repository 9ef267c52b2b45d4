package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillSource;
import io.lakesink.backfill.SourceRow;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.types.SourceType;
import io.lakesink.types.TypeMapping;
import io.lakesink.types.UnconvertibleValueException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * Rows of a JDBC query, streamed with a cursor ({@code fetchSize}) so memory stays bounded. Each
 * column is typed as Debezium types the same column of a change event (PostgreSQL: {@code int4}
 * → int, {@code numeric(p,s)} → decimal, {@code timestamp} → UTC timestamp, {@code time} → text,
 * …) and converted by the stream's {@link TypeMapping}, so a value reads as the stream renders it.
 * Resuming needs the same rows in the same order: a query should say {@code ORDER BY}.
 */
final class JdbcSource implements BackfillSource {
  static final int FETCH_SIZE = 1000;

  private final String url;
  private final Properties credentials;
  /** The query, or null until the connection says how to quote the key columns of a table. */
  private String query;
  private final String table;
  private final List<String> keyColumns;
  private Connection connection;
  private PreparedStatement statement;
  private ResultSet results;
  private RowSchema schema;
  private SourceType[] sourceTypes;
  private long row;
  private boolean exhausted;
  /** What the rows are counted in, for messages: no URL, and no query text (it may be long). */
  private final String origin;

  /** @param credentials {@code user} and {@code password}, or empty (never shown) */
  JdbcSource(String url, Properties credentials, String query) {
    this(url, credentials, query, null, List.of());
  }

  private JdbcSource(String url, Properties credentials, String query, String table, List<String> keyColumns) {
    this.url = url;
    this.credentials = credentials;
    this.query = query;
    this.origin = table != null ? "source table " + table + " (in key order)" : "the query's result";
    this.table = table;
    this.keyColumns = List.copyOf(keyColumns);
  }

  /** Every row of a table, in key order. */
  static JdbcSource table(String url, Properties credentials, String table, List<String> keyColumns) {
    return new JdbcSource(url, credentials, null, table, keyColumns);
  }

  private String query() {
    if (query == null) {
      try {
        String quote = connection().getMetaData().getIdentifierQuoteString();
        query = tableQuery(table, keyColumns, quote == null || quote.isBlank() ? "" : quote.strip());
      } catch (SQLException e) {
        throw SourceErrors.queryFailed(safeUrl(url), 0, reason(e), e);
      }
    }
    return query;
  }

  /** A whole table in key order, so a resumed run sees the same rows in the same order. */
  static String tableQuery(String table, List<String> keyColumns, String quote) {
    StringBuilder sql = new StringBuilder("SELECT * FROM ").append(table);
    if (!keyColumns.isEmpty()) {
      sql.append(" ORDER BY ");
      for (int i = 0; i < keyColumns.size(); i++) {
        String k = quote.isEmpty() ? keyColumns.get(i) : keyColumns.get(i).replace(quote, quote + quote);
        sql.append(i == 0 ? "" : ", ").append(quote).append(k).append(quote);
      }
    }
    return sql.toString();
  }

  /** The URL without what may hold a credential (user info, parameters). */
  static String safeUrl(String url) {
    String s = url;
    int q = s.indexOf('?');
    if (q >= 0) s = s.substring(0, q);
    int semi = s.indexOf(';');
    if (semi >= 0) s = s.substring(0, semi);
    return s.replaceAll("//[^/@]*@", "//");
  }

  @Override
  public String identity() {
    return "jdbc " + safeUrl(url) + " " + (table != null ? "table " + table + " " + keyColumns : query);
  }

  @Override
  public String describe() {
    return safeUrl(url);
  }

  Connection connection() {
    if (connection == null) {
      try {
        connection = DriverManager.getConnection(url, credentials);
        connection.setReadOnly(true);
        connection.setAutoCommit(false); // PostgreSQL streams with a cursor only inside a transaction
      } catch (SQLException e) {
        throw SourceErrors.cannotConnect(safeUrl(url), reason(e), e);
      }
    }
    return connection;
  }

  @Override
  public OptionalLong estimatedRows() {
    try (PreparedStatement count = connection().prepareStatement("SELECT COUNT(*) FROM (" + query() + ") backfill_rows");
        ResultSet rs = count.executeQuery()) {
      return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
    } catch (SQLException e) {
      // Some databases refuse ORDER BY in a subquery: then progress has no total, nothing else changes.
      rollbackQuietly();
      return OptionalLong.empty();
    }
  }

  private void rollbackQuietly() {
    try {
      connection().rollback();
    } catch (SQLException ignored) {
      // a read-only transaction: nothing to undo
    }
  }

  private void open() throws SQLException {
    statement = connection().prepareStatement(query(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    statement.setFetchSize(FETCH_SIZE);
    results = statement.executeQuery();
    ResultSetMetaData md = results.getMetaData();
    List<Column> columns = new ArrayList<>();
    sourceTypes = new SourceType[md.getColumnCount()];
    for (int i = 1; i <= md.getColumnCount(); i++) {
      SourceType t = sourceType(md.getColumnType(i), md.getColumnTypeName(i), md.getPrecision(i), md.getScale(i));
      sourceTypes[i - 1] = t;
      columns.add(new Column(md.getColumnLabel(i), TypeMapping.columnType(t)));
    }
    schema = new RowSchema(columns, true);
  }

  /**
   * The Kafka Connect type Debezium gives a column of this JDBC type. PostgreSQL's driver
   * reports {@code timestamptz} as a plain timestamp, so the type's name decides too.
   */
  static SourceType sourceType(int jdbcType, String typeName, int precision, int scale) {
    String name = typeName == null ? "" : typeName.toLowerCase(java.util.Locale.ROOT);
    if (name.equals("timestamptz") || name.equals("timestamp with time zone")) {
      return new SourceType("string", TypeMapping.ZONED_TIMESTAMP, Map.of());
    }
    if (name.equals("timetz") || name.equals("time with time zone")) {
      return SourceType.of("string"); // Debezium's ZonedTime: the text with its offset
    }
    return switch (jdbcType) {
      case Types.BIT, Types.BOOLEAN -> SourceType.of("boolean");
      case Types.TINYINT, Types.SMALLINT -> SourceType.of("int16");
      case Types.INTEGER -> SourceType.of("int32");
      case Types.BIGINT -> SourceType.of("int64");
      case Types.REAL -> SourceType.of("float32");
      case Types.FLOAT, Types.DOUBLE -> SourceType.of("float64");
      case Types.NUMERIC, Types.DECIMAL -> precision > 0 && precision <= 1000 && scale >= 0
          ? new SourceType("bytes", TypeMapping.CONNECT_DECIMAL,
              Map.of("scale", Integer.toString(scale), "connect.decimal.precision", Integer.toString(precision)))
          : new SourceType("struct", TypeMapping.VARIABLE_SCALE_DECIMAL, Map.of()); // numeric without precision
      case Types.DATE -> new SourceType("int32", TypeMapping.DATE, Map.of());
      case Types.TIMESTAMP -> new SourceType("int64", TypeMapping.MICRO_TIMESTAMP, Map.of());
      case Types.TIMESTAMP_WITH_TIMEZONE -> new SourceType("string", TypeMapping.ZONED_TIMESTAMP, Map.of());
      // As Debezium's PostgreSQL connector types it by default (time.precision.mode adaptive):
      // time(0) to time(3) in milliseconds, finer ones in microseconds; the unit sets the text's
      // width (docs/types.md, Times), which the backfill's render check compares.
      case Types.TIME -> scale <= 3
          ? new SourceType("int32", TypeMapping.TIME, Map.of())
          : new SourceType("int64", TypeMapping.MICRO_TIME, Map.of());
      case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> SourceType.of("bytes");
      default -> SourceType.of("string");
    };
  }

  /** The value as Debezium puts it on the wire, for {@link TypeMapping#convert}. */
  private Object wire(int i, SourceType t) throws SQLException {
    int c = i + 1;
    Object v;
    String name = t.semanticName() == null ? "" : t.semanticName();
    switch (name) {
      case TypeMapping.DATE -> {
        LocalDate d = results.getObject(c, LocalDate.class);
        v = d == null ? null : d.toEpochDay();
      }
      case TypeMapping.MICRO_TIMESTAMP -> {
        // A timestamp without a time zone is its wall-clock time read as UTC, as Debezium sends it.
        LocalDateTime t0 = results.getObject(c, LocalDateTime.class);
        v = t0 == null ? null : Math.addExact(Math.multiplyExact(t0.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t0.getNano() / 1000);
      }
      case TypeMapping.ZONED_TIMESTAMP -> {
        OffsetDateTime t0 = results.getObject(c, OffsetDateTime.class);
        v = t0 == null ? null : t0.toString();
      }
      case TypeMapping.MICRO_TIME -> {
        LocalTime t0 = results.getObject(c, LocalTime.class);
        v = t0 == null ? null : t0.toNanoOfDay() / 1000;
      }
      case TypeMapping.TIME -> {
        LocalTime t0 = results.getObject(c, LocalTime.class);
        v = t0 == null ? null : (int) (t0.toNanoOfDay() / 1_000_000);
      }
      case TypeMapping.CONNECT_DECIMAL, TypeMapping.VARIABLE_SCALE_DECIMAL -> v = results.getBigDecimal(c);
      default -> v = switch (t.baseType()) {
        case "boolean" -> results.getBoolean(c);
        case "int16", "int32" -> results.getInt(c);
        case "int64" -> results.getLong(c);
        case "float32" -> results.getFloat(c);
        case "float64" -> results.getDouble(c);
        case "bytes" -> results.getBytes(c);
        default -> results.getString(c);
      };
    }
    return results.wasNull() ? null : v;
  }

  @Override
  public List<SourceRow> next(int max) {
    List<SourceRow> out = new ArrayList<>(Math.min(max, 10_000));
    if (exhausted) {
      return out;
    }
    try {
      if (results == null) {
        open();
      }
      while (out.size() < max && results.next()) {
        row++;
        Object[] values = new Object[sourceTypes.length];
        for (int i = 0; i < values.length; i++) {
          try {
            values[i] = TypeMapping.convert(sourceTypes[i], schema.columns().get(i).type(), wire(i, sourceTypes[i]));
          } catch (UnconvertibleValueException | ArithmeticException e) {
            throw SourceErrors.badValue("The query's", row, schema.columns().get(i).name(), e.getMessage());
          }
        }
        out.add(new SourceRow(schema, values, new SourceRow.Origin(origin, false, row)));
      }
      if (out.size() < max) {
        exhausted = true;
      }
    } catch (SQLException e) {
      throw SourceErrors.queryFailed(safeUrl(url), row, reason(e), e);
    }
    return out;
  }

  /** The driver's message without its closing period (ours follows). */
  private static String reason(SQLException e) {
    String m = String.valueOf(e.getMessage()).strip();
    return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
  }

  @Override
  public void close() {
    try {
      if (results != null) results.close();
      if (statement != null) statement.close();
      if (connection != null) {
        connection.rollback();
        connection.close();
      }
    } catch (SQLException e) {
      // read only: nothing to lose
    }
  }
}
