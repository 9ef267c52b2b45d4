package io.lakesink.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The floor's decoder: schemaless Debezium envelopes read with Jackson's streaming parser straight
 * into one array per column, then seen by Kernel's Parquet writer as a {@link ColumnarBatch}. The
 * columns are the data columns of lakesink's changelog table: the row image (every value as its
 * JSON text, as lakesink's schemaless decoder reads it), then {@code __op}, {@code __deleted},
 * {@code __ts_ms}, {@code __partition}, {@code __offset} ({@code __ingest_date} is the partition
 * directory, not a column of the files). No tree, no boxed row, no record key: the least work
 * that yields the same files.
 */
final class EnvelopeColumns {
  private static final JsonFactory JSON = new JsonFactory();

  private final int capacity;
  /** Image columns in order of first appearance, and each one's index. */
  private final List<String> names = new ArrayList<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final List<String[]> values = new ArrayList<>();
  private final String[] op;
  private final boolean[] deleted;
  private final long[] tsMs;
  private final boolean[] tsMissing;
  private final int[] partition;
  private final long[] offset;
  private String[] before = new String[0];
  private String[] after = new String[0];
  private int size;

  EnvelopeColumns(int capacity) {
    this.capacity = capacity;
    op = new String[capacity];
    deleted = new boolean[capacity];
    tsMs = new long[capacity];
    tsMissing = new boolean[capacity];
    partition = new int[capacity];
    offset = new long[capacity];
  }

  int size() {
    return size;
  }

  /** Starts a new batch; the columns seen so far stay, as a table's schema does. */
  void clear() {
    size = 0;
    values.forEach(v -> Arrays.fill(v, null));
  }

