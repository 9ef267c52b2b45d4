package io.lakesink.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.event.Column;
import io.lakesink.storage.ParsedOnceInputFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.HadoopReadOptions;

/**
 * Reads a few columns of a file with each live row's position in the file: what a merge with
 * deletion vectors reads to find the rows it replaces (the key and the ordering columns, not the
 * whole row). Rows the file's current deletion vector deletes are skipped. Only for unpartitioned
 * tables without column mapping (MERGE tables): the Parquet columns are the table's.
 *
 * <p>Thread-safe: a merge reads several files at once.
 */
public final class PositionedRowReader {
  private final Engine engine;
  private final String location;
  private final int width;
  private final List<Column> read;
  private final int[] slots;
  private final StructType schema;
  /** Whether every column read is an {@code int} or {@code bigint}, by name in the files: {@link IntegerColumns} can read them. */
  private final boolean integersOnly;
  /**
   * Hadoop's configuration for {@link IntegerColumns}, parsed once and only read by every lane.
   * Parquet's read options are built from it per file, not shared: they hold a codec factory whose
   * pooled decompressors are not thread-safe (two lanes closing their files at once failed in it
   * with a ConcurrentModificationException).
   */
  private final Configuration configuration;
  /** The table's footers, kept between merges. */
  private final ParquetFooters footers;
  private final AtomicInteger filesReadByPages = new AtomicInteger();

  /**
   * @param layout the caller's row layout (rows come back this wide)
   * @param wanted the columns to read, by name; those the table lacks read null
   */
  /**
   * @param byPages whether integer columns may be read by pages ({@link IntegerColumns}): not
   *     when the table maps its columns to physical names, which only Kernel's reader resolves
   * @param footers the table's Parquet footers read before, for {@link IntegerColumns}
   */
  PositionedRowReader(Engine engine, String location, List<Column> tableColumns, List<Column> layout, List<String> wanted,
      boolean byPages, ParquetFooters footers) {
    this.engine = engine;
    this.location = location;
    this.width = layout.size();
    List<Column> read = new ArrayList<>();
    List<Integer> slots = new ArrayList<>();
    for (String name : wanted) {
      for (Column c : tableColumns) {
        if (c.name().equals(name)) {
          read.add(c);
          slots.add(indexOf(layout, name));
        }
      }
    }
    this.read = List.copyOf(read);
    this.slots = slots.stream().mapToInt(Integer::intValue).toArray();
    this.schema = DeltaTypes.toReadStruct(read);
    this.integersOnly = byPages && read.stream().allMatch(
        c -> c.type().kind() == io.lakesink.event.ColumnType.Kind.INT || c.type().kind() == io.lakesink.event.ColumnType.Kind.BIGINT);
    this.configuration = integersOnly ? ParsedOnceInputFile.parsedCopy() : null;
    this.footers = footers;
  }

