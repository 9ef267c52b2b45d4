package io.lakesink.currentstate;

import io.lakesink.delta.DeltaTable;
import io.lakesink.error.TableFailureException;
import io.lakesink.ownership.CatalogEntries;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subscription switched from {@code current_state.object: table} back to a view (or a
 * materialized view): the catalog entry lakesink registered for its kept table gives the name up,
 * so the view can take it. The same rules as the MERGE → changelog migration: only an entry the
 * kept table records as its own (its owner, registered, this configuration's entry) and that points
 * at the kept table's location is removed; it is an external table's entry, so its files stay; any
 * other object under the name is left alone. The table then records its entry as still to be
 * created, so switching back to a table registers it again (and catches it up from the changelog).
 */
public final class KeptEntryRelease {
  private static final Logger log = LoggerFactory.getLogger(KeptEntryRelease.class);

  private KeptEntryRelease() {}

  /**
   * @param name the subscription's table ({@code <table>})
   * @param kept the kept table at {@code <table>}'s path (marked as kept from this changelog)
   * @param identity the entry this configuration would register {@code <table>} as; null without a catalog
   * @return whether the entry was released now (false: nothing of ours was registered, or it is
   *     left, with the reason logged)
   * @throws io.lakesink.error.RetryableException when the catalog cannot be reached (tried at the next start)
   */
  public static boolean release(String name, DeltaTable kept, CatalogEntries entries, OwnerIdentity identity) {
    TableOwner owner = TableOwner.of(kept.properties()).orElse(null);
    if (identity == null || owner == null || !owner.is(identity) || owner.state() != TableOwner.State.REGISTERED) {
      return false; // never registered here, handed off elsewhere, or released already
    }
    try {
      entries.unregister(identity.catalog(), identity.entry(), kept.location());
    } catch (TableFailureException e) {
      log.warn("The current-state table lakesink kept for {} is no longer wanted (current_state.object is not table), but"
          + " the entry {} is not its own: left untouched. {}", name, identity.target(), e.getMessage());
      return false;
    }
    kept.commitProperties(p -> TableOwner.of(p).filter(o -> o.is(identity) && o.state() == TableOwner.State.REGISTERED)
        .map(o -> TableOwner.registering(o.catalog(), o.entry(), o.epoch()).properties())
        .orElse(null));
    log.info("Subscription {} keeps its current state as a view now: the entry {} of the current-state table lakesink kept"
        + " is unregistered so that the view can take the name. Its files stay at {}: delete that directory if you no"
        + " longer want them; switching back to current_state.object: table registers it again and catches it up from"
        + " the changelog.", name, identity.target(), kept.location());
    return true;
  }
}