  /** Decodes one envelope into the next row. */
  void add(byte[] envelope, int kafkaPartition, long kafkaOffset) throws IOException {
    if (size == capacity) {
      throw new IllegalStateException("batch full (" + capacity + " rows)");
    }
    boolean hasBefore = false;
    boolean hasAfter = false;
    String code = null;
    long sourceTs = Long.MIN_VALUE;
    long envelopeTs = Long.MIN_VALUE;
    try (JsonParser p = JSON.createParser(envelope)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        switch (field) {
          // The envelope holds 'before' and 'after' before 'op': both images are read, then
          // the one the operation names is kept.
          case "before" -> hasBefore = image(p, t, true);
          case "after" -> hasAfter = image(p, t, false);
          case "op" -> code = t == JsonToken.VALUE_NULL ? null : p.getText();
          case "ts_ms" -> envelopeTs = t == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : Long.MIN_VALUE;
          case "source" -> sourceTs = sourceTsMs(p, t);
          default -> p.skipChildren();
        }
      }
    }
    String opCode = constant(code);
    boolean delete = "d".equals(opCode);
    String[] image = delete ? before : after;
    if (delete ? !hasBefore : !hasAfter) {
      throw new IOException("the floor reads only envelopes whose '" + (delete ? "before" : "after") + "' image is present");
    }
    for (int c = 0; c < values.size(); c++) {
      values.get(c)[size] = c < image.length ? image[c] : null;
    }
    op[size] = opCode;
    deleted[size] = delete;
    // lakesink's change time: source.ts_ms, else the envelope's ts_ms.
    long ts = sourceTs != Long.MIN_VALUE ? sourceTs : envelopeTs;
    tsMs[size] = ts;
    tsMissing[size] = ts == Long.MIN_VALUE;
    partition[size] = kafkaPartition;
    offset[size] = kafkaOffset;
    size++;
  }

  /** Reads a flat row image into the scratch array of 'before' or 'after'; false if null. */
  private boolean image(JsonParser p, JsonToken t, boolean isBefore) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return false;
    }
    expect(t, JsonToken.START_OBJECT);
    String[] scratch = isBefore ? before : after;
    Arrays.fill(scratch, null);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
        throw new IOException("the floor reads flat row images only; column " + name + " is nested");
      }
      int c = column(name);
      if (c >= scratch.length) {
        scratch = Arrays.copyOf(scratch, values.size());
        if (isBefore) {
          before = scratch;
        } else {
          after = scratch;
        }
      }
      scratch[c] = v == JsonToken.VALUE_NULL ? null : p.getText(); // numbers as written, as lakesink reads them
    }
    return true;
  }

  private int column(String name) {
    Integer c = index.get(name);
    if (c == null) {
      c = names.size();
      names.add(name);
      index.put(name, c);
      values.add(new String[capacity]); // rows before its first appearance read null
    }
    return c;
  }

  private static long sourceTsMs(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return Long.MIN_VALUE;
    }
    long ts = Long.MIN_VALUE;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if (field.equals("ts_ms") && v == JsonToken.VALUE_NUMBER_INT) {
        ts = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return ts;
  }

  /** The operation as the constant lakesink writes ({@code Operation.code()}), not a new string per row. */
  private static String constant(String code) throws IOException {
    if (code == null) {
      throw new IOException("an envelope without 'op'");
    }
    return switch (code) {
      case "c" -> "c";
      case "u" -> "u";
      case "d" -> "d";
      case "r" -> "r";
      default -> throw new IOException("unknown operation " + code);
    };
  }

  private static void expect(JsonToken actual, JsonToken expected) throws IOException {
    if (actual != expected) {
      throw new IOException("expected " + expected + ", found " + actual);
    }
  }

  /** The rows decoded so far as Kernel columns, in the order lakesink's changelog files hold them. */
  ColumnarBatch batch() {
    StructType schema = new StructType();
    List<ColumnVector> vectors = new ArrayList<>();
    for (int c = 0; c < names.size(); c++) {
      schema = schema.add(names.get(c), StringType.STRING);
      vectors.add(new Strings(values.get(c), size));
    }
    schema = schema.add("__op", StringType.STRING).add("__deleted", BooleanType.BOOLEAN).add("__ts_ms", LongType.LONG)
        .add("__partition", IntegerType.INTEGER).add("__offset", LongType.LONG);
    vectors.add(new Strings(op, size));
    vectors.add(new Primitive(BooleanType.BOOLEAN, size, null) {
      @Override
      public boolean getBoolean(int rowId) {
        return deleted[rowId];
      }
    });
    vectors.add(new Primitive(LongType.LONG, size, tsMissing) {
      @Override
      public long getLong(int rowId) {
        return tsMs[rowId];
      }
    });
    vectors.add(new Primitive(IntegerType.INTEGER, size, null) {
      @Override
      public int getInt(int rowId) {
        return partition[rowId];
      }
    });
    vectors.add(new Primitive(LongType.LONG, size, null) {
      @Override
      public long getLong(int rowId) {
        return offset[rowId];
      }
    });
    StructType finalSchema = schema;
    ColumnVector[] columns = vectors.toArray(ColumnVector[]::new);
    int rows = size;
    return new ColumnarBatch() {
      @Override
      public StructType getSchema() {
        return finalSchema;
      }

      @Override
      public ColumnVector getColumnVector(int ordinal) {
        return columns[ordinal];
      }

      @Override
      public int getSize() {
        return rows;
      }
    };
  }

  private record Strings(String[] values, int size) implements ColumnVector {
    @Override
    public DataType getDataType() {
      return StringType.STRING;
    }

    @Override
    public int getSize() {
      return size;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
      return values[rowId] == null;
    }

    @Override
    public String getString(int rowId) {
      return values[rowId];
    }
  }

  /** A primitive column; the subclass reads the value, {@code nulls} (or none) says which are null. */
  private abstract static class Primitive implements ColumnVector {
    private final DataType type;
    private final int size;
    private final boolean[] nulls;

    Primitive(DataType type, int size, boolean[] nulls) {
      this.type = type;
      this.size = size;
      this.nulls = nulls;
    }

    @Override
    public DataType getDataType() {
      return type;
    }

    @Override
    public int getSize() {
      return size;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
      return nulls != null && nulls[rowId];
    }
  }
}