  private static int indexOf(List<Column> layout, String name) {
    for (int i = 0; i < layout.size(); i++) {
      if (layout.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("column " + name + " is not in the layout");
  }

  /** Receives a file's live rows, one at a time, in file order. */
  @FunctionalInterface
  public interface RowSink {
    /** @param row the wanted columns set, the rest null; a new array per row */
    void accept(Object[] row, long position);
  }

  /**
   * Streams a file's live rows (only the wanted columns set) with their positions, one Parquet
   * batch in memory at a time: what a merge holds of a file is what it keeps of the rows.
   */
  public void forEach(TableFile file, RowSink sink) {
    forEach(file, List.of(), probe -> true, sink);
  }

  /** Tests a row's integer key, read without boxing it. */
  @FunctionalInterface
  public interface LongKeyTest {
    /** @param isNull whether the row's key is null ({@code key} is then meaningless) */
    boolean wants(long key, boolean isNull);
  }

  /**
   * Like {@link #forEach(TableFile, List, java.util.function.Predicate, RowSink)} for a table keyed
   * on one {@code bigint} or {@code int} column: each row's key is read as a primitive and tested,
   * and only the rows {@code wants} are read whole. The scan of a file's keys is most of a merge's
   * work; a row object and a boxed key for every row of it cost several times the decoding.
   */
  public void forEachLongKey(TableFile file, String keyColumn, LongKeyTest wants, RowSink sink) {
    int key = -1;
    for (int c = 0; c < read.size(); c++) {
      if (read.get(c).name().equals(keyColumn)) {
        key = c;
      }
    }
    if (key < 0) {
      throw new IllegalArgumentException("column " + keyColumn + " is not read");
    }
    int k = key;
    if (integersOnly && engine instanceof KernelEngine.StorageEngine storage && scanIntegers(storage, file, k, wants, sink)) {
      return;
    }
    boolean isInt = read.get(key).type().kind() == io.lakesink.event.ColumnType.Kind.INT;
    scan(file, (b, r, position) -> {
      ColumnVector keys = b.getColumnVector(k);
      boolean isNull = keys.isNullAt(r);
      if (wants.wants(isNull ? 0 : isInt ? keys.getInt(r) : keys.getLong(r), isNull)) {
        sink.accept(whole(b, r, null, null), position);
      }
    });
  }

  /**
   * {@link #forEachLongKey} through {@link IntegerColumns} (every column read is an integer: the
   * key and the ordering columns): the key column of every live row, the other columns only for
   * the rows {@code wants}. False, having read nothing, when the file's columns are not ones it
   * decodes: Kernel reads the file then.
   */
  private boolean scanIntegers(KernelEngine.StorageEngine storage, TableFile file, int k, LongKeyTest wants, RowSink sink) {
    FileStatus status = InternalScanFileUtils.getAddFileStatus(file.scanRow);
    long[] deleted = DeletionVectorFile.deletedPositions(engine, location, file);
    try (IntegerColumns columns = IntegerColumns.open(
        new ParquetInput(storage.fileIO().newInputFile(status.getPath(), status.getSize())), HadoopReadOptions.builder(configuration).build(), read, footers,
        ParquetFooters.key(status.getPath(), status.getSize(), status.getModificationTime()))) {
      if (columns == null) {
        return false;
      }
      filesReadByPages.incrementAndGet();
      long position = 0;
      int nextDeleted = 0; // the deleted positions are sorted: walked along the rows, not looked up
      while (columns.nextRowGroup()) {
        long rows = columns.rows();
        boolean keyInFile = columns.holds(k); // known once a row group is open; without the column every key is null
        long r = 0;
        while (r < rows) {
          // A page of keys at a time, looped over in place: a call per row into the column reader
          // cost as much as the test of the key.
          int i = keyInFile ? columns.seek(k, r) : 0;
          int end = keyInFile ? columns.pageRows(k) : (int) Math.min(Integer.MAX_VALUE, rows - r);
          long[] keys = keyInFile ? columns.pageValues(k) : null;
          boolean[] nulls = keyInFile ? columns.pageNulls(k) : null;
          for (; i < end; i++, r++, position++) {
            if (nextDeleted < deleted.length && deleted[nextDeleted] == position) {
              nextDeleted++;
              continue;
            }
            boolean isNull = keys == null || (nulls != null && nulls[i]);
            if (wants.wants(isNull ? 0 : keys[i], isNull)) {
              sink.accept(row(columns, r), position);
            }
          }
        }
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
  }

  /** Row {@code r} of the row group, every column read, as a new array. */
  private Object[] row(IntegerColumns columns, long r) throws IOException {
    Object[] row = new Object[width];
    for (int c = 0; c < read.size(); c++) {
      if (!columns.isNull(c, r)) {
        long v = columns.value(c, r);
        row[slots[c]] = read.get(c).type().kind() == io.lakesink.event.ColumnType.Kind.INT ? (Object) (int) v : (Object) v;
      }
    }
    return row;
  }

  /** Files {@link #forEachLongKey} read by pages ({@link IntegerColumns}) rather than with Kernel. */
  int filesReadByPages() {
    return filesReadByPages.get();
  }

  /**
   * Like {@link #forEach(TableFile, RowSink)}, but only the {@code first} columns of each row are
   * read before {@code wants} decides whether the rest are: a merge looks at every row's key and
   * at the ordering columns of the few rows its batch changes, without a row of its own for the
   * others (most of a file).
   *
   * @param wants sees a row with only the {@code first} columns set, in an array it must not
   *     keep (it is reused for the next row)
   */
  public void forEach(TableFile file, List<String> first, java.util.function.Predicate<Object[]> wants, RowSink sink) {
    boolean[] early = new boolean[read.size()];
    for (int c = 0; c < early.length; c++) {
      early[c] = first.isEmpty() || first.contains(read.get(c).name());
    }
    Object[] probe = new Object[width];
    scan(file, (b, r, position) -> {
      for (int c = 0; c < early.length; c++) {
        if (early[c]) {
          probe[slots[c]] = DeltaTableReader.value(b.getColumnVector(c), read.get(c).type(), r);
        }
      }
      if (wants.test(probe)) {
        sink.accept(whole(b, r, probe, early), position);
      }
    });
  }

  /** One live row of a file: row {@code r} of a batch, at {@code position} in the file. */
  @FunctionalInterface
  private interface LiveRow {
    void visit(ColumnarBatch batch, int r, long position);
  }

  /** Visits the file's rows its deletion vector does not delete, one Parquet batch in memory at a time. */
  private void scan(TableFile file, LiveRow visitor) {
    long[] deleted = DeletionVectorFile.deletedPositions(engine, location, file);
    int nextDeleted = 0; // sorted: walked along the rows, not looked up
    long position = 0;
    try (CloseableIterator<ColumnarBatch> batches = engine.getParquetHandler()
        .readParquetFiles(
            Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(file.scanRow)), schema, Optional.empty())
        .map(FileReadResult::getData)) {
      while (batches.hasNext()) {
        ColumnarBatch b = batches.next();
        // Parquet hands a file's rows back in order, so a row's position is the count before it.
        for (int r = 0; r < b.getSize(); r++, position++) {
          if (nextDeleted < deleted.length && deleted[nextDeleted] == position) {
            nextDeleted++;
          } else {
            visitor.visit(b, r, position);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
  }

  /** Row {@code r} as a new array, taking the columns {@code known} marks from {@code probe}. */
  private Object[] whole(ColumnarBatch b, int r, Object[] probe, boolean[] known) {
    Object[] row = new Object[width];
    for (int c = 0; c < read.size(); c++) {
      row[slots[c]] = known != null && known[c] ? probe[slots[c]] : DeltaTableReader.value(b.getColumnVector(c), read.get(c).type(), r);
    }
    return row;
  }
}
