package io.lakesink.backfill;

import java.util.List;
import java.util.OptionalLong;

/**
 * Where backfill rows come from: a query, files of rows. Read in order and in bounded batches,
 * so a backfill of years of history holds one batch in memory; the same source read again
 * yields the same rows in the same order, which is what lets a backfill resume at a position.
 */
public interface BackfillSource extends AutoCloseable {

  /**
   * What the source reads, for the default backfill id: the same source gives the same text
   * (a query and a database address, file paths). Never a credential.
   */
  String identity();

  /** The source, for messages and progress (never a credential). */
  String describe();

  /** How many rows the whole source holds, when it can tell cheaply. */
  OptionalLong estimatedRows();

  /** Passes over the first rows (a resumed backfill already committed them). */
  default void skip(long rows) {
    long left = rows;
    while (left > 0) {
      int n = next((int) Math.min(left, 10_000)).size();
      if (n == 0) {
        return;
      }
      left -= n;
    }
  }

  /** The next rows, at most {@code max}; empty once the source is exhausted. */
  List<SourceRow> next(int max);

  @Override
  void close();
}
