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
import java.nio.charset.StandardCharsets;
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
  /** Whether every column read is an {@code int}, {@code bigint}, {@code boolean} or {@code string}, by name in the files: {@link PageColumns} can read them. */
  private final boolean pageReadable;
  /**
   * Hadoop's configuration for {@link PageColumns}, parsed once and only read by every lane.
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
   * @param byPages whether key and ordering columns may be read by pages ({@link PageColumns}): not
   *     when the table maps its columns to physical names, which only Kernel's reader resolves
   * @param footers the table's Parquet footers read before, for {@link PageColumns}
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
    this.pageReadable = byPages && read.stream().allMatch(c -> switch (c.type().kind()) {
      case INT, BIGINT, STRING, BOOLEAN -> true;
      default -> false;
    });
    this.configuration = pageReadable ? ParsedOnceInputFile.parsedCopy() : null;
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
   * work; a row object and a boxed key for every row of it cost several times the decoding. A
   * wanted row goes to {@code sink} right after its test, before the next row is tested.
   */
  public void forEachLongKey(TableFile file, String keyColumn, LongKeyTest wants, RowSink sink) {
    int k = readIndex(keyColumn);
    if (scanPages(file, k, numberProbe(k, wants), sink)) {
      return;
    }
    boolean isInt = read.get(k).type().kind() == io.lakesink.event.ColumnType.Kind.INT;
    scan(file, (b, r, position) -> {
      ColumnVector keys = b.getColumnVector(k);
      boolean isNull = keys.isNullAt(r);
      if (wants.wants(isNull ? 0 : isInt ? keys.getInt(r) : keys.getLong(r), isNull)) {
        sink.accept(whole(b, r, null, null), position);
      }
    });
  }

  /** Tests a row's string key by its UTF-8 bytes, without a {@code String} per row. */
  @FunctionalInterface
  public interface Utf8KeyTest {
    /**
     * @param utf8 holds the key's UTF-8 bytes, {@code length} of them from {@code offset}; only
     *     valid during the call
     * @param isNull whether the row's key is null (the bytes are then meaningless)
     * @return the key the row read whole holds when the row is wanted (a string equal to the
     *     bytes decoded, usually the caller's own), null when it is not
     */
    String wants(byte[] utf8, int offset, int length, boolean isNull);
  }

  /**
   * Like {@link #forEachLongKey} for a table keyed on one {@code string} column: each row's key is
   * tested as the UTF-8 bytes the file holds, and only the rows {@code wants} are read whole, with
   * the key it returns. Reading every row's key as a {@code String} through Kernel was a third of a
   * kept table's follow, keyed on a string. A wanted row goes to {@code sink} right after its test,
   * before the next row is tested: a caller may hand what its test found to its sink.
   */
  public void forEachStringKey(TableFile file, String keyColumn, Utf8KeyTest wants, RowSink sink) {
    int k = readIndex(keyColumn);
    if (scanPages(file, k, new KeyProbe() {
      private byte[] bytes;
      private int[] starts;
      private int[] lengths;

      @Override
      void page(PageColumns columns) {
        bytes = columns.pageBytes(k);
        starts = columns.pageStarts(k);
        lengths = columns.pageLengths(k);
      }

      @Override
      Object test(int i, boolean isNull) {
        return isNull ? wants.wants(null, 0, 0, true) : wants.wants(bytes, starts[i], lengths[i], false);
      }
    }, sink)) {
      return;
    }
    scan(file, (b, r, position) -> {
      ColumnVector keys = b.getColumnVector(k);
      boolean isNull = keys.isNullAt(r);
      // Strings are read as their bytes (DeltaTypes.toReadStruct): tested as they are.
      byte[] utf8 = isNull ? null
          : keys.getDataType() instanceof io.delta.kernel.types.BinaryType ? keys.getBinary(r) : keys.getString(r).getBytes(StandardCharsets.UTF_8);
      String key = wants.wants(utf8, 0, isNull ? 0 : utf8.length, isNull);
      if (key != null) {
        Object[] row = whole(b, r, null, null);
        row[slots[k]] = key;
        sink.accept(row, position);
      }
    });
  }

  /**
   * Streams a file's live rows whose {@code boolean} column {@code flag} is true (every column
   * read), the flag tested page by page ({@link PageColumns}) before a row is made: what a lookup
   * of a changelog's deletes reads ({@code __deleted}, true in few rows).
   */
  public void forEachFlagged(TableFile file, String flag, RowSink sink) {
    int k = readIndex(flag);
    // A boolean page's values read 0 or 1 (PageColumns.pageValues).
    if (scanPages(file, k, numberProbe(k, (value, isNull) -> !isNull && value != 0), sink)) {
      return;
    }
    scan(file, (b, r, position) -> {
      ColumnVector flags = b.getColumnVector(k);
      if (!flags.isNullAt(r) && flags.getBoolean(r)) {
        sink.accept(whole(b, r, null, null), position);
      }
    });
  }

  /** Where column {@code name} is among the columns read. */
  private int readIndex(String name) {
    for (int c = 0; c < read.size(); c++) {
      if (read.get(c).name().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException("column " + name + " is not read");
  }

  /** What the key slot of a row read whole holds: the value read. */
  private static final Object AS_READ = new Object();

  /** A probe of column {@code k}'s values as numbers (an integer, or a boolean as 0 or 1), rows kept as read. */
  private static KeyProbe numberProbe(int k, LongKeyTest wants) {
    return new KeyProbe() {
      private long[] values;

      @Override
      void page(PageColumns columns) {
        values = columns.pageValues(k);
      }

      @Override
      Object test(int i, boolean isNull) {
        return wants.wants(isNull ? 0 : values[i], isNull) ? AS_READ : null;
      }
    };
  }

  /** Tests the keys of the key column's current page, one row at a time. */
  private abstract static class KeyProbe {
    /** Takes the key column's current page (the key column is in the file). */
    abstract void page(PageColumns columns);

    /** Row {@code i} of the current page: null when not wanted, else what the row's key slot holds ({@link #AS_READ}: as read). */
    abstract Object test(int i, boolean isNull);
  }

  /**
   * Reads the file through {@link PageColumns} (every column read is one it decodes): the key
   * column of every live row, tested by {@code probe}, the other columns only for the rows it
   * wants. False, having read nothing, when the file's columns are not ones it decodes (or the
   * table maps its column names): Kernel reads the file then.
   */
  private boolean scanPages(TableFile file, int k, KeyProbe probe, RowSink sink) {
    if (!pageReadable || !(engine instanceof KernelEngine.StorageEngine storage)) {
      return false;
    }
    FileStatus status = InternalScanFileUtils.getAddFileStatus(file.scanRow);
    long[] deleted = DeletionVectorFile.deletedPositions(engine, location, file);
    try (PageColumns columns = PageColumns.open(
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
          boolean[] nulls = keyInFile ? columns.pageNulls(k) : null;
          if (keyInFile) {
            probe.page(columns);
          }
          for (; i < end; i++, r++, position++) {
            if (nextDeleted < deleted.length && deleted[nextDeleted] == position) {
              nextDeleted++;
              continue;
            }
            Object key = probe.test(i, !keyInFile || (nulls != null && nulls[i]));
            if (key != null) {
              Object[] row = row(columns, r, key == AS_READ ? -1 : k);
              if (key != AS_READ) {
                row[slots[k]] = key;
              }
              sink.accept(row, position);
            }
          }
        }
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
  }

  /** Row {@code r} of the row group, every column read but {@code skip} (-1: none), as a new array. */
  private Object[] row(PageColumns columns, long r, int skip) throws IOException {
    Object[] row = new Object[width];
    for (int c = 0; c < read.size(); c++) {
      if (c != skip && !columns.isNull(c, r)) {
        row[slots[c]] = switch (read.get(c).type().kind()) {
          case INT -> (Object) (int) columns.value(c, r);
          case STRING -> columns.string(c, r);
          case BOOLEAN -> (Object) (columns.value(c, r) != 0);
          default -> (Object) columns.value(c, r);
        };
      }
    }
    return row;
  }

  /** Files {@link #forEachLongKey}, {@link #forEachStringKey} and {@link #forEachFlagged} read by pages ({@link PageColumns}) rather than with Kernel. */
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
