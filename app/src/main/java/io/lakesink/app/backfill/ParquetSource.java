package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillSource;
import io.lakesink.backfill.SourceRow;
import io.lakesink.event.Column;
import io.lakesink.event.RowSchema;
import io.lakesink.types.SourceType;
import io.lakesink.types.TypeMapping;
import io.lakesink.types.UnconvertibleValueException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Parquet files, row by row. Each column is typed from its Parquet type and logical type the way
 * the stream types an Avro field of the same logical type ({@code date}, {@code decimal(p,s)},
 * {@code timestamp-micros}, {@code time-millis}, …) and converted by the stream's
 * {@link TypeMapping}. Nested and repeated columns are delivered as their text.
 */
final class ParquetSource implements BackfillSource {
  private final List<Path> files;
  private int fileIndex = -1;
  private ParquetReader<Group> reader;
  private RowSchema schema;
  private SourceType[] sourceTypes;
  private String fileName;
  private long row;

  ParquetSource(List<Path> files) {
    this.files = List.copyOf(files);
  }

  @Override
  public String identity() {
    return "parquet " + files;
  }

  @Override
  public String describe() {
    return files.size() == 1 ? files.get(0).toString() : files.size() + " Parquet files (" + files.get(0) + ", …)";
  }

  /** From the files' footers. */
  @Override
  public OptionalLong estimatedRows() {
    long rows = 0;
    for (Path f : files) {
      try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
        rows += r.getRecordCount();
      } catch (IOException e) {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.of(rows);
  }

  @Override
  public List<SourceRow> next(int max) {
    List<SourceRow> out = new ArrayList<>(Math.min(max, 10_000));
    try {
      while (out.size() < max) {
        if (reader == null && !openNext()) {
          break;
        }
        Group g = reader.read();
        if (g == null) {
          reader.close();
          reader = null;
          continue;
        }
        row++;
        out.add(new SourceRow(schema, values(g), new SourceRow.Origin(fileName, false, row)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + files.get(fileIndex), e);
    }
    return out;
  }

  private boolean openNext() throws IOException {
    if (++fileIndex >= files.size()) {
      return false;
    }
    Path f = files.get(fileIndex);
    fileName = f.toString();
    row = 0; // rows are counted per file, as a user finds them again
    MessageType message;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f))) {
      message = r.getFooter().getFileMetaData().getSchema();
    }
    List<Column> columns = new ArrayList<>();
    sourceTypes = new SourceType[message.getFieldCount()];
    for (int i = 0; i < message.getFieldCount(); i++) {
      sourceTypes[i] = sourceType(message.getType(i));
      columns.add(new Column(message.getFieldName(i), TypeMapping.columnType(sourceTypes[i])));
    }
    RowSchema next = new RowSchema(columns, true);
    schema = next.equals(schema) ? schema : next; // one instance per shape: the renderer caches per instance
    reader = ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(f.toUri())).build();
    return true;
  }

  /** The type an Avro field of the same logical type has in the stream. */
  static SourceType sourceType(Type type) {
    if (!type.isPrimitive() || type.isRepetition(Type.Repetition.REPEATED)) {
      return SourceType.of("struct"); // text
    }
    PrimitiveType p = type.asPrimitiveType();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
      return new SourceType("bytes", "decimal", Map.of("precision", Integer.toString(d.getPrecision()), "scale", Integer.toString(d.getScale())));
    }
    if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      return new SourceType("int", "date", Map.of());
    }
    if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
      String unit = switch (t.getUnit()) {
        case MILLIS -> "millis";
        case MICROS -> "micros";
        case NANOS -> "nanos";
      };
      return new SourceType("long", (t.isAdjustedToUTC() ? "timestamp-" : "local-timestamp-") + unit, Map.of());
    }
    if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation t) {
      return new SourceType("long", switch (t.getUnit()) {
        case MILLIS -> "time-millis";
        case MICROS -> "time-micros";
        case NANOS -> TypeMapping.NANO_TIME;
      }, Map.of());
    }
    return switch (p.getPrimitiveTypeName()) {
      case BOOLEAN -> SourceType.of("boolean");
      case INT32 -> SourceType.of("int");
      case INT64 -> SourceType.of("long");
      case FLOAT -> SourceType.of("float");
      case DOUBLE -> SourceType.of("double");
      case INT96 -> new SourceType("long", "timestamp-nanos", Map.of()); // Spark's legacy timestamps
      case BINARY, FIXED_LEN_BYTE_ARRAY -> logical == null ? SourceType.of("bytes") : SourceType.of("string");
    };
  }

  private Object[] values(Group g) {
    GroupType type = g.getType();
    Object[] values = new Object[type.getFieldCount()];
    for (int i = 0; i < values.length; i++) {
      if (g.getFieldRepetitionCount(i) == 0) {
        continue; // null
      }
      Object wire = wire(g, i, type.getType(i), sourceTypes[i]);
      try {
        values[i] = TypeMapping.convert(sourceTypes[i], schema.columns().get(i).type(), wire);
      } catch (UnconvertibleValueException | ArithmeticException e) {
        throw SourceErrors.badValue(files.get(fileIndex).toString(), row, type.getFieldName(i), e.getMessage());
      }
    }
    return values;
  }

  /** The value as an Avro decoder hands it to {@link TypeMapping#convert}. */
  private static Object wire(Group g, int i, Type type, SourceType source) {
    if (!type.isPrimitive() || type.isRepetition(Type.Repetition.REPEATED)) {
      return g.getFieldRepetitionCount(i) == 1 && !type.isPrimitive() ? g.getGroup(i, 0).toString() : g.getValueToString(i, 0);
    }
    PrimitiveType p = type.asPrimitiveType();
    return switch (p.getPrimitiveTypeName()) {
      case BOOLEAN -> g.getBoolean(i, 0);
      case INT32 -> "decimal".equals(source.semanticName())
          ? BigDecimal.valueOf(g.getInteger(i, 0), Integer.parseInt(source.parameters().get("scale")))
          : (Object) g.getInteger(i, 0);
      case INT64 -> "decimal".equals(source.semanticName())
          ? BigDecimal.valueOf(g.getLong(i, 0), Integer.parseInt(source.parameters().get("scale")))
          : (Object) g.getLong(i, 0);
      case FLOAT -> g.getFloat(i, 0);
      case DOUBLE -> g.getDouble(i, 0);
      case INT96 -> int96Nanos(g.getInt96(i, 0).getBytes());
      case BINARY, FIXED_LEN_BYTE_ARRAY -> "decimal".equals(source.semanticName()) || "bytes".equals(source.baseType())
          ? g.getBinary(i, 0).getBytes()
          : g.getBinary(i, 0).toStringUsingUTF8();
    };
  }

  /** INT96: nanoseconds of the day, then the Julian day, little-endian. */
  private static long int96Nanos(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    long nanosOfDay = buf.getLong();
    long julianDay = Integer.toUnsignedLong(buf.getInt());
    return Math.addExact(Math.multiplyExact(julianDay - 2_440_588L, 86_400_000_000_000L), nanosOfDay);
  }

  @Override
  public void close() {
    try {
      if (reader != null) {
        reader.close();
      }
    } catch (IOException e) {
      // nothing was written through it
    }
  }
}
