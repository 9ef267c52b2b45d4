package io.lakesink.ownership;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.delta.DeltaTable;
import io.lakesink.error.Errors;
import io.lakesink.ownership.HandOffRecord.Step;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Moves a table's catalog entry to another catalog entry without copying a byte, so that no two
 * entries ever own it: FENCE (a metadata commit: new epoch, owner "handing off", which every
 * concurrent lakesink commit conflicts with and then refuses) → UNREGISTER at the source (the
 * entry goes, the files stay) → REGISTER at the destination with the same location → record the
 * new OWNER (a metadata commit). Each step is journaled beside the table before the next one
 * starts and is idempotent, so running the same command after a crash resumes forward; the
 * destination is never registered before the source was unregistered.
 */
public final class HandOff {
  /** Called after each completed step: where tests inject a crash. */
  @FunctionalInterface
  public interface Hook {
    Hook NONE = step -> {};

    void after(Step step);
  }

  private final String table;
  private final DeltaTable delta;
  private final CatalogEntries catalogs;
  private final HandOffJournal journal;
  private final Clock clock;
  private final Hook hook;
  private boolean dryRun; // plan(): decide, change nothing

  public HandOff(String table, DeltaTable delta, CatalogEntries catalogs, HandOffJournal journal, Clock clock, Hook hook) {
    this.table = table;
    this.delta = delta;
    this.catalogs = catalogs;
    this.journal = journal;
    this.clock = clock;
    this.hook = hook;
  }

  /** What {@link #run} would do now, one line per step, changing nothing ({@code --dry-run}). */
  public List<String> plan(OwnerIdentity to) {
    dryRun = true;
    HandOffRecord start;
    try {
      start = start(to);
    } finally {
      dryRun = false;
    }
    List<String> lines = new ArrayList<>();
    if (start == null) {
      lines.add("Nothing to do: table " + table + " is owned by " + to.target() + " already.");
      return lines;
    }
    lines.add("Hand-off of table " + table + " at " + start.location() + " from " + start.from().target() + " to "
        + to.target() + (start.step() == Step.PLANNED ? "" : " (resuming after step " + start.step() + ")") + ":");
    step(lines, start, Step.FENCED, "FENCE       commit owner = handing off to " + to.target()
        + " with a new epoch: every lakesink writer of the table stops (quarantined, offsets frozen)");
    step(lines, start, Step.UNREGISTERED, "UNREGISTER  delete the entry " + start.from().target() + " (its files stay)");
    step(lines, start, Step.REGISTERED, "REGISTER    create the entry " + to.target() + " at " + start.location());
    step(lines, start, Step.DONE, "OWNER       commit owner = " + to.target() + "; restart the workers with the subscription"
        + " pointing there and release the table's quarantine");
    lines.add("Journal: " + journal.location(table));
    return lines;
  }

  private static void step(List<String> lines, HandOffRecord start, Step done, String text) {
    lines.add((start.step().reached(done) ? "  done  " : "  todo  ") + text);
  }

  /**
   * Runs (or resumes) the hand-off to {@code to}, reporting each step to {@code progress}.
   *
   * @throws io.lakesink.error.ConfigurationException when the table has no owner, or another
   *     hand-off of it is under way
   */
  public void run(OwnerIdentity to, Consumer<String> progress) {
    HandOffRecord record = start(to);
    if (record == null) {
      progress.accept("Table " + table + " is owned by " + to.target() + " already: nothing to do.");
      return;
    }
    if (record.step() == Step.PLANNED) {
      catalogs.checkRegistrable(record.toCatalog(), record.toEntry(), shape(record)); // before the fence: nothing to undo
      journal.save(record);
    }
    if (!record.step().reached(Step.FENCED)) {
      long epoch = fence(record);
      record = save(record, Step.FENCED, epoch);
      progress.accept("FENCED      " + table + " (epoch " + epoch + "): its writers stop");
      hook.after(Step.FENCED);
    }
    if (!record.step().reached(Step.UNREGISTERED)) {
      catalogs.unregister(record.fromCatalog(), record.fromEntry(), record.location());
      record = save(record, Step.UNREGISTERED, record.epoch());
      progress.accept("UNREGISTERED " + record.from().target() + " (its files stay)");
      hook.after(Step.UNREGISTERED);
    }
    if (!record.step().reached(Step.REGISTERED)) {
      register(record);
      record = save(record, Step.REGISTERED, record.epoch());
      progress.accept("REGISTERED  " + to.target() + " at " + record.location());
      hook.after(Step.REGISTERED);
    }
    long epoch = recordOwner(record);
    save(record, Step.DONE, epoch);
    progress.accept("OWNER       " + table + " is owned by " + to.target() + " (epoch " + epoch + ")");
    hook.after(Step.DONE);
  }

  /**
   * Where to start: the journal of an unfinished hand-off (redirected to {@code to} when its
   * destination was not registered yet), or a new plan from the owner the table records; null
   * when {@code to} owns the table already.
   */
  private HandOffRecord start(OwnerIdentity to) {
    Optional<HandOffRecord> open = journal.load(table).filter(r -> r.step() != Step.DONE);
    if (open.isPresent()) {
      if (open.get().to().equals(to)) {
        return open.get();
      }
      if (open.get().step().reached(Step.REGISTERED)) {
        throw Errors.handOffUnderWay(table, open.get().from().target(), open.get().to().target(), open.get().step().name());
      }
      return open.get().step() == Step.PLANNED ? fresh(to) : retarget(open.get(), to);
    }
    return fresh(to);
  }

