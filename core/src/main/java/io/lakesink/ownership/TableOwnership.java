package io.lakesink.ownership;

import io.lakesink.delta.DeltaTable;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's ownership as its delivery sees it, on the delivery thread: before each
 * registration the owner recorded in the table decides whether this worker may register it at
 * all, and whether it may create a missing entry (only one that was never created: an entry
 * that vanished after it was registered was removed by someone, and re-creating it could make a
 * second owner). A table from before ownership was recorded is adopted by the configured entry.
 */
public final class TableOwnership {
  private static final Logger log = LoggerFactory.getLogger(TableOwnership.class);

  private final String name;
  private final DeltaTable table;
  private final OwnerIdentity identity; // null without a catalog
  private final OwnerGuard guard;
  private volatile boolean entryToRecord; // the entry may be created: record it once the catalog holds it

  public TableOwnership(String name, DeltaTable table, OwnerIdentity identity) {
    this.name = name;
    this.table = table;
    this.identity = identity;
    this.guard = new OwnerGuard(name, identity);
    table.guard(guard);
  }

  /** The entry this worker registers the table as; empty without a catalog. */
  public Optional<OwnerIdentity> identity() {
    return Optional.ofNullable(identity);
  }

  /**
   * Before registering an existing table: adopts it when no catalog owns it yet, then checks
   * that this worker's entry owns it.
   *
   * @return whether the catalog may create the entry when it is missing
   * @throws io.lakesink.error.TableFailureException when another entry owns the table, or a
   *     hand-off fenced it
   */
  public boolean beforeRegistration() {
    Optional<TableOwner> owner = TableOwner.of(table.properties());
    if (owner.isEmpty()) {
      if (identity == null) {
        return true; // no catalog, no owner: nothing to register, nothing to guard
      }
      adopt();
      owner = TableOwner.of(table.properties());
    }
    if (owner.isEmpty()) {
      throw new IllegalStateException("table " + name + " was adopted but records no owner");
    }
    guard.check(owner.get());
    entryToRecord = owner.get().state() == TableOwner.State.REGISTERING;
    return entryToRecord;
  }

  /**
   * The catalog holds this worker's entry: a new or adopted table's entry now exists, which the
   * table records, so that from now on its disappearance is reported instead of repaired.
   */
  public void registered() {
    if (identity == null || !entryToRecord) {
      return;
    }
    entryToRecord = false;
    long version = table.commitProperties(p -> TableOwner.of(p)
        .filter(o -> o.is(identity) && o.state() == TableOwner.State.REGISTERING)
        .map(o -> o.registered().properties())
        .orElse(null));
    if (version >= 0) {
      log.info("Table {} records its catalog entry {} as registered (version {}): if the entry is removed, lakesink"
          + " reports it instead of creating it again", name, identity.target(), version);
    }
  }

  private void adopt() {
    Map<String, String> stamp = TableOwner.registering(identity.catalog(), identity.entry(), OwnerGuard.FIRST_EPOCH).properties();
    long version = table.commitProperties(p -> TableOwner.of(p).isPresent() ? null : stamp);
    if (version >= 0) {
      log.info("Table {} recorded no owning catalog entry (written before lakesink recorded ownership): adopted by {}"
          + " (version {}); from now on only that entry registers it", name, identity.target(), version);
    }
  }
}
