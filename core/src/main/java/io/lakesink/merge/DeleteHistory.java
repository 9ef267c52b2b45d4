package io.lakesink.merge;

import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.Collection;
import java.util.Map;

/**
 * Where the latest known delete of a key ranks: a merged table keeps no trace of a deleted row,
 * so an older change of that key read later (it moved between partitions) would otherwise bring
 * it back. MERGE delivery remembers recent deletes in memory ({@link DeletedKeys}); the table
 * kept from a changelog asks the changelog itself ({@link ChangelogDeletes}), which forgets nothing.
 */
interface DeleteHistory {
  /**
   * @param keys keys the table does not hold, whose batch change would insert them
   * @return for those of them with a known delete, where the latest ranks
   */
  Map<RowKey, ChangeOrder> deletedAt(Collection<RowKey> keys);

  /** True only when it certainly knows no delete: then no key is looked up. */
  boolean knowsNone();

  /**
   * Whether it forgets a key's delete once the key is written again, so the merge hands it the
   * keys it wrote ({@link TableMerge#remember(DeletedKeys)}); otherwise the merge does not collect
   * them (two hash insertions per key written, for nobody).
   */
  default boolean forgetsRewrittenKeys() {
    return false;
  }
}
