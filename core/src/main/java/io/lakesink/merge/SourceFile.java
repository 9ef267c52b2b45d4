package io.lakesink.merge;

import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * A data file of another table that holds rows of a batch exactly as the merge writes them: for
 * a kept current-state table, the changelog's file its changes were read from. The commit takes
 * the file over ({@link DeltaTable.PendingWrite#takeOver}) with a deletion vector keeping only
 * those rows, instead of encoding them into a Parquet file again (they were half of what keeping
 * the table cost).
 */
public interface SourceFile {
  /**
   * Where each row to write (aligned with {@code columns}) sits in the file: its position when
   * the file holds it with equal values in every one of those columns it has (a column it lacks
   * must read null from it, as the merge takes it), else -1. Null when no row can be taken (the
   * file's columns differ in type).
   */
  ToLongFunction<Object[]> positions(List<Column> columns);

  /**
   * The file, called once the commit is about to be made (an early follow's file is being
   * written until then); empty when it cannot be taken after all: its rows are then written.
   */
  Optional<Held> file();

  /** A table's data file, with exactly the rows {@link #positions} answered for. */
  record Held(DeltaTable table, TableFile file) {}
}
