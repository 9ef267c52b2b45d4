package io.lakesink.ownership;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.Errors;

/**
 * {@code lakesink register} and {@code unregister}: an operator's hands on the owner's entry, with
 * the hand-off's guards. Both act only on the entry the table records as its owner, so neither
 * can make a second owner, and neither runs while a hand-off of the table is under way.
 */
public final class EntryCommands {
  private final String table;
  private final DeltaTable delta;
  private final CatalogEntries catalogs;
  private final HandOffJournal journal;

  public EntryCommands(String table, DeltaTable delta, CatalogEntries catalogs, HandOffJournal journal) {
    this.table = table;
    this.delta = delta;
    this.catalogs = catalogs;
    this.journal = journal;
  }

  /** Creates the owner's entry again (someone removed it); an entry already there at this location is kept. */
  public String register() {
    TableOwner owner = owner();
    String entry = owner.entry();
    CatalogTable shape = new CatalogTable(entry.substring(entry.lastIndexOf('.') + 1), delta.location(),
        delta.columns().orElseThrow(), delta.partitionColumns());
    catalogs.register(owner.catalog(), entry, shape);
    delta.commitProperties(p -> TableOwner.of(p)
        .filter(o -> o.is(new OwnerIdentity(owner.catalog(), entry)) && o.state() == TableOwner.State.REGISTERING)
        .map(o -> o.registered().properties())
        .orElse(null));
    return "Registered " + owner.catalog() + "." + entry + " at " + delta.location() + ", the entry table " + table
        + " records as its owner.";
  }

  /** Deletes the owner's entry; the files, and the table's record of its owner, stay. */
  public String unregister() {
    TableOwner owner = owner();
    catalogs.unregister(owner.catalog(), owner.entry(), delta.location());
    return "Unregistered " + owner.catalog() + "." + owner.entry() + " (its files at " + delta.location() + " stay). Table "
        + table + " still records that entry as its owner: workers keep writing it and report the missing entry until"
        + " `bin/lakesink register` brings it back or `bin/lakesink handoff` moves the table.";
  }

  private TableOwner owner() {
    journal.load(table).filter(r -> r.step() != HandOffRecord.Step.DONE).ifPresent(r -> {
      throw Errors.handOffUnderWay(table, r.from().target(), r.to().target(), r.step().name());
    });
    TableOwner owner = TableOwner.of(delta.properties()).orElseThrow(() -> Errors.handOffWithoutOwner(table));
    if (owner.state() == TableOwner.State.HANDING_OFF) {
      throw Errors.handOffUnderWay(table, owner.catalog() + "." + owner.entry(), String.valueOf(owner.handingOffTo()), "FENCED");
    }
    return owner;
  }
}
