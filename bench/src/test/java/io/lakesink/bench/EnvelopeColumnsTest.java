package io.lakesink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The floor writes what lakesink writes: for the benchmark's events, {@link EnvelopeColumns}
 * yields the columns and values of lakesink's changelog rows (the schemaless decoder's row image,
 * then the metadata columns but the partition column), row for row.
 */
class EnvelopeColumnsTest {
  private static final int EVENTS = 3_000;

  @Test
  void sameColumnsAndValuesAsLakesinksDecoder() throws Exception {
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    BenchEvents.generate(EVENTS, 1, (partition, key, value) -> {
      keys.add(key);
      values.add(value);
    });
    EnvelopeColumns columns = new EnvelopeColumns(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      columns.add(values.get(i), 0, i);
    }
    ColumnarBatch batch = columns.batch();
    assertEquals(EVENTS, batch.getSize());

    DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();
    List<ChangeEvent> events = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      events.add(decoder.decode(new SourcePosition("bench.p1", 0, i), keys.get(i), values.get(i)));
    }
    // The changelog's data columns: the row image, then the metadata but __ingest_date (a directory).
    List<Column> expected = new ArrayList<>(events.get(0).schema().columns());
    ChangelogColumns.METADATA.stream().filter(c -> !ChangelogColumns.PARTITION_COLUMNS.contains(c.name())).forEach(expected::add);
    List<StructField> fields = batch.getSchema().fields();
    assertEquals(expected.stream().map(Column::name).toList(), fields.stream().map(StructField::getName).toList());
    for (int c = 0; c < expected.size(); c++) {
      assertEquals(kernel(expected.get(c).type()), fields.get(c).getDataType(), fields.get(c).getName());
    }

    int deletes = 0;
    for (int row = 0; row < EVENTS; row++) {
      ChangeEvent e = events.get(row);
      for (int c = 0; c < e.schema().size(); c++) {
        assertEquals(e.value(expected.get(c).name()), value(batch.getColumnVector(c), row), "row " + row + ", " + expected.get(c).name());
      }
      int m = e.schema().size();
      assertEquals(e.op().code(), batch.getColumnVector(m).getString(row));
      assertEquals(e.isDelete(), batch.getColumnVector(m + 1).getBoolean(row));
      assertEquals(e.tsMs(), batch.getColumnVector(m + 2).getLong(row));
      assertEquals(0, batch.getColumnVector(m + 3).getInt(row));
      assertEquals(row, batch.getColumnVector(m + 4).getLong(row));
      deletes += e.isDelete() ? 1 : 0;
    }
    assertTrue(deletes > 0, "the events include deletes, whose image is 'before'");
  }

  @Test
  void floorWritesEveryEventOnceAFilePerFlush(@TempDir Path dir) throws Exception {
    ParquetFloorBench.run(2_500, 1_000, dir.resolve("data"), dir.resolve("floor.properties"));
    Properties r = ChangelogThroughputBench.load(dir.resolve("floor.properties"));
    assertEquals("2500", r.getProperty("rows"));
    assertEquals("3", r.getProperty("files"));
    assertEquals("true", r.getProperty("verified"));
    assertTrue(Double.parseDouble(r.getProperty("thread_cpu_seconds")) > 0, r.toString());
  }

  private static Object value(ColumnVector v, int row) {
    return v.isNullAt(row) ? null : v.getString(row);
  }

  private static DataType kernel(ColumnType type) {
    return Map.of(
            ColumnType.Kind.STRING, (DataType) StringType.STRING,
            ColumnType.Kind.BOOLEAN, BooleanType.BOOLEAN,
            ColumnType.Kind.BIGINT, LongType.LONG,
            ColumnType.Kind.INT, IntegerType.INTEGER)
        .get(type.kind());
  }
}
