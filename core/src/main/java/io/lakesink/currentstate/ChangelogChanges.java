package io.lakesink.currentstate;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.PositionedRowReader;
import io.lakesink.delta.TableFile;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.HeapEstimate;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Changelog rows turned back into the change events they record, for the MERGE engine: the
 * source columns as the row image, {@code __op} as the operation ({@code __deleted} makes a
 * delete of a row without one), {@code __ts_ms} and the Kafka position as its rank. A row
 * without a Kafka position (a backfill's) gets the lowest one, so it ranks below every streamed
 * change of the same time, as its nulls rank in the view; the kept table stores it as null again.
 *
 * <p>A file's rows are streamed one Parquet batch at a time, each on to the caller as it is read
 * ({@link #read(TableFile, Consumer)}), which reduces them ({@link LatestChanges}, reading them
 * as this class does) and makes change events of those it keeps ({@link #change}): a follow holds
 * what it keeps of the changes, not the file's rows as maps, nor all its changes at once (a
 * 200,000-row flush's rows as maps were as large again as its changes, at the heap's limit of a
 * worker that buffers its next flush meanwhile).
 *
 * <p>A file this worker's changelog writer just wrote is usually not read at all: its rows are
 * handed over in memory ({@link WrittenRows}), exactly as they were given to the Parquet writer.
 * They become the same changes as the file's rows read back, with one care: a key value is only
 * taken from memory when reading it back would give an equal value (a timestamp in whole
 * microseconds, a decimal at its column's scale, a string without surrogates, which UTF-8 cannot
 * carry unpaired); a file with any other key value is read. Values outside the key are written to
 * the table by the same writer as they were to the changelog, so they land the same either way.
 */
final class ChangelogChanges implements LatestChanges.Reading<Object[]> {
  /** Stands for a null {@code __partition} / {@code __offset}: below every real value. */
  static final int NO_PARTITION = Integer.MIN_VALUE;
  static final long NO_OFFSET = Long.MIN_VALUE;
  /** Rows whose heap is estimated one by one: the first ones, then one in this many ({@link #heapBytes}). */
  static final int SAMPLE_EVERY = 16;
  private static final String TRUNCATE = Operation.TRUNCATE.code();

  private final String label;
  private final DeltaTable changelog;
  /** The changelog's columns read from its files (all but the ingest date). */
  private final List<String> read;
  /** Made at the first file read: rows handed over (or being written) need none. */
  private PositionedRowReader reader;
  private final RowSchema schema;
  /** Where each source column, and each metadata column read, sits in a row read. */
  private final int[] sourceSlots;
  /** Whether the source columns are the row's first ones, in order (as the changelog writes them). */
  private final boolean sourcePrefix;
  private final int op;
  private final int deleted;
  private final int tsMs;
  private final int partition;
  private final int offset;
  /** Per source column: its repeated strings, shared by the rows a follow reads back. */
  private final SharedStrings[] shared;
  /** The changelog's columns, in table order: what a row read back is aligned with. */
  private final List<Column> columns;
  /** Where the key columns are in a row, and their types: what a handed-over row's keys are checked by. */
  private final int[] keySlots;
  private final ColumnType[] keyTypes;
  /** The rows of this worker's recent commits; null when there are none to look in. */
  private final WrittenRows written;
  /** Files applied from handed-over rows and files read, for tests and logs. */
  int filesHanded;
  int filesRead;
  /** Rows {@link #heapBytes} was asked for, and of them those it estimated, with their estimates' sum. */
  private long heapCalls;
  private long estimated;
  private long estimatedBytes;

  /**
   * @param label what positions name as their topic (in error messages)
   * @param columns the changelog's columns, at the version its files are read at
   * @param key the columns the kept table is kept on
   * @param written rows of recent commits to take instead of reading their files; null for none
   */
  ChangelogChanges(String label, DeltaTable changelog, List<Column> columns, List<String> key, WrittenRows written) {
    this.label = label;
    this.columns = List.copyOf(columns);
    List<String> names = columns.stream().map(Column::name).toList();
    this.written = written;
    this.keySlots = key.stream().mapToInt(names::indexOf).toArray();
    this.keyTypes = key.stream().map(k -> names.indexOf(k) < 0 ? null : columns.get(names.indexOf(k)).type())
        .toArray(ColumnType[]::new);
    List<Column> source = columns.stream().filter(c -> !ChangelogColumns.NAMES.contains(c.name())).toList();
    this.schema = new RowSchema(source, true);
    this.sourceSlots = source.stream().mapToInt(c -> names.indexOf(c.name())).toArray();
    this.sourcePrefix = java.util.stream.IntStream.range(0, sourceSlots.length).allMatch(i -> sourceSlots[i] == i);
    this.op = names.indexOf(ChangelogColumns.OP);
    this.deleted = names.indexOf(ChangelogColumns.DELETED);
    this.tsMs = names.indexOf(ChangelogColumns.TS_MS);
    this.partition = names.indexOf(ChangelogColumns.PARTITION);
    this.offset = names.indexOf(ChangelogColumns.OFFSET);
    this.shared = new SharedStrings[sourceSlots.length];
    for (int i = 0; i < shared.length; i++) {
      shared[i] = new SharedStrings();
    }
    // Every column but the ingest date: a partition value, not in the files, and not needed.
    this.read = names.stream().filter(n -> !ChangelogColumns.PARTITION_COLUMNS.contains(n)).toList();
    this.changelog = changelog;
  }

  /**
   * Hands each row of one changelog file to {@code sink}, in file order, as it is read: aligned
   * with the changelog's columns or a prefix of them (a handed-over row written before a column
   * was added ends before it). Read by this class's {@link LatestChanges.Reading} methods, made a
   * change by {@link #change}; never changed.
   */
  void read(TableFile file, Consumer<Object[]> sink) {
    WrittenRows.Written w = written == null ? null : written.take(file.path());
    if (w != null && sameAsReadBack(w)) {
      filesHanded++;
      w.rows().forEach(sink);
      return;
    }
    filesRead++;
    if (reader == null) {
      reader = changelog.positionedReader(columns, read);
    }
    reader.forEach(file, (row, position) -> sink.accept(shareStrings(row)));
  }

  /**
   * A row read back from a file with its source columns' repeated strings made the ones read
   * before ({@link SharedStrings}): a read makes a string of its own for every value. A row handed
   * over needs none of it: its strings are the decoder's, which makes one string for a value that
   * repeats already, and looking each of them up again was a thirtieth of a follow.
   */
  private Object[] shareStrings(Object[] row) {
    for (int i = 0; i < sourceSlots.length; i++) {
      int slot = sourceSlots[i];
      if (slot >= 0 && slot < row.length) {
        row[slot] = shared[i].of(row[slot]);
      }
    }
    return row;
  }

  @Override
  public Object keyOf(Object[] row) {
    if (at(row, partition) == null || at(row, offset) == null || TRUNCATE.equals(at(row, op))) {
      return null;
    }
    return LatestChanges.keyOf(row, keySlots);
  }

  @Override
  public int partition(Object[] row) {
    Object p = at(row, partition);
    return p == null ? NO_PARTITION : ((Number) p).intValue();
  }

  @Override
  public long offset(Object[] row) {
    Object o = at(row, offset);
    return o == null ? NO_OFFSET : ((Number) o).longValue();
  }

  @Override
  public Long tsMs(Object[] row) {
    Object ts = at(row, tsMs);
    // The column is a BIGINT, so the value is a Long already (read back or handed over): not boxed
    // again, which cost an object per call, and the reduction compares times several times per row.
    return ts == null ? null : ts instanceof Long l ? l : Long.valueOf(((Number) ts).longValue());
  }

  /**
   * As the change event the row becomes ({@link #change}): its source values and the event around
   * them. The row's metadata columns are not counted: only the event is kept, and it holds none of
   * them but the time (counting all seventeen values of the benchmark's rows made the estimate
   * about a sixth higher, and cost a twenty-fifth of a follow's CPU).
   */
  @Override
  public long heapBytes(Object[] row) {
    // One row in SAMPLE_EVERY is looked at, the others take the average: looking at a row follows
    // each of its values, scattered over the heap by then (a twentieth of a follow), for a figure
    // the buffer budget only needs about right, and a table's rows are alike.
    if (estimated < SAMPLE_EVERY || heapCalls % SAMPLE_EVERY == 0) {
      estimatedBytes += HeapEstimate.ofEventAt(row, sourceSlots);
      estimated++;
    }
    heapCalls++;
    return estimatedBytes / estimated;
  }

  /** Whether {@code rows}, aligned with {@code rowColumns}, give the changes their file's rows would when read back. */
  boolean readBackEqual(List<Column> rowColumns, List<Object[]> rows) {
    return sameAsReadBack(new WrittenRows.Written(-1, rowColumns, rows));
  }

  /**
   * Whether the handed-over rows give the changes the file's rows would: aligned with a prefix of
   * the changelog's columns now (columns are only ever added at the end; a row written before one
   * was added reads null in it), and every key value one that reads back equal.
   */
  private boolean sameAsReadBack(WrittenRows.Written w) {
    if (!w.alignedWith(columns)) {
      return false;
    }
    for (int k = 0; k < keySlots.length; k++) {
      int slot = keySlots[k];
      if (slot < 0) {
        return false; // a key not found by its name: nothing to check it by, so the file is read
      }
      if (slot >= w.columns().size()) {
        continue; // a key column added after these rows were written: null in them, as read back
      }
      for (Object[] row : w.rows()) {
        if (!readsBackEqual(row[slot], keyTypes[k])) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether a value given to the Parquet writer as a column of this type is read back equal to itself. */
  static boolean readsBackEqual(Object v, ColumnType type) {
    if (v == null) {
      return true;
    }
    return switch (type.kind()) {
      case BOOLEAN -> v instanceof Boolean;
      case INT -> v instanceof Integer;
      case BIGINT -> v instanceof Long;
      case FLOAT -> v instanceof Float;
      case DOUBLE -> v instanceof Double;
      case DATE -> v instanceof LocalDate;
      case DECIMAL -> v instanceof BigDecimal d && d.scale() == type.scale();
      case TIMESTAMP -> v instanceof Instant i && i.getNano() % 1000 == 0;
      case STRING -> v instanceof String s && !io.lakesink.event.StringOrder.hasSurrogate(s);
    };
  }

  /** The change a changelog row records. */
  ChangeEvent change(Object[] row) {
    SourcePosition position = new SourcePosition(label, partition(row), offset(row));
    Long time = tsMs(row);
    Operation operation = Operation.fromCode((String) at(row, op));
    if (operation == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, time, 0);
    }
    if (Boolean.TRUE.equals(at(row, deleted))) {
      operation = Operation.DELETE; // the view filters on __deleted, whatever __op says
    } else if (operation == Operation.DELETE) {
      operation = Operation.UPDATE; // not deleted in the changelog: the view shows it
    }
    Object[] values;
    if (sourcePrefix && row.length >= sourceSlots.length) {
      values = Arrays.copyOf(row, sourceSlots.length); // one copy of a block, not a value at a time
    } else {
      values = new Object[sourceSlots.length];
      for (int i = 0; i < values.length; i++) {
        values[i] = at(row, sourceSlots[i]);
      }
    }
    return new ChangeEvent(position, operation, time, schema, values, List.of(), 0);
  }

  /** A row's value in a slot; null for a column the row predates (a handed-over row written before it was added). */
  private static Object at(Object[] row, int slot) {
    return slot < 0 || slot >= row.length ? null : row[slot];
  }

  /**
   * One column's strings, each value kept once while the column has few distinct ones (a status,
   * a currency, a country, a flag): a follow holds up to a commit's changes at once, beside the
   * worker's buffers, and such a column's strings read back from files were each a string and an
   * array of their own (a third of what the benchmark's changes held before the decoder shared
   * them). A column past {@link #LIMIT} distinct values (an id, a time) is left as read from then on.
   */
  static final class SharedStrings {
    static final int LIMIT = 1024;
    private Map<String, String> values = new HashMap<>();

    Object of(Object value) {
      if (values == null || !(value instanceof String s)) {
        return value;
      }
      String kept = values.putIfAbsent(s, s);
      if (kept != null) {
        return kept;
      }
      if (values.size() > LIMIT) {
        values = null; // many distinct values: sharing saves little, the lookups would cost on every row
      }
      return s;
    }
  }
}
