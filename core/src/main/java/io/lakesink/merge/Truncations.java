package io.lakesink.merge;

import io.lakesink.event.ChangeEvent;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The truncates of a MERGE table. A truncate removes every row ranked below it ({@link
 * ChangeOrder}, as the current-state view ranks it); a change ranked below it is older than the
 * truncate, so it is dropped too, also when it arrives in a later batch (from another partition):
 * {@link MergeBatch} drops it, once its rank is known.
 * The merged table keeps no trace of a truncate, so that memory is the latest truncate this
 * worker applied, held until it restarts (docs/merge.md, Truncates), like {@link DeletedKeys}.
 */
final class Truncations {
  private ChangeOrder applied;

  Truncations() {}

  /** @param applied the latest truncate the table already applied (a derived table records it), or null */
  Truncations(ChangeOrder applied) {
    this.applied = applied;
  }

  /**
   * A batch split at its truncates.
   *
   * @param at the batch's latest truncate ranked above the applied one, null without one
   * @param floor the latest truncate once the batch is applied ({@code at}, else the applied one), or null
   * @param changes every change of the batch, in batch order: whether one ranks above the floor
   *     depends on its key's earlier changes in its partition ({@link MergeBatch})
   */
  record Cut(ChangeOrder at, ChangeOrder floor, List<ChangeEvent> changes) {
    /** Whether the batch holds a truncate the table has not applied yet. */
    boolean truncates() {
      return at != null;
    }

    /** The changes ranked above the floor at their own time: what a table without a key keeps (no key to raise a rank along). */
    List<ChangeEvent> aboveFloor() {
      return floor == null ? changes : changes.stream().filter(e -> ChangeOrder.of(e).isAfter(floor)).toList();
    }
  }

  /**
   * The batch's latest truncate ranked above the applied one (null: none), and its changes, in
   * batch order. Truncates themselves carry no row, and rank at their own time (docs/truncates.md).
   */
  Cut cut(List<ChangeEvent> events) {
    ChangeOrder latest = null;
    for (ChangeEvent e : events) {
      ChangeOrder at = ChangeOrder.of(e);
      if (e.isTruncate() && (latest == null || at.isAfter(latest)) && (applied == null || at.isAfter(applied))) {
        latest = at;
      }
    }
    List<ChangeEvent> changes = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      if (!e.isTruncate()) {
        changes.add(e);
      }
    }
    return new Cut(latest, latest != null ? latest : applied, changes);
  }

  /** Once the batch's commit landed: changes ranked below its truncate are dropped from now on. */
  void applied(Cut cut) {
    if (cut.truncates()) {
      applied = cut.at();
    }
  }
}
