package io.lakesink.maintenance;

import io.lakesink.delta.DeltaTable.CommitStats;
import io.lakesink.delta.TableFile;
import io.lakesink.error.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs that a MERGE table's declared primary key is wrong, logged once and shown in
 * {@code /status} until they clear: a key column that holds one value across the table, and
 * merges that keep rewriting most of a table many times bigger than the batch. Either makes
 * every batch rewrite most of the table. Maintenance adds its own here too (an optimization that
 * keeps losing to another writer): the table's one list of warnings.
 */
public final class KeyWarnings {
  private static final Logger log = LoggerFactory.getLogger(KeyWarnings.class);
  /** Fewer rows than this say nothing about a key column. */
  static final long MIN_ROWS = 100;

  private final String table;
  private final List<String> keyColumns;
  private final Map<String, String> warnings = new LinkedHashMap<>();

  public KeyWarnings(String table, List<String> keyColumns) {
    this.table = table;
    this.keyColumns = List.copyOf(keyColumns);
  }

  /** The current warnings, each saying what to do. */
  public synchronized List<String> current() {
    return new ArrayList<>(warnings.values());
  }

  /**
   * After a merge committed: it rewrote too much when it rewrote more than half of a table of
   * several files (of one file, rewriting it all is unavoidable) while receiving under a tenth of
   * the rows it rewrote. The warning stays until the table is optimized: a light merge in between
   * (new keys only) says nothing about the key.
   */
  public synchronized void merged(long received, CommitStats stats) {
    if (stats.tableFiles() > 1 && stats.rowsRewritten() * 2 > stats.tableRows() && received * 10 < stats.rowsRewritten()) {
      put("merge", Errors.mergeRewritesTooMuch(table, received, stats.rowsRewritten()));
    }
  }

  /** The table was optimized (clustered): merges get a fresh look. */
  public synchronized void optimized() {
    warnings.remove("merge");
  }

  /** After the table's files were listed: a key column whose statistics hold one value everywhere. */
  public synchronized void files(List<TableFile> files) {
    long rows = files.stream().mapToLong(f -> Math.max(0, f.rows())).sum();
    for (String column : keyColumns) {
      String id = "constant:" + column;
      Object value = files.isEmpty() ? null : files.get(0).min().get(column);
      boolean constant = rows >= MIN_ROWS && value != null
          && files.stream().allMatch(f -> value.equals(f.min().get(column)) && value.equals(f.max().get(column)));
      if (constant) {
        put(id, Errors.constantKeyColumn(table, column, value, rows));
      } else {
        warnings.remove(id);
      }
    }
  }

  /** Another warning about the table (maintenance's), under its own id. */
  synchronized void warn(String id, String warning) {
    put(id, warning);
  }

  synchronized void clear(String id) {
    warnings.remove(id);
  }

  /** Shown with its latest figures; logged once, when it appears. */
  private void put(String id, String warning) {
    if (warnings.put(id, warning) == null) {
      log.warn("{}", warning);
    }
  }
}
