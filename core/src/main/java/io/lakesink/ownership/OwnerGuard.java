package io.lakesink.ownership;

import io.lakesink.delta.CommitGuard;
import io.lakesink.error.Errors;
import java.util.Map;

/**
 * A worker commits to a table only while the table's owner is the catalog entry it registers
 * the table as (or while no catalog owns the table yet: a table from before ownership was
 * recorded, adopted at start). A table owned by another entry, or fenced by a hand-off, is
 * never written: a commit against it fails as a table failure, so the table is quarantined
 * with its offsets frozen instead of being forked between two owners.
 */
public final class OwnerGuard implements CommitGuard {
  /** The epoch a table starts with. */
  public static final long FIRST_EPOCH = 1;

  private final String table;
  private final OwnerIdentity identity; // null: this worker has no catalog

  /**
   * @param table the table's name, for messages
   * @param identity the entry this worker registers the table as; null without a catalog
   */
  public OwnerGuard(String table, OwnerIdentity identity) {
    this.table = table;
    this.identity = identity;
  }

  @Override
  public void check(Map<String, String> tableProperties) {
    TableOwner.of(tableProperties).ifPresent(this::check);
  }

  /** @throws io.lakesink.error.TableFailureException when {@code owner} is not this worker's entry */
  public void check(TableOwner owner) {
    if (owner.state() == TableOwner.State.HANDING_OFF) {
      throw Errors.tableBeingHandedOff(table, owner.describe(), owner.handingOffTo());
    }
    if (identity == null || !owner.is(identity)) {
      throw Errors.tableOwnedElsewhere(table, owner.describe(), identity == null ? null : identity.target(),
          owner.catalog() + "." + owner.entry());
    }
  }

  @Override
  public Map<String, String> creationProperties() {
    return identity == null ? Map.of() : TableOwner.registering(identity.catalog(), identity.entry(), FIRST_EPOCH).properties();
  }
}