  /** A new hand-off from the owner the table records; null when {@code to} owns it already. */
  private HandOffRecord fresh(OwnerIdentity to) {
    TableOwner owner = TableOwner.of(delta.properties()).orElseThrow(() -> Errors.handOffWithoutOwner(table));
    if (owner.state() == TableOwner.State.HANDING_OFF) {
      // Fenced by a hand-off whose journal is gone or finished: only that hand-off may go on.
      throw Errors.handOffUnderWay(table, owner.catalog() + "." + owner.entry(), String.valueOf(owner.handingOffTo()), "FENCED");
    }
    if (owner.is(to)) {
      return null;
    }
    return new HandOffRecord(table, delta.location(), owner.catalog(), owner.entry(), to.catalog(), to.entry(), Step.PLANNED,
        0, clock.instant().toString());
  }

  /**
   * A fenced hand-off whose destination was not registered yet (its name was taken, say) goes
   * to {@code to} instead — back to the source too. An entry of ours the old destination may
   * hold (a register that landed just before a crash) is removed first, so that two entries
   * never exist; anything else there is left alone. The fence then names the new destination.
   */
  private HandOffRecord retarget(HandOffRecord open, OwnerIdentity to) {
    if (dryRun) {
      return open.withDestination(to, open.epoch(), clock.instant().toString());
    }
    try {
      // Deletes the entry only when it is ours (this table's location, compared as the catalog
      // spells locations); absent is fine.
      catalogs.unregister(open.toCatalog(), open.toEntry(), open.location());
    } catch (io.lakesink.error.TableFailureException e) {
      // Another object holds the old destination's name: not ours, nothing to remove.
    }
    long[] epoch = {open.epoch()};
    delta.commitProperties(p -> {
      TableOwner owner = TableOwner.of(p).orElseThrow(() -> Errors.handOffWithoutOwner(table));
      if (owner.state() != TableOwner.State.HANDING_OFF) {
        throw Errors.handOffOwnerChanged(table, "handing off to " + open.to().target(), owner.describe());
      }
      if (to.target().equals(owner.handingOffTo())) {
        epoch[0] = owner.epoch();
        return null;
      }
      epoch[0] = owner.epoch() + 1;
      return new TableOwner(owner.catalog(), owner.entry(), epoch[0], TableOwner.State.HANDING_OFF, to.target()).properties();
    });
    HandOffRecord next = open.withDestination(to, epoch[0], clock.instant().toString());
    journal.save(next);
    return next;
  }

  /** The fence: owner "handing off" with a new epoch, decided on the latest log. Idempotent. */
  private long fence(HandOffRecord record) {
    long[] epoch = {0};
    delta.commitProperties(p -> {
      TableOwner owner = TableOwner.of(p).orElseThrow(() -> Errors.handOffWithoutOwner(table));
      if (owner.state() == TableOwner.State.HANDING_OFF && record.to().target().equals(owner.handingOffTo())) {
        epoch[0] = owner.epoch(); // this hand-off fenced it before a crash
        return null;
      }
      if (!owner.is(record.from()) || owner.state() == TableOwner.State.HANDING_OFF) {
        throw Errors.handOffOwnerChanged(table, record.from().target(), owner.describe());
      }
      epoch[0] = owner.epoch() + 1;
      return new TableOwner(owner.catalog(), owner.entry(), epoch[0], TableOwner.State.HANDING_OFF, record.to().target())
          .properties();
    });
    return epoch[0];
  }

  /** Only after the source's entry is gone: never two entries for one table. */
  private void register(HandOffRecord record) {
    if (!record.step().reached(Step.UNREGISTERED)) {
      throw new IllegalStateException("register before unregister in the hand-off of " + table);
    }
    catalogs.register(record.toCatalog(), record.toEntry(), shape(record));
  }

  /** The table as the destination registers it: named as the destination entry's last part. */
  private CatalogTable shape(HandOffRecord record) {
    String entry = record.toEntry();
    String name = entry.substring(entry.lastIndexOf('.') + 1);
    delta.refresh();
    return new CatalogTable(name, record.location(), delta.columns().orElseThrow(), delta.partitionColumns());
  }

  /** The new owner, registered, with the epoch after the fence's. Idempotent. */
  private long recordOwner(HandOffRecord record) {
    long[] epoch = {record.epoch() + 1};
    delta.commitProperties(p -> {
      TableOwner owner = TableOwner.of(p).orElseThrow(() -> Errors.handOffWithoutOwner(table));
      if (owner.is(record.to()) && owner.state() == TableOwner.State.REGISTERED) {
        epoch[0] = owner.epoch();
        return null;
      }
      if (owner.state() != TableOwner.State.HANDING_OFF || !record.to().target().equals(owner.handingOffTo())) {
        throw Errors.handOffOwnerChanged(table, "handing off to " + record.to().target(), owner.describe());
      }
      return new TableOwner(record.toCatalog(), record.toEntry(), epoch[0], TableOwner.State.REGISTERED, null).properties();
    });
    return epoch[0];
  }

  private HandOffRecord save(HandOffRecord record, Step step, long epoch) {
    HandOffRecord next = record.at(step, epoch, clock.instant().toString());
    journal.save(next);
    return next;
  }
}
