package io.lakesink.delta;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the files of one snapshot straight into rows laid out as the caller's columns: each
 * Parquet batch is copied column by column into the row arrays, with no map per row (a MERGE
 * reads whole files, and a map per row cost several times the rows themselves). Columns the
 * table lacks, or a file predates, read null.
 *
 * <p>Repeated strings (a status, a currency, {@code __op}: what makes CDC tables compress so well
 * on disk) are held once per file rather than once per row: Parquet's dictionary gives each row
 * its own copy, and those copies were most of a merge's memory.
 *
 * <p>Thread-safe: a merge reads one file while it writes another.
 */
public final class FileRowReader {
  private final Engine engine;
  private final Row scanState;
  private final String location;
  private final List<Column> columns;
  private final Map<String, Integer> slots = new HashMap<>();

  FileRowReader(Engine engine, Row scanState, String location, List<Column> columns) {
    this.engine = engine;
    this.scanState = scanState;
    this.location = location;
    this.columns = List.copyOf(columns);
    for (int i = 0; i < columns.size(); i++) {
      slots.put(columns.get(i).name(), i);
    }
  }

  /**
   * Distinct strings kept per column and file for sharing: enough for the low-cardinality
   * columns that repeat, small enough that a column of unique values costs little.
   */
  static final int SHARED_STRINGS = 4096;

  /** The file's rows, each an array aligned with the reader's columns. */
  public List<Object[]> read(TableFile file) {
    List<Object[]> rows = file.rows() > 0 && file.rows() < Integer.MAX_VALUE
        ? new ArrayList<>((int) file.rows()) : new ArrayList<>();
    Map<String, Map<String, String>> shared = new HashMap<>();
    try (CloseableIterator<FilteredColumnarBatch> batches = DeltaTableReader.logicalBatches(engine, scanState, file.scanRow)) {
      while (batches.hasNext()) {
        collect(batches.next(), rows, shared);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + location, e);
    }
    return rows;
  }

  private void collect(FilteredColumnarBatch filtered, List<Object[]> out, Map<String, Map<String, String>> shared) {
    ColumnarBatch batch = filtered.getData();
    int size = batch.getSize();
    // Kernel marks rows a deletion vector removed in the selection vector; lakesink writes none,
    // but a table another engine wrote may have them.
    int[] selected = selected(filtered.getSelectionVector(), size);
    int n = selected == null ? size : selected.length;
    Object[][] rows = new Object[n][];
    for (int r = 0; r < n; r++) {
      rows[r] = new Object[columns.size()];
    }
    List<Column> stored = DeltaTypes.fromStruct(batch.getSchema());
    for (int c = 0; c < stored.size(); c++) {
      Integer slot = slots.get(stored.get(c).name());
      if (slot == null) {
        continue;
      }
      ColumnVector vector = batch.getColumnVector(c);
      ColumnType type = stored.get(c).type();
      if (type.kind() == ColumnType.Kind.STRING) {
        Map<String, String> strings = shared.computeIfAbsent(stored.get(c).name(), k -> new HashMap<>());
        for (int r = 0; r < n; r++) {
          rows[r][slot] = share(strings, (String) DeltaTableReader.value(vector, type, selected == null ? r : selected[r]));
        }
        continue;
      }
      for (int r = 0; r < n; r++) {
        rows[r][slot] = DeltaTableReader.value(vector, type, selected == null ? r : selected[r]);
      }
    }
    for (Object[] row : rows) {
      out.add(row);
    }
  }

  private static String share(Map<String, String> strings, String s) {
    if (s == null) {
      return null;
    }
    String known = strings.get(s);
    if (known != null) {
      return known;
    }
    if (strings.size() < SHARED_STRINGS) {
      strings.put(s, s);
    }
    return s;
  }

  /** The selected row ids, or null when every row is selected. */
  private static int[] selected(Optional<ColumnVector> selection, int size) {
    if (selection.isEmpty()) {
      return null;
    }
    ColumnVector s = selection.get();
    int[] ids = new int[size];
    int n = 0;
    for (int r = 0; r < size; r++) {
      if (!s.isNullAt(r) && s.getBoolean(r)) {
        ids[n++] = r;
      }
    }
    return java.util.Arrays.copyOf(ids, n);
  }
}
